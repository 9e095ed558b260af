import json
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DatabaseError

from gtreview.app import editing, workflow
from gtreview.app.workflow import WorkflowError
from gtreview.core.jsonmodel import canonical_hash
from gtreview.core.rubric import Rubric
from gtreview.store import sets
from gtreview.store.db import reading, unit_of_work
from gtreview.store.project import create_project
from gtreview.store.sets import ReviewStatus
from gtreview.store.settings_repo import APPROVAL_REQUIRES_CALIBRATION, set_setting
from tests.rubric_factory import rubric


@pytest.fixture()
def setup(tmp_path: Path):  # type: ignore[no-untyped-def]
    project = create_project(tmp_path / "p")
    with unit_of_work(project.engine) as tx:
        set_id = sets.import_rubric(
            tx, Rubric.model_validate(rubric(3)), source_name="r.json", source_sha256="s", actor="importer"
        )
    with unit_of_work(project.engine) as tx:
        set_setting(tx, APPROVAL_REQUIRES_CALIBRATION, False)  # calibration has its own test
    yield project.engine, set_id
    project.close()


def statuses(engine, set_id) -> dict[str, ReviewStatus]:  # type: ignore[no-untyped-def]
    with reading(engine) as session:
        return {s.qid: s.review_status for s in sets.list_questions(session, set_id)}


def test_approve_needs_zero_errors(setup) -> None:  # type: ignore[no-untyped-def]
    engine, set_id = setup
    with reading(engine) as session:
        content = sets.load_question(session, set_id, "A1").to_json_dict()
    content["components"][1]["points"] += 1
    result = editing.save_content(engine, set_id, "A1", content, author="geo")
    assert result.version == 2 and [f.code for f in result.findings] == ["points-total"]
    with pytest.raises(WorkflowError, match="1 validation error"):
        workflow.approve(engine, set_id, "A1", reviewer="geo")
    content["components"][1]["points"] -= 1
    editing.save_content(engine, set_id, "A1", content, author="geo")
    workflow.approve(engine, set_id, "A1", reviewer="geo", comment="checked against the 1883 report")
    assert statuses(engine, set_id)["A1"] is ReviewStatus.APPROVED


def test_request_changes_needs_a_comment_and_history_records_everything(setup) -> None:  # type: ignore[no-untyped-def]
    engine, set_id = setup
    workflow.start_review(engine, set_id, "A2", reviewer="geo")
    with pytest.raises(WorkflowError, match="needs a comment"):
        workflow.request_changes(engine, set_id, "A2", reviewer="geo", comment="  ")
    workflow.request_changes(engine, set_id, "A2", reviewer="geo", comment="gate too lenient")
    entries = workflow.history(engine, set_id, "A2")
    assert [(e.actor, e.action, e.comment) for e in entries] == [
        ("importer", "import", "imported r.json"),  # where the question came from: its version 1
        ("geo", "in_review", ""),
        ("geo", "changes_requested", "gate too lenient"),
    ]
    with reading(engine) as session:
        current = sets.load_question(session, set_id, "A2").to_json_dict()
    assert entries[-1].content_hash == canonical_hash(current)


def test_retired_stays_retired(setup) -> None:  # type: ignore[no-untyped-def]
    engine, set_id = setup
    with pytest.raises(WorkflowError, match="comment"):
        workflow.retire(engine, set_id, "A3", reviewer="geo", comment="")
    workflow.retire(engine, set_id, "A3", reviewer="geo", comment="duplicates A2")
    for action in (workflow.approve, workflow.reopen, workflow.start_review):
        with pytest.raises(WorkflowError, match="retired"):
            action(engine, set_id, "A3", reviewer="geo")
    with pytest.raises(editing.EditError, match="retired"):
        editing.apply_edit(engine, set_id, "A3", ("title",), "Back again", author="geo")


def test_sign_off_freezes_the_set(setup) -> None:  # type: ignore[no-untyped-def]
    engine, set_id = setup
    workflow.approve(engine, set_id, "A1", reviewer="geo")
    with pytest.raises(WorkflowError, match="not approved: A2, A3"):
        workflow.sign_off(engine, set_id, reviewer="geo")
    workflow.approve(engine, set_id, "A2", reviewer="geo")
    workflow.retire(engine, set_id, "A3", reviewer="geo", comment="out of scope")
    signed = workflow.sign_off(engine, set_id, reviewer="Dr Geo", comment="set v1")
    assert signed.number == 1 and signed.question_count == 2
    frozen = workflow.signed_rubric_text(engine, set_id, 1)
    data = json.loads(frozen)
    assert [q["id"] for q in data["questions"]] == ["A1", "A2"]
    assert data["benchmark"]["question_count"] == 2
    assert canonical_hash(data) == signed.content_hash

    # a later edit starts a new draft and leaves the signed version untouched
    with reading(engine) as session:
        content = sets.load_question(session, set_id, "A1").to_json_dict()
    content["title"] = "Edited after sign-off"
    editing.save_content(engine, set_id, "A1", content, author="geo")
    assert statuses(engine, set_id)["A1"] is ReviewStatus.DRAFT
    assert workflow.signed_rubric_text(engine, set_id, 1) == frozen
    with engine.begin() as connection, pytest.raises(DatabaseError, match="frozen"):
        connection.execute(text("UPDATE set_signoff SET rubric_json = '{}'"))


