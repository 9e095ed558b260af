"""The project's judge and approval rule, as the app and the CLI read them."""

from __future__ import annotations

from pathlib import Path

import pytest

from gtreview.app.project_settings import project_judge, set_approval_requires_calibration, set_project_judge
from gtreview.app.question_calibration import approval_requires_calibration
from gtreview.core.errors import UserError
from gtreview.store.project import create_project


def test_the_judge_is_kept_and_a_bad_spec_refused(tmp_path: Path) -> None:
    project = create_project(tmp_path / "p")
    try:
        assert project_judge(project.engine) == ""
        set_project_judge(project.engine, "  openai:http://127.0.0.1:8000/v1#judge ")
        assert project_judge(project.engine) == "openai:http://127.0.0.1:8000/v1#judge"
        with pytest.raises(UserError):
            set_project_judge(project.engine, "nonsense:thing")
        assert project_judge(project.engine) == "openai:http://127.0.0.1:8000/v1#judge"  # nothing lost
        set_approval_requires_calibration(project.engine, False, actor="geo")
        assert approval_requires_calibration(project.engine) is False
    finally:
        project.close()
