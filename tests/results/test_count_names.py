"""Every count of a run's samples is named once and reads the same everywhere.

A pass stopped after its answers were generated and before any was judged has nothing
missing (every answer exists) and everything unjudged. The CSV export, ``results --json``
(per question and per model), the PDF's summary table and the CLI's text must all say
so with the same names and the same values; a pass stopped during generation has
missing answers, and says that instead.
"""

from __future__ import annotations

import csv
import json
import threading
from pathlib import Path

import pytest
from sqlalchemy import Engine

from gtreview.app.exports import export_csv
from gtreview.cli.main import main
from gtreview.report.run_report import build_report
from gtreview.results.analysis import analyse
from gtreview.results.counts import COUNT_NAMES
from gtreview.results.loader import SampleStatus, load_run_results
from gtreview.runs.execute import PassCancelled
from gtreview.store import db, runs_repo
from tests.results.test_one_source import SEEDLESS, config, project, run

__all__ = ["project"]  # the fixture, used by name


def stopped_in(engine: Engine, set_id: int, phase: str) -> int:
    """A 2-repeat pass of 3 questions and 2 models cancelled as ``phase`` starts."""
    cancel = threading.Event()
    with pytest.raises(PassCancelled):
        run(
            engine,
            set_id,
            config(repeats=2),
            progress=lambda event: cancel.set() if event.phase == phase else None,
            cancel=cancel,
        )
    with db.reading(engine) as session:
        (stopped,) = runs_repo.list_runs(session)
    return stopped.id


def cli_json(capsys: pytest.CaptureFixture[str], folder: Path, run_id: int) -> dict[str, object]:
    assert main(["results", "--run", str(run_id), "--project", str(folder), "--json"]) == 0
    return dict(json.loads(capsys.readouterr().out))


def cli_text(capsys: pytest.CaptureFixture[str], folder: Path, run_id: int) -> str:
    assert main(["results", "--run", str(run_id), "--project", str(folder)]) == 0
    return capsys.readouterr().out


def outputs(engine: Engine, folder: Path, run_id: int, capsys: pytest.CaptureFixture[str], tmp: Path):  # type: ignore[no-untyped-def]
    results = load_run_results(engine, run_id)
    exported = export_csv(engine, run_id, tmp / "run.csv").files[0]
    with exported.open(encoding="utf-8", newline="") as handle:
        table = list(csv.DictReader(handle))
    document = build_report(results, analyse(results, **SEEDLESS))
    summary = next(b for b in document.blocks if getattr(b, "kind", "") == "table" and b.header[0] == "Model")
    return results, table, summary


STATUS_OF = {"scored": SampleStatus.SCORED, "errors": SampleStatus.ERROR, "unscored": SampleStatus.UNSCORED}
STATUS_OF |= {"unjudged": SampleStatus.UNJUDGED, "missing": SampleStatus.MISSING}


def assert_counts_agree(engine: Engine, folder: Path, run_id: int, capsys, tmp: Path) -> dict[str, dict[str, int]]:  # type: ignore[no-untyped-def]
    """Every output's counts, per question and model and per model, against the loader's
    statuses; returns each model's counts as ``results --json`` gives them."""
    results, table, summary = outputs(engine, folder, run_id, capsys, tmp)
    printed = cli_json(capsys, folder, run_id)
    questions, models = printed["questions"], printed["models"]
    assert isinstance(questions, list) and isinstance(models, list)
    by_row = {(row["question_id"], row["model"]): row for row in table}
    for shown in questions:
        samples = [s for s in results.samples if (s.qid, s.model) == (shown["question_id"], shown["model"])]
        cells = by_row[(shown["question_id"], shown["model"])]
        for key, status in STATUS_OF.items():
            expected = sum(s.status is status for s in samples)
            assert shown[f"n_{key}"] == int(cells[f"n_{key}"]) == expected, (key, shown["question_id"])
    for model in models:
        samples = [s for s in results.samples if s.model == model["label"]]
        for key, status in STATUS_OF.items():
            assert model[key] == sum(s.status is status for s in samples), key
    # the PDF's summary table: a column per count, headed by its one name
    for cells, model in zip(summary.rows, models, strict=True):
        for name in COUNT_NAMES:
            assert cells[summary.header.index(name.heading)] == str(model[name.key]), name.heading
    # the CLI's text: the counts that are not 0, by the same names
    text = cli_text(capsys, folder, run_id)
    for model in models:
        row = next(line for line in text.splitlines() if line.strip().startswith(f"{model['label']} "))
        for name in COUNT_NAMES:
            value = model[name.key]
            assert (f"{value} {name.key}" in row or f"{value} error" in row) == bool(value), (row, name.key)
    return {m["label"]: m for m in models}


def test_answers_not_judged_yet_are_unjudged_in_every_output(project, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    opened, set_id = project
    run_id = stopped_in(opened.engine, set_id, "judge")
    models = assert_counts_agree(opened.engine, opened.folder, run_id, capsys, tmp_path)
    # every answer was generated: nothing is missing, and the answers without a verdict say so
    assert all(m["missing"] == 0 for m in models.values())
    assert all(m["unjudged"] > 0 for m in models.values())


def test_answers_never_generated_are_missing_in_every_output(project, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    opened, set_id = project
    run_id = stopped_in(opened.engine, set_id, "generate")
    models = assert_counts_agree(opened.engine, opened.folder, run_id, capsys, tmp_path)
    assert sum(m["missing"] for m in models.values()) > 0


def test_a_pass_not_judged_yet_says_so_not_that_pairwise_was_not_run(project, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    from gtreview.results.design_text import design_readings

    opened, set_id = project
    run_id = stopped_in(opened.engine, set_id, "generate")  # 2 repeats asked for, no verdict yet
    results, _table, _summary = outputs(opened.engine, opened.folder, run_id, capsys, tmp_path)
    analysis = analyse(results, **SEEDLESS)
    document = build_report(results, analysis)
    said = [getattr(b, "text", "") for b in document.blocks]
    assert "Pairwise comparison: not judged yet." in said and "Pairwise comparison: not run in this pass." not in said
    assert "tuned vs base: pairwise not judged yet" in cli_text(capsys, opened.folder, run_id)
    assert analysis.design is not None
    assert not any("one answer per question" in line for line in design_readings(analysis.design))
