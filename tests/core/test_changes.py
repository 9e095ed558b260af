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
