"""An intent's result says what it changed, so the GUI passes it on and never works it out."""

from gtreview.app.paraphrases import ParaphraseAdded
from gtreview.app.rubrics import RubricImport
from gtreview.app.workflow import ReviewChange
from gtreview.core.changes import Changing, OpChanges, OpResult, changes_of
from gtreview.core.review_flow import ReviewAction, ReviewStatus
from gtreview.runs.pass_context import PassResult
from gtreview.store.corpus_repo import CorpusImportReport


def test_a_review_decision_changes_its_question() -> None:
    change = ReviewChange(
        set_id=3,
        qid="A2",
        action=ReviewAction.APPROVE,
        before=ReviewStatus.IN_REVIEW,
        after=ReviewStatus.APPROVED,
        version=4,
    )
    assert isinstance(change, Changing)
    assert changes_of(change) == OpChanges(questions=frozenset({(3, "A2")}))


def test_imports_passes_and_paraphrases_say_what_they_touched() -> None:
    assert changes_of(PassResult(run_id=7)) == OpChanges(runs=frozenset({7}))
    assert changes_of(CorpusImportReport(added=["a.txt"])) == OpChanges(corpus=True)
    assert changes_of(CorpusImportReport(unchanged=["a.txt"])).empty  # nothing new: no view reads again
    added = ParaphraseAdded(set_id=2, qid="A1-P1", original="A1", findings=[])
    assert changes_of(added) == OpChanges(sets=frozenset({2}))
    imported = RubricImport.model_construct(set_id=5)
    assert changes_of(imported) == OpChanges(sets=frozenset({5}))


def test_a_plain_value_changed_nothing_and_an_op_result_carries_its_own() -> None:
    assert changes_of("done").empty
    assert changes_of(OpResult(None, OpChanges(corpus=True))) == OpChanges(corpus=True)


def test_the_gui_builds_no_changes_of_its_own() -> None:
    """Every op passes on what its intent said it changed (``changes_of``); a widget or
    controller that constructs ``OpChanges(...)`` is working out what an intent did."""
    import ast
    from pathlib import Path

    import gtreview.ui

    built = []
    for path in sorted(Path(gtreview.ui.__file__).parent.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            called = node.func.value if isinstance(node.func, ast.Attribute) else node.func  # OpChanges.of_questions
            if isinstance(called, ast.Name) and called.id == "OpChanges":
                built.append(f"{path.name}:{node.lineno}")
    assert built == []


def test_a_sign_off_a_saved_edit_and_a_cancelled_calibration_say_what_they_changed() -> None:
    from datetime import UTC, datetime

    from gtreview.app.editing import SaveResult
    from gtreview.app.question_calibration import CalibrationCancelled
    from gtreview.store.sets import SignoffInfo

    signed = SignoffInfo(
        id=1,
        set_id=4,
        number=1,
        content_hash="h",
        question_count=2,
        reviewer="geo",
        signed_at=datetime.now(UTC),
        comment="",
    )
    assert changes_of(signed) == OpChanges(sets=frozenset({4}))
    edited = SaveResult(version=3, findings=[], set_id=4, qid="A1")
    assert changes_of(edited) == OpChanges.of_questions(4, "A1")
    renamed = SaveResult(version=3, findings=[], set_id=4, qid="B1", renamed=True)
    assert changes_of(renamed) == OpChanges.of_questions(4, "B1") | OpChanges(sets=frozenset({4}))
    cancelled = CalibrationCancelled("cancelled", OpChanges.of_questions(4, "A1"))
    assert changes_of(cancelled) == OpChanges.of_questions(4, "A1")
    assert changes_of(CalibrationCancelled("cancelled before the judge was opened")).empty
