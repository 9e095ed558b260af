"""Review > Require calibration before approval switched off: the switch is in the review
log (who, when, why), and every approval, sign-off and signed release made under it says
that calibration was not required, so it never reads like a calibrated one."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import Engine

from gtreview.app import workflow
from gtreview.app.project_settings import set_approval_requires_calibration
from gtreview.app.question_calibration import calibrate_questions
from gtreview.app.releases import create_release_bundle, create_reviewer_key, verify_release_bundle
from gtreview.store import sets
from gtreview.store.db import reading, unit_of_work
from gtreview.store.project import create_project
from tests.app.test_judging import RUBRIC, faithful
from tests.judging.scripted import ScriptedBackend


def test_approvals_sign_off_and_release_made_without_the_requirement_say_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from gtreview.cli.main import main as cli_main

    project = create_project(tmp_path / "p")
    engine = project.engine
    try:
        with unit_of_work(engine) as tx:
            set_id = sets.import_rubric(tx, RUBRIC, source_name="r.json", source_sha256="s", actor="geo")
        calibrate_questions(engine, ScriptedBackend(faithful), set_id, ["A1"])
        workflow.approve(engine, set_id, "A1", reviewer="geo")  # required (the default), and reproduced
        with pytest.raises(workflow.WorkflowError, match="A2 has not been calibrated"):
            workflow.approve(engine, set_id, "A2", reviewer="geo")

        set_approval_requires_calibration(engine, False, actor="ann", reason="pilot round")
        set_approval_requires_calibration(engine, False, actor="ann")  # no change: nothing logged
        (switch,) = _project_log(engine)
        assert (switch.actor, switch.action, switch.comment) == ("ann", "calibration not required", "pilot round")
        workflow.approve(engine, set_id, "A2", reviewer="geo")  # allowed now, and marked

        def approval(qid: str) -> bool | None:
            return [e for e in workflow.history(engine, set_id, qid) if e.action == "approved"][-1].calibration_required

        assert (approval("A1"), approval("A2")) == (True, False)
        signed = workflow.sign_off(engine, set_id, reviewer="geo")
        assert signed.approved_without_calibration == ["A2"]
        keys = tmp_path / "keys"
        geo = create_reviewer_key("geo", keys)
        info = create_release_bundle(engine, set_id, key="geo", key_dir=keys, out_dir=tmp_path / "bundle")
        assert info.approved_without_calibration == ["A2"]
    finally:
        project.close()
    report = verify_release_bundle(info.folder, public_key_file=geo.public_path)
    assert report.ok and report.uncalibrated_approvals == ["A2"]
    assert any("calibration was not required when 1 of 2 questions were approved (A2)" in w for w in report.warnings)
    capsys.readouterr()
    assert cli_main(["release", "verify", str(info.folder), "--public-key", str(geo.public_path)]) == 0
    assert "note     calibration was not required when 1 of 2 questions were approved (A2)" in capsys.readouterr().out


def test_switching_the_requirement_back_on_is_logged_and_approvals_are_required_again(tmp_path: Path) -> None:
    project = create_project(tmp_path / "p")
    try:
        set_approval_requires_calibration(project.engine, True, actor="ann")  # already required: no entry
        assert _project_log(project.engine) == []
        set_approval_requires_calibration(project.engine, False, actor="ann")
        set_approval_requires_calibration(project.engine, True, actor="bob")
        assert [(e.actor, e.action) for e in _project_log(project.engine)] == [
            ("ann", "calibration not required"),
            ("bob", "calibration required"),
        ]
    finally:
        project.close()


def _project_log(engine: Engine) -> list[sets.HistoryEntry]:
    with reading(engine) as session:
        return sets.project_log(session)
