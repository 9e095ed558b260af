"""An evidence locator that does not resolve is a finding: counted in the question rows
and refused at approval unless the expert says why, the reason kept with the approval."""

from __future__ import annotations

from pathlib import Path

import pytest

from gtreview.app import editing, review, workflow
from gtreview.app.sample_project import ensure_sample_project
from gtreview.core.jsonmodel import canonical_hash
from gtreview.core.rubric import Rubric
from gtreview.store import sets
from gtreview.store.db import reading, unit_of_work
from gtreview.store.project import create_project
from gtreview.store.sets import ReviewStatus
from gtreview.store.settings_repo import APPROVAL_REQUIRES_CALIBRATION, set_setting
from tests.rubric_factory import rubric


@pytest.fixture()
def sample(tmp_path: Path):  # type: ignore[no-untyped-def]
    project = ensure_sample_project(tmp_path / "sample")
    with unit_of_work(project.engine) as tx:
        set_setting(tx, APPROVAL_REQUIRES_CALIBRATION, False)
    with reading(project.engine) as session:
        yield project.engine, sets.list_sets(session)[0].id
    project.close()


def cite_page_99(engine, set_id: int) -> None:  # type: ignore[no-untyped-def]
    with reading(engine) as session:
        content = sets.load_question(session, set_id, "A1").to_json_dict()
    content["evidence"][1]["locator"] = "page=99, lines=1-2"
    editing.save_content(engine, set_id, "A1", content, author="geo")


def test_an_unresolved_locator_is_counted_and_needs_a_reason_to_approve(sample) -> None:  # type: ignore[no-untyped-def]
    engine, set_id = sample
    index = review.corpus_index(engine)
    before = {r.qid: r for r in review.question_rows(engine, set_id, index)}
    assert before["A1"].unresolved == 0
    cite_page_99(engine, set_id)
    row = review.question_row(engine, set_id, "A1", index)
    assert (row.unresolved, row.errors) == (1, before["A1"].errors + 1) and row.has_findings
    (finding,) = [
        f for f in review.question_detail(engine, index, set_id, "A1").findings if f.code == "evidence-unresolved"
    ]
    assert finding.path == "$.evidence[1].locator" and "has no page 99" in finding.message

    with pytest.raises(workflow.UnresolvedEvidence, match="Evidence 2"):
        workflow.approve(engine, set_id, "A1", reviewer="geo")
    with pytest.raises(workflow.UnresolvedEvidence):
        workflow.approve(engine, set_id, "A1", reviewer="geo", index=index, unresolved_reason="  ")
    workflow.approve(engine, set_id, "A1", reviewer="geo", index=index, unresolved_reason="in the 1875 supplement")
    approval = workflow.history(engine, set_id, "A1")[-1]
    assert approval.action == "approved"
    assert "evidence 2 (page=99, lines=1-2)" in approval.comment and "in the 1875 supplement" in approval.comment


def test_a_project_without_a_corpus_does_not_check_locators(tmp_path: Path) -> None:
    project = create_project(tmp_path / "p")
    engine = project.engine
    with unit_of_work(engine) as tx:
        set_id = sets.import_rubric(
            tx, Rubric.model_validate(rubric(1)), source_name="r.json", source_sha256="s", actor="t"
        )
    with unit_of_work(engine) as tx:
        set_setting(tx, APPROVAL_REQUIRES_CALIBRATION, False)
    assert review.question_rows(engine, set_id, review.corpus_index(engine))[0].unresolved == 0
    workflow.approve(engine, set_id, "A1", reviewer="geo")
    with reading(engine) as session:
        assert sets.list_questions(session, set_id)[0].review_status is ReviewStatus.APPROVED
    project.close()


def test_a_sign_off_freezes_the_rubric_a_pass_runs(sample) -> None:  # type: ignore[no-untyped-def]
    engine, set_id = sample
    workflow.retire(engine, set_id, "A2", reviewer="geo", comment="duplicate")
    with reading(engine) as session:
        for summary in sets.list_questions(session, set_id):
            if summary.qid != "A2":
                workflow.approve(engine, set_id, summary.qid, reviewer="geo")
    signed = workflow.sign_off(engine, set_id, reviewer="geo")
    frozen = workflow.frozen_rubric(engine, set_id)
    assert "A2" not in {q.id for q in frozen.questions}
    assert signed.content_hash == canonical_hash(frozen.to_json_dict())


def test_an_approval_over_an_unresolved_locator_shows_its_waiver_not_an_error(sample) -> None:  # type: ignore[no-untyped-def]
    engine, set_id = sample
    index = review.corpus_index(engine)
    clean = review.question_row(engine, set_id, "A1", index)
    cite_page_99(engine, set_id)
    workflow.approve(engine, set_id, "A1", reviewer="geo", index=index, unresolved_reason="in the 1875 supplement")
    row = review.question_row(engine, set_id, "A1", index)
    # still unresolved, no longer an error: the approval recorded why
    assert (row.unresolved, row.errors, row.waived) == (1, clean.errors, 1)
    (finding,) = [
        f for f in review.question_detail(engine, index, set_id, "A1").findings if f.code == "evidence-unresolved"
    ]
    assert not finding.is_error
    assert "waived at approval by geo" in finding.message and "in the 1875 supplement" in finding.message

    workflow.reopen(engine, set_id, "A1", reviewer="geo")  # the waiver went with the approval
    row = review.question_row(engine, set_id, "A1", index)
    assert (row.unresolved, row.errors, row.waived) == (1, clean.errors + 1, 0)
