"""Adding a paraphrase of a question, refusing what cannot be one, keeping its rubric in step."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

from gtreview.app import editing, review, workflow
from gtreview.app.paraphrases import ParaphraseError, add_paraphrase, update_from_original
from gtreview.core.rubric import Rubric
from gtreview.store import sets
from gtreview.store.db import reading, unit_of_work
from gtreview.store.project import create_project
from gtreview.store.sets import ReviewStatus, history
from gtreview.store.settings_repo import APPROVAL_REQUIRES_CALIBRATION, set_setting
from tests.rubric_factory import rubric

WORDING = "Below the water table, why do the Prince Alfred battery returns drop so sharply?"


@pytest.fixture()
def setup(tmp_path: Path) -> Iterator[tuple[Engine, int]]:
    project = create_project(tmp_path / "p")
    with unit_of_work(project.engine) as tx:
        set_id = sets.import_rubric(
            tx, Rubric.model_validate(rubric(3)), source_name="r.json", source_sha256="s", actor="importer"
        )
    yield project.engine, set_id
    project.close()


def test_a_paraphrase_is_a_draft_after_its_original_with_the_original_rubric(setup: tuple[Engine, int]) -> None:
    engine, set_id = setup
    first = add_paraphrase(engine, set_id, "A1", WORDING, author="expert")
    second = add_paraphrase(engine, set_id, "A1", WORDING + " Explain.", author="expert")
    assert (first.qid, second.qid) == ("A1-P1", "A1-P2")
    assert [f for f in first.findings if f.is_error] == []
    with reading(engine) as session:
        assert [s.qid for s in sets.list_questions(session, set_id)] == ["A1", "A1-P1", "A1-P2", "A2", "A3"]
    with reading(engine) as session:
        summary = next(s for s in sets.list_questions(session, set_id) if s.qid == "A1-P1")
    assert summary.review_status is ReviewStatus.DRAFT and summary.current_version == 1
    with reading(engine) as session:
        made, original = sets.load_question(session, set_id, "A1-P1"), sets.load_question(session, set_id, "A1")
    assert made.question == WORDING and made.paraphrase_of == "A1"
    assert made.components == original.components and made.gate == original.gate
    with reading(engine) as session:
        assert [e.action for e in history(session, set_id, "A1-P1")] == ["add"]
    with reading(engine) as session:
        assert history(session, set_id, "A1-P1")[0].comment == "paraphrase of A1"


@pytest.mark.parametrize(
    ("original", "wording", "message"),
    [
        ("Z9", WORDING, "the set has no question Z9"),
        ("A1-P1", WORDING + " Again.", "A1-P1 is itself a paraphrase of A1"),
        ("A1", "   ", "wording is empty"),
        ("A1", "why does GOLD grade fall below the water level, in the Prince Alfred shaft", "wording is A1's own"),
    ],
)
def test_what_cannot_be_a_paraphrase_is_refused_and_nothing_is_added(
    setup: tuple[Engine, int], original: str, wording: str, message: str
) -> None:
    engine, set_id = setup
    add_paraphrase(engine, set_id, "A1", WORDING, author="expert")
    with pytest.raises(ParaphraseError, match=message) as refused:
        add_paraphrase(engine, set_id, original, wording, author="expert")
    assert "\n" not in str(refused.value)
    with reading(engine) as session:
        assert len(sets.list_questions(session, set_id)) == 4


def test_an_edited_original_leaves_its_paraphrase_stale_until_it_is_brought_up_to_date(
    setup: tuple[Engine, int],
) -> None:
    engine, set_id = setup
    add_paraphrase(engine, set_id, "A1", WORDING, author="expert")
    editing.apply_edit(engine, set_id, "A1", ("do_not_credit", 0), "Blames the assayer.", author="expert")
    overview = review.set_overview(engine, set_id, ["A1"])  # a change to A1 re-reads its paraphrases' rows too
    assert [r.qid for r in overview.rows] == ["A1", "A1-P1"]
    row = overview.rows[1]
    assert row.paraphrase_of == "A1" and row.warnings >= 1
    detail = review.question_detail(engine, review.corpus_index(engine), set_id, "A1-P1")
    assert [f.code for f in detail.findings if f.code.startswith("paraphrase")] == ["paraphrase-rubric-stale"]
    assert review.question_detail(engine, review.corpus_index(engine), set_id, "A1").paraphrases == ["A1-P1"]

    saved = update_from_original(engine, set_id, "A1-P1", author="expert")
    assert saved.version == 2 and saved.changed and saved.original == "A1"
    with reading(engine) as session:
        updated = sets.load_question(session, set_id, "A1-P1")
    assert updated.question == WORDING and updated.do_not_credit == ["Blames the assayer."]
    detail = review.question_detail(engine, review.corpus_index(engine), set_id, "A1-P1")
    assert not [f for f in detail.findings if f.code.startswith("paraphrase")]
    with reading(engine) as session:
        assert history(session, set_id, "A1-P1")[-1].comment == "rubric brought up to date from A1"
    again = update_from_original(engine, set_id, "A1-P1", author="expert")
    assert (again.version, again.changed) == (2, False)  # in step: nothing saved


def test_only_a_paraphrase_is_brought_up_to_date(setup: tuple[Engine, int]) -> None:
    engine, set_id = setup
    with pytest.raises(ParaphraseError, match="A2 is not a paraphrase"):
        update_from_original(engine, set_id, "A2", author="expert")


def test_a_paraphrase_is_reviewed_and_approved_like_any_question(setup: tuple[Engine, int]) -> None:
    engine, set_id = setup
    with unit_of_work(engine) as tx:
        set_setting(tx, APPROVAL_REQUIRES_CALIBRATION, False)
    add_paraphrase(engine, set_id, "A1", WORDING, author="expert")
    workflow.start_review(engine, set_id, "A1-P1", reviewer="expert")
    workflow.approve(engine, set_id, "A1-P1", reviewer="expert")
    with reading(engine) as session:
        assert {s.qid: s.review_status for s in sets.list_questions(session, set_id)}["A1-P1"] is ReviewStatus.APPROVED


def test_a_paraphrase_of_no_question_of_the_set_is_not_approved(setup: tuple[Engine, int]) -> None:
    engine, set_id = setup
    add_paraphrase(engine, set_id, "A1", WORDING, author="expert")
    with unit_of_work(engine) as tx:
        set_setting(tx, APPROVAL_REQUIRES_CALIBRATION, False)
    editing.apply_edit(engine, set_id, "A1-P1", ("paraphrase_of",), "Z9", author="expert")
    with pytest.raises(workflow.WorkflowError, match="validation error"):
        workflow.approve(engine, set_id, "A1-P1", reviewer="expert")