def test_rename_and_diff(setup) -> None:  # type: ignore[no-untyped-def]
    engine, set_id = setup
    with reading(engine) as session:
        content = sets.load_question(session, set_id, "A1").to_json_dict()
    content["id"] = "A2"
    with pytest.raises(editing.EditError, match="already has a question A2"):
        editing.save_content(engine, set_id, "A1", content, author="geo")
    content["id"] = "A9"
    content["title"] = "Renamed"
    result = editing.save_content(engine, set_id, "A1", content, author="geo")
    assert result.version == 3  # the rename, then the title
    diff = editing.diff_versions(engine, set_id, "A9", 1, 3)
    assert '-  "id": "A1",' in diff and '+  "id": "A9",' in diff
    assert '+  "title": "Renamed",' in diff
    assert editing.diff_versions(engine, set_id, "A9", 2, 2) == ""


def test_edit_with_wrong_types_is_refused(setup) -> None:  # type: ignore[no-untyped-def]
    engine, set_id = setup
    with reading(engine) as session:
        content = sets.load_question(session, set_id, "A1").to_json_dict()
    content["components"] = "nothing"
    with pytest.raises(editing.EditError, match="components"):
        editing.save_content(engine, set_id, "A1", content, author="geo")
    with reading(engine) as session:
        assert sets.list_versions(session, set_id, "A1")[-1].version == 1


def test_path_edits_compose_and_undo(setup) -> None:  # type: ignore[no-untyped-def]
    engine, set_id = setup
    editing.apply_edit(engine, set_id, "A1", ("title",), "New title", author="geo")
    editing.apply_edit(engine, set_id, "A1", ("gate", "pass_condition"), "Names the oxidation front.", author="geo")
    editing.apply_edit(engine, set_id, "A1", ("title",), "Question A1", author="geo")  # undo of the first
    with reading(engine) as session:
        current = sets.load_question(session, set_id, "A1")
    assert current.title == "Question A1"
    assert current.gate is not None and current.gate.pass_condition == "Names the oxidation front."
    with reading(engine) as session:
        assert [v.version for v in sets.list_versions(session, set_id, "A1")] == [1, 2, 3, 4]


def test_approval_needs_calibration_of_the_current_version(setup) -> None:  # type: ignore[no-untyped-def]
    from gtreview.app.question_calibration import calibrate_questions
    from tests.judging.scripted import ScriptedBackend, answer_of, fixture_reply, verdict_json

    engine, set_id = setup
    with unit_of_work(engine) as tx:
        set_setting(tx, APPROVAL_REQUIRES_CALIBRATION, True)
    with pytest.raises(WorkflowError, match="not been calibrated"):
        workflow.approve(engine, set_id, "A1", reviewer="geo")
    with reading(engine) as session:
        question = sets.load_question(session, set_id, "A1")
    fixtures = {f.response_text: f for f in question.calibration}
    sloppy = ScriptedBackend(lambda r: verdict_json(question, True, {"C2": 3, "C3": 4}))
    (result,) = calibrate_questions(engine, sloppy, set_id, ["A1"])
    assert not result.reproduced
    with pytest.raises(WorkflowError, match="did not reproduce A1's fixtures A1-F1, A1-F2"):
        workflow.approve(engine, set_id, "A1", reviewer="geo")
    faithful = ScriptedBackend(lambda r: fixture_reply(question, fixtures[answer_of(r)]))
    (result,) = calibrate_questions(engine, faithful, set_id, ["A1"])
    assert result.reproduced
    workflow.approve(engine, set_id, "A1", reviewer="geo")
    # an edit makes a new version, which needs its own calibration
    editing.apply_edit(engine, set_id, "A1", ("title",), "Changed", author="geo")
    with pytest.raises(WorkflowError, match="not been calibrated"):
        workflow.approve(engine, set_id, "A1", reviewer="geo")
