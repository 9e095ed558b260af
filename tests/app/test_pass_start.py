"""A pass that cannot start leaves no run behind: every backend it names is checked
before the run is created (here, an Anthropic judge or model with no API key), from the
app function and from ``gtreview run``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gtreview.app.passes import run_benchmark_pass
from gtreview.cli.main import main
from gtreview.core.rubric import Rubric
from gtreview.inference.anthropic_client import MissingApiKeyError
from gtreview.runs.plan import ModelEntry, PassConfig
from gtreview.store import runs_repo, sets
from gtreview.store.db import reading, unit_of_work
from gtreview.store.project import open_project
from tests.projects import new_project
from tests.rubric_factory import rubric

NOWHERE = "openai:http://127.0.0.1:9/v1#m"  # port 9 (discard): never answered
CLAUDE = "anthropic:claude-sonnet-4-5"

# (models, judge): the key is missing for the judge, or for a model the judge would come after
CASES = {"judge": (NOWHERE, CLAUDE), "model": (CLAUDE, NOWHERE)}


@pytest.fixture(autouse=True)
def no_anthropic_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setattr("gtreview.inference.anthropic_client._keyring_key", lambda: None)


@pytest.mark.parametrize("without_key", sorted(CASES))
def test_the_app_function_refuses_before_the_run_exists(tmp_path: Path, without_key: str) -> None:
    model, judge = CASES[without_key]
    project = open_project(new_project(tmp_path / "project"))
    try:
        with unit_of_work(project.engine) as tx:
            set_id = sets.import_rubric(
                tx, Rubric.model_validate(rubric(2)), source_name="r.json", source_sha256="s", actor="t"
            )
        config = PassConfig(name="t", models=[ModelEntry(label="m", spec=model)], judge=judge)
        with pytest.raises(MissingApiKeyError, match="no Anthropic API key"):
            run_benchmark_pass(project.engine, config, set_id=set_id)
        with reading(project.engine) as session:
            assert runs_repo.list_runs(session) == []
    finally:
        project.close()


@pytest.mark.parametrize("without_key", sorted(CASES))
def test_gtreview_run_refuses_in_one_line_and_leaves_no_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], without_key: str
) -> None:
    model, judge = CASES[without_key]
    folder = new_project(tmp_path / "project")
    source = tmp_path / "r.json"
    source.write_text(json.dumps(rubric(2)), encoding="utf-8")
    status = main(["run", "--rubric", str(source), "--model", f"m={model}", "--judge", judge, "--project", str(folder)])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(err) == 1 and "no Anthropic API key" in err[0], err
    project = open_project(folder)
    try:
        with reading(project.engine) as session:
            assert runs_repo.list_runs(session) == []
    finally:
        project.close()
