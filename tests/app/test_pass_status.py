"""A pass's status reads the same everywhere: the runs list, the results view's status
line, ``gtreview results`` and the report; and a finished pass claims only the drift
checks that ran."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from sqlmodel import Session

from gtreview.app.results import run_summaries, status_line
from gtreview.cli.main import main
from gtreview.judging.calibration import DriftError
from gtreview.results.loader import load_run_results
from gtreview.runs.execute import PassCancelled
from gtreview.store import sets, tables
from gtreview.store.db import unit_of_work
from gtreview.store.project import create_project, open_project
from gtreview.store.runs_repo import INTERRUPTED, RunStatus
from tests.report.test_exports import RUBRIC
from tests.results.test_one_source import config, run
from tests.store.test_run_liveness import dead_pid


@pytest.fixture
def finished(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, int, int]:
    monkeypatch.setattr("gtreview.runs.execute.spec_identity", lambda spec: {"spec": spec})
    folder = tmp_path / "project"
    project = create_project(folder)
    try:
        with unit_of_work(project.engine) as tx:
            set_id = sets.import_rubric(tx, RUBRIC, source_name="Tiny_grading_key.json", source_sha256="s", actor="t")
        run_id = run(project.engine, set_id, config(repeats=1, pairwise=False))
    finally:
        project.close()
    return folder, set_id, run_id


def test_a_killed_pass_reads_interrupted_in_the_cli_as_in_the_runs_list(
    finished: tuple[Path, int, int], capsys: pytest.CaptureFixture[str]
) -> None:
    folder, set_id, run_id = finished
    project = open_project(folder)
    try:
        with Session(project.engine) as session:  # what SIGTERM leaves: running, its process gone
            row = session.get(tables.Run, run_id)
            assert row is not None
            row.status, row.owner = RunStatus.RUNNING.value, f"{socket.gethostname()}:{dead_pid()}"
            session.add(row)
            session.commit()
        (listed,) = [r for r in run_summaries(project.engine) if r.id == run_id]
        results = load_run_results(project.engine, run_id)
        line = status_line(project.engine, results, set_id)
    finally:
        project.close()
    assert listed.shown_status == INTERRUPTED
    assert line.startswith("Pass interrupted")
    assert main(["results", "--run", str(run_id), "--project", str(folder)]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first == f"run {run_id}: tiny ({INTERRUPTED}, 1 repeat)"


def test_a_pass_without_drift_checks_does_not_say_they_passed(finished: tuple[Path, int, int]) -> None:
    folder, set_id, run_id = finished
    project = open_project(folder)
    try:
        results = load_run_results(project.engine, run_id)
        assert results.config.drift_every == 0
        line = status_line(project.engine, results, set_id)
    finally:
        project.close()
    assert "every drift check passed" not in line
    assert line.startswith("Pass finished with drift checks off")


@pytest.mark.parametrize(
    ("stop", "said"),
    [
        (PassCancelled("the pass was cancelled"), "cancelled"),
        (DriftError("judge drift after 6 answers"), "stopped by the judge's drift check"),
        (RuntimeError("disk full\nsecond line"), "failed: disk full"),
    ],
)
def test_a_stopped_pass_says_how_it_stopped_and_how_to_resume(tmp_path: Path, monkeypatch, stop, said) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr("gtreview.runs.execute.spec_identity", lambda spec: {"spec": spec})
    project = create_project(tmp_path / "project")
    try:
        with unit_of_work(project.engine) as tx:
            set_id = sets.import_rubric(tx, RUBRIC, source_name="Tiny_grading_key.json", source_sha256="s", actor="t")

        def stopping(event: object) -> None:
            raise stop

        with pytest.raises(type(stop)):
            run(project.engine, set_id, config(repeats=1, pairwise=False), progress=stopping)
        line = status_line(project.engine, load_run_results(project.engine, 1), set_id)
    finally:
        project.close()
    assert line.startswith(
        f"Pass not finished: {said} (resume it with Resume selected pass in Runs, or gtreview run with the same settings)."
    )
