"""Each review intent returns what it changed, and refuses with the rule it breaks."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

from gtreview.app import editing, workflow
from gtreview.core.review_flow import ReviewAction, ReviewStatus, Rule
from gtreview.core.rubric import Rubric
from gtreview.store import sets
from gtreview.store.db import reading, unit_of_work
from gtreview.store.project import create_project
from gtreview.store.settings_repo import APPROVAL_REQUIRES_CALIBRATION, set_setting
from tests.rubric_factory import rubric


@pytest.fixture()
def setup(tmp_path: Path) -> Iterator[tuple[Engine, int]]:
    project = create_project(tmp_path / "p")
    with unit_of_work(project.engine) as tx:
        set_id = sets.import_rubric(
            tx, Rubric.model_validate(rubric(2)), source_name="r.json", source_sha256="s", actor="importer"
        )
    with unit_of_work(project.engine) as tx:
        set_setting(tx, APPROVAL_REQUIRES_CALIBRATION, False)
    yield project.engine, set_id
    project.close()


def test_each_intent_says_what_it_changed(setup: tuple[Engine, int]) -> None:
    engine, set_id = setup
    started = workflow.start_review(engine, set_id, "A1", reviewer="geo")
    assert started == workflow.ReviewChange(
        set_id=set_id,
        qid="A1",
        action=ReviewAction.START_REVIEW,
        before=ReviewStatus.DRAFT,
        after=ReviewStatus.IN_REVIEW,
        version=1,
    )
    asked = workflow.request_changes(engine, set_id, "A1", reviewer="geo", comment="cite the 1883 report")
    assert (asked.before, asked.after) == (ReviewStatus.IN_REVIEW, ReviewStatus.CHANGES_REQUESTED)
    editing.apply_edit(engine, set_id, "A1", ("title",), "Cited", author="geo")
    approved = workflow.approve(engine, set_id, "A1", reviewer="geo")
    assert (approved.action, approved.before, approved.after, approved.version) == (
        ReviewAction.APPROVE,
        ReviewStatus.CHANGES_REQUESTED,  # an edit keeps a change request (only an approval is voided)
        ReviewStatus.APPROVED,
        2,
    )
    reopened = workflow.reopen(engine, set_id, "A1", reviewer="geo")
    assert (reopened.before, reopened.after) == (ReviewStatus.APPROVED, ReviewStatus.DRAFT)
    retired = workflow.retire(engine, set_id, "A1", reviewer="geo", comment="duplicate")
    assert (retired.before, retired.after, retired.version) == (ReviewStatus.DRAFT, ReviewStatus.RETIRED, 2)
    log = workflow.history(engine, set_id, "A1")
    assert [(e.action, e.version) for e in log if e.action != "edit"] == [
        ("import", 1),  # the set's import made version 1
        ("in_review", 1),
        ("changes_requested", 1),
        ("approved", 2),
        ("draft", 2),
        ("retired", 2),
    ]


def test_a_refusal_names_its_rule_and_writes_nothing(setup: tuple[Engine, int]) -> None:
    engine, set_id = setup
    with pytest.raises(workflow.ReviewRefused) as refused:
        workflow.retire(engine, set_id, "A2", reviewer="geo", comment=" ")
    assert refused.value.refusal.rule is Rule.COMMENT_REQUIRED
    assert str(refused.value) == "retiring a question needs a comment saying why"
    workflow.retire(engine, set_id, "A2", reviewer="geo", comment="out of scope")
    for intent in (workflow.approve, workflow.reopen, workflow.start_review):
        with pytest.raises(workflow.ReviewRefused) as refused:
            intent(engine, set_id, "A2", reviewer="geo")
        assert refused.value.refusal.rule is Rule.RETIRED_STAYS_RETIRED
    with pytest.raises(editing.EditError, match="A2 is retired; retired questions are not edited"):
        editing.apply_edit(engine, set_id, "A2", ("title",), "Back", author="geo")
    with reading(engine) as session:
        question = sets.load_question(session, set_id, "A2").model_copy(update={"title": "Back"})
    with pytest.raises(sets.EditRefusedError):  # the store refuses it in the edit's transaction, whoever asks
        with unit_of_work(engine) as tx:
            sets.save_question(tx, set_id, question, author="script")
    assert [e.action for e in workflow.history(engine, set_id, "A2")] == ["import", "retired"]
    with pytest.raises(workflow.WorkflowError, match="the set has no question Z9"):
        workflow.approve(engine, set_id, "Z9", reviewer="geo")


def test_sign_off_is_refused_with_the_rule_until_every_active_question_is_approved(
    setup: tuple[Engine, int],
) -> None:
    engine, set_id = setup
    workflow.approve(engine, set_id, "A1", reviewer="geo")
    with pytest.raises(workflow.ReviewRefused) as refused:
        workflow.sign_off(engine, set_id, reviewer="geo")
    assert refused.value.refusal.rule is Rule.NOT_ALL_APPROVED and str(refused.value).endswith("approved: A2")
    with reading(engine) as session:
        assert sets.list_signoffs(session, set_id) == []
    workflow.retire(engine, set_id, "A2", reviewer="geo", comment="out of scope")
    signed = workflow.sign_off(engine, set_id, reviewer="geo")
    assert (signed.number, signed.question_count) == (1, 1)
    workflow.retire(engine, set_id, "A1", reviewer="geo", comment="superseded")
    with pytest.raises(workflow.ReviewRefused, match="the set has no active questions to sign off"):
        workflow.sign_off(engine, set_id, reviewer="geo")
