"""One source of truth: every output of a run agrees with the one results loader.

For each kind of run an analyst meets (an expert override, a pass that reuses an
earlier pass's answers, a pass extended from 3 to 4 repeats, a resumed pass and an
imported harness run) the figures of the loader are compared with: the analysis the
results view and the PDF show, ``run_figures`` (``gtreview results --json``), the
CSV export, the leaderboard export, the Runs view counts, the status line's settled
count and the PDF's per-question table and cover (from the app and the CLI alike).
"""

from __future__ import annotations

import csv
import json
import math
import threading
from pathlib import Path

import pytest
from pypdf import PdfReader
from sqlalchemy import Engine

from gtreview.app.adjudicate import confirm_item, override_item, queue_of_run
from gtreview.app.exports import export_csv, export_leaderboard
from gtreview.app.harness_import import import_harness_files
from gtreview.app.reports import report_cover, write_report
from gtreview.app.results import status_line
from gtreview.core.wording import plural
from gtreview.report.run_report import build_report
from gtreview.results.analysis import analyse, fmt
from gtreview.results.figures import run_figures
from gtreview.results.loader import SampleStatus, load_run_results
from gtreview.results.rows import COUNTED
from gtreview.runs.execute import PassCancelled, PassEvent, run_pass
from gtreview.runs.plan import ModelEntry, PassConfig
from gtreview.runs.record import RunSource, RunStatus
from gtreview.store import runs_repo, sets
from gtreview.store.db import reading, unit_of_work
from gtreview.store.project import create_project
from tests.report.test_exports import RUBRIC, open_backend

SEEDLESS = {"n_boot": 200, "n_perm": 200}


def config(**changes: object) -> PassConfig:
    base = PassConfig(
        name="tiny",
        models=[ModelEntry(label="base", spec="openai:base"), ModelEntry(label="tuned", spec="openai:tuned")],
        judge="judge:x",
        repeats=3,
        drift_every=0,
    )
    return base.model_copy(update=changes)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    monkeypatch.setattr("gtreview.runs.execute.spec_identity", lambda spec: {"spec": spec})
    opened = create_project(tmp_path / "project")
    with unit_of_work(opened.engine) as tx:
        set_id = sets.import_rubric(tx, RUBRIC, source_name="Tiny_grading_key.json", source_sha256="s", actor="t")
    yield opened, set_id
    opened.close()


def run(engine: Engine, set_id: int, pass_config: PassConfig, **kwargs: object) -> int:
    result = run_pass(
        engine, pass_config, RUBRIC.questions, rubric_hash="r", open_backend=open_backend, set_id=set_id, **kwargs
    )  # type: ignore[arg-type]
    return result.run_id


def read_csv(path: Path) -> dict[tuple[str, str], dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return {(row["question_id"], row["model"]): row for row in csv.DictReader(handle)}


def number(cell: str) -> float | None:
    return None if cell == "" else float(cell)


def close(a: float | None, b: float | None, places: int = 4) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(round(a, places), round(b, places), abs_tol=10 ** -(places - 1))


def assert_outputs_agree(engine: Engine, run_id: int, folder: Path) -> None:
    """Every output of the run, side by side with the loader's figures."""
    results = load_run_results(engine, run_id)
    analysis = analyse(results, **SEEDLESS)
    figures = run_figures(results, analysis)
    by_question = {(q.question_id, q.model): q for q in figures.questions}

    # The loader's own samples: the per-question figures are their mean and count.
    for (qid, model), row in by_question.items():
        samples = [s for s in results.samples if (s.qid, s.model) == (qid, model)]
        counted = [s.total for s in samples if s.status in COUNTED and s.total is not None]
        assert row.samples == len(samples) == results.repeats
        assert row.n_errors == sum(s.status is SampleStatus.ERROR for s in samples)
        assert close(row.mean, sum(counted) / len(counted) if counted else None)

    # The analysis (results view and PDF) shows the same per-question means and sds.
    for question in analysis.questions:
        for model in results.models:
            row = by_question[(question.qid, model)]
            assert close(question.means[model], row.mean) and close(question.sds[model], row.sd)

    # The CSV export.
    exported = export_csv(engine, run_id, folder / f"run{run_id}.csv")
    table = read_csv(exported.files[0])
    assert set(table) == set(by_question)
    for key, row in by_question.items():
        cells = table[key]
        assert int(cells["samples"]) == row.samples and int(cells["n_scored"]) == row.n_scored
        assert int(cells["n_errors"]) == row.n_errors and int(cells["n_unscored"]) == row.n_unscored
        assert int(cells["n_settled"]) == row.n_settled
        assert close(number(cells["mean"]), row.mean) and close(number(cells["sd"]), row.sd)
        if row.pairs is not None:
            assert (int(cells["wins"]), int(cells["ties"]), int(cells["losses"])) == (
                row.pairs.wins,
                row.pairs.ties,
                row.pairs.losses,
            )

    # The leaderboard export of every model: one score per question, the loader's mean.
    for model in results.models:
        out = folder / f"board-{run_id}-{model}"
        export_leaderboard(engine, run_id, model, out)
        scores = json.loads((out / "scores.json").read_text(encoding="utf-8"))
        for entry in scores:
            assert close(float(entry["score_b"]), by_question[(entry["id"], model)].mean, places=2)
        assert {e["id"] for e in scores} == {
            qid for (qid, m), row in by_question.items() if m == model and row.mean is not None
        }

    # The Runs view counts (linked records) are the loader's.
    with reading(engine) as session:
        (summary,) = [r for r in runs_repo.list_runs(session) if r.id == run_id]
    counts = results.record_counts()
    assert (summary.generations, summary.judgements, summary.pairs) == (
        counts["generations"],
        counts["judgements"],
        counts["pairs"],
    )

    # Settled counts: the figures, the status line and the adjudication queue.
    settled = sum(m.settled for m in figures.models)
    assert settled == sum(s.adjudicated for s in results.samples)
    line = status_line(engine, results, results.set_id, analysis)
    assert (f"{plural(settled, 'score')} settled by an expert" in line) == (settled > 0)

    # The PDF's summary and per-question tables print the analysis' figures.
    document = build_report(results, analysis)
    tables = [b for b in document.blocks if getattr(b, "kind", "") == "table"]
    per_question = next(t for t in tables if t.header[0] == "Id")
    for cells, question in zip(per_question.rows, analysis.questions, strict=True):
        for model in results.models:
            column = per_question.header.index(f"{model} mean±sd")
            assert cells[column] == f"{fmt(question.means[model], 1)}±{fmt(question.sds[model], 1)}"
    summary_table = next(t for t in tables if t.header[:2] == ["Model", "Mean /10"])
    for cells, model in zip(summary_table.rows, figures.models, strict=True):
        assert cells[0] == model.label and cells[1] == fmt(model.mean)


def test_an_override_reaches_every_output(project, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    opened, set_id = project
    run_id = run(opened.engine, set_id, config())
    before = load_run_results(opened.engine, run_id)
    sample = next(s for s in before.samples if (s.model, s.qid, s.sample_index) == ("tuned", "A1", 0))
    assert sample.total == 6
    decision = override_item(
        opened.engine,
        run_id,
        sample.judgement_key,
        actor="geologist",
        reason="C3 earned in full",
        gate_passed=True,
        awards={"C2": 3, "C3": 4},
    )
    assert decision.action == "override" and (decision.qid, decision.model) == ("A1", "tuned")
    assert decision.changes.adjudications == {run_id}  # what the GUI's views refresh
    after = load_run_results(opened.engine, run_id)
    settled = next(s for s in after.samples if s.judgement_key == sample.judgement_key)
    assert (settled.total, settled.judge_total, settled.adjudicated) == (10, 6, True)
    assert_outputs_agree(opened.engine, run_id, tmp_path)
    rows = read_csv(tmp_path / f"run{run_id}.csv")
    assert number(rows[("A1", "tuned")]["mean"]) == pytest.approx((10 + 7 + 6) / 3, abs=1e-4)
    scores = json.loads((tmp_path / f"board-{run_id}-tuned" / "scores.json").read_text(encoding="utf-8"))
    a1 = next(e for e in scores if e["id"] == "A1")
    assert a1["score_b"] == 7.67  # (10 + 7 + 6) / 3
    assert "score_b_components" not in a1  # a mean of 10, 7 and 6 is no one record: no components contradict it
    queue = queue_of_run(opened.engine, run_id)
    assert any(item.key == sample.judgement_key and item.settled for item in queue) or all(
        item.key != sample.judgement_key for item in queue
    )


def test_a_confirm_settles_nothing_but_is_kept(project, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    opened, set_id = project
    run_id = run(opened.engine, set_id, config())
    queued = [i for i in queue_of_run(opened.engine, run_id) if i.target == "judgement"]
    confirm_item(opened.engine, run_id, queued[0].key, actor="geologist")
    settled = {i.key for i in queue_of_run(opened.engine, run_id) if i.settled}
    assert queued[0].key in settled
    assert_outputs_agree(opened.engine, run_id, tmp_path)


def test_a_pass_that_reuses_an_earlier_passs_answers(project, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    opened, set_id = project
    first = run(opened.engine, set_id, config())
    calls: list[str] = []

    def counting(spec: str):  # type: ignore[no-untyped-def]
        calls.append(spec)
        return open_backend(spec)

    second = run_pass(
        opened.engine,
        config(name="again", drift_every=100),  # another configuration: a new run, the same answers
        RUBRIC.questions,
        rubric_hash="r",
        open_backend=counting,
        set_id=set_id,
    ).run_id
    assert second != first and calls == []  # everything reused: no model opened
    with reading(opened.engine) as session:
        summaries = {r.id: r for r in runs_repo.list_runs(session)}
    assert summaries[second].generations == summaries[first].generations == 18
    assert_outputs_agree(opened.engine, second, tmp_path)
    assert read_csv(tmp_path / f"run{second}.csv") == read_csv(
        export_csv(opened.engine, first, tmp_path / "a.csv").files[0]
    )


def test_a_pass_extended_from_3_to_4_repeats(project, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    opened, set_id = project
    run(opened.engine, set_id, config())
    extended = run(opened.engine, set_id, config(repeats=4))
    results = load_run_results(opened.engine, extended)
    assert results.repeats == 4 and len(results.samples) == 2 * 3 * 4
    with reading(opened.engine) as session:
        summary = next(r for r in runs_repo.list_runs(session) if r.id == extended)
    assert summary.generations == 24  # 18 reused and 6 new, not the 6 it wrote itself
    assert_outputs_agree(opened.engine, extended, tmp_path)
    rows = read_csv(tmp_path / f"run{extended}.csv")
    assert {row["samples"] for row in rows.values()} == {"4"}


def test_a_resumed_pass(project, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    opened, set_id = project
    cancel = threading.Event()

    def stop_after_first_batch(event: PassEvent) -> None:
        if event.phase == "generate" and event.done > 0:
            cancel.set()

    with pytest.raises(PassCancelled):
        run(opened.engine, set_id, config(), progress=stop_after_first_batch, cancel=cancel)
    with reading(opened.engine) as session:
        (stopped,) = runs_repo.list_runs(session)
    assert stopped.status is RunStatus.STOPPED and 0 < stopped.generations < 18
    partial = load_run_results(opened.engine, stopped.id)
    assert any(s.status is SampleStatus.MISSING for s in partial.samples)
    assert_outputs_agree(opened.engine, stopped.id, tmp_path / "partial")
    resumed = run(opened.engine, set_id, config())
    assert resumed == stopped.id
    with reading(opened.engine) as session:
        (finished,) = runs_repo.list_runs(session)
    assert finished.status is RunStatus.FINISHED and finished.generations == 18
    assert_outputs_agree(opened.engine, resumed, tmp_path)


def harness_scores(path: Path) -> Path:
    def side(awards: dict[str, int], gate: bool) -> dict[str, object]:
        return {
            "components": [
                {"id": c, "awarded": a, "maximum": m} for (c, a), m in zip(awards.items(), (3, 3, 4), strict=True)
            ],
            "gate": gate,
            "total": sum(awards.values()) if gate else 0,
        }

    entries = []
    for qid, a, b, verdicts in (
        ("1", side({"C1": 3, "C2": 1, "C3": 0}, True), side({"C1": 3, "C2": 3, "C3": 2}, True), ("A>B", "B>A")),
        ("2", side({"C1": 0, "C2": 0, "C3": 0}, False), side({"C1": 3, "C2": 0, "C3": 0}, True), ("B>A", "A>B")),
        ("3", side({"C1": 3, "C2": 2, "C3": 1}, True), side({"C1": 3, "C2": 1, "C3": 1}, True), ("B>A", "B>A")),
    ):
        entry: dict[str, object] = {"id": qid, "verdict_normal": verdicts[0], "verdict_swapped": verdicts[1]}
        for name, record in (("a", a), ("b", b)):
            entry[f"score_{name}"] = record["total"]
            entry[f"score_{name}_gate_passed"] = record["gate"]
            entry[f"score_{name}_components"] = record["components"]
        entries.append(entry)
    path.write_text(json.dumps(entries), encoding="utf-8")
    return path


def test_an_imported_harness_run(project, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    opened, set_id = project
    report = import_harness_files(
        opened.engine, RUBRIC, scores=harness_scores(tmp_path / "scores.json"), labels=("base", "cand"), set_id=set_id
    )
    assert report.run_id is not None
    results = load_run_results(opened.engine, report.run_id)
    assert results.source is RunSource.HARNESS and results.models == ["base", "cand"]
    assert [s.total for s in results.samples if s.model == "cand"] == [8, 3, 5]
    assert_outputs_agree(opened.engine, report.run_id, tmp_path)
    written = write_report(opened.engine, report.run_id, tmp_path / "imported.pdf", seed=0)
    assert written.path.is_file() and PdfReader(str(written.path)).pages


def cover_text(path: Path) -> list[str]:
    first = PdfReader(str(path)).pages[0].extract_text()
    # the time it was made differs (the two are made a moment apart): label and value,
    # whether the table cell keeps them on one line or not
    return [line for line in first.splitlines() if not line.startswith("Generated") and " UTC by gtreview" not in line]


def test_the_report_cover_is_the_same_from_the_app_and_the_cli(project, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import subprocess
    import sys

    from gtreview.app import workflow
    from gtreview.store.settings_repo import APPROVAL_REQUIRES_CALIBRATION, set_setting

    opened, set_id = project
    with unit_of_work(opened.engine) as tx:
        set_setting(tx, APPROVAL_REQUIRES_CALIBRATION, False)  # calibration has its own tests
    with reading(opened.engine) as session:
        for summary in sets.list_questions(session, set_id):
            workflow.approve(opened.engine, set_id, summary.qid, reviewer="geologist")
    signed = workflow.sign_off(opened.engine, set_id, reviewer="geologist")
    with reading(opened.engine) as session:
        signed_rubric = sets.export_rubric(session, set_id)
    from gtreview.core.jsonmodel import canonical_hash

    assert signed.content_hash == canonical_hash(signed_rubric.to_json_dict())
    run_id = run_pass(
        opened.engine,
        config(),
        signed_rubric.questions,
        rubric_hash=signed.content_hash,
        open_backend=open_backend,
        set_id=set_id,
    ).run_id
    cover = report_cover(opened.engine, load_run_results(opened.engine, run_id))
    assert cover.signoff.startswith("sign-off #1 by geologist")
    app_pdf = write_report(opened.engine, run_id, tmp_path / "app.pdf").path
    folder = opened.folder
    opened.close()
    cli_pdf = tmp_path / "cli.pdf"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "gtreview.cli",
            "report",
            "--run",
            str(run_id),
            "--pdf",
            str(cli_pdf),
            "--project",
            str(folder),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert cover_text(app_pdf) == cover_text(cli_pdf)
    assert any("sign-off #1 by geologist" in line for line in cover_text(app_pdf))


def test_an_import_of_a_released_rubric_names_its_set_and_sign_off(project, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from gtreview.app import workflow
    from gtreview.store.settings_repo import APPROVAL_REQUIRES_CALIBRATION, set_setting

    opened, set_id = project
    with unit_of_work(opened.engine) as tx:
        set_setting(tx, APPROVAL_REQUIRES_CALIBRATION, False)
    with reading(opened.engine) as session:
        for summary in sets.list_questions(session, set_id):
            workflow.approve(opened.engine, set_id, summary.qid, reviewer="geologist")
    workflow.sign_off(opened.engine, set_id, reviewer="geologist")
    with reading(opened.engine) as session:
        released = sets.export_rubric(session, set_id)
    report = import_harness_files(  # no set named: the rubric file of the release
        opened.engine, released, scores=harness_scores(tmp_path / "scores.json"), labels=("base", "cand")
    )
    assert report.run_id is not None
    results = load_run_results(opened.engine, report.run_id)
    cover = report_cover(opened.engine, results)
    with reading(opened.engine) as session:
        assert cover.set_name == sets.list_sets(session)[0].name
    assert cover.signoff.startswith("sign-off #1 by geologist")
    document = build_report(results, analyse(results, **SEEDLESS))
    configuration = next(
        b for b in reversed(document.blocks) if getattr(b, "kind", "") == "table"
    )  # the configuration page of an import states no sampling it cannot know
    assert all("Sampling" not in row[0] for row in configuration.rows)


def test_an_import_of_a_drafts_rubric_names_the_set_with_the_same_content(project, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    opened, _ = project
    report = import_harness_files(  # no set named, no sign-off: the content hash says which set it is
        opened.engine, RUBRIC, scores=harness_scores(tmp_path / "scores.json"), labels=("base", "cand")
    )
    assert report.run_id is not None
    results = load_run_results(opened.engine, report.run_id)
    assert results.set_id is None
    cover = report_cover(opened.engine, results)
    with reading(opened.engine) as session:
        assert cover.set_name == sets.list_sets(session)[0].name
    assert cover.signoff == "draft: no sign-off matches this version of the set"
    written = write_report(opened.engine, report.run_id, tmp_path / "imported.pdf", seed=0)
    assert "none in this project" not in " ".join(cover_text(written.path))


def test_a_fine_tune_never_generated_is_missing_in_every_output(project, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Stopped after the base's answers: the fine-tune's planned answers were never generated,
    and every output counts them as missing (the loader, results --json, the CSV, the PDF)."""
    opened, set_id = project
    cancel = threading.Event()

    def stop_at_the_fine_tune(event: PassEvent) -> None:
        if event.phase == "generate" and "tuned" in event.message:
            cancel.set()

    with pytest.raises(PassCancelled):
        run(opened.engine, set_id, config(), progress=stop_at_the_fine_tune, cancel=cancel)
    with reading(opened.engine) as session:
        (stopped,) = runs_repo.list_runs(session)
    results = load_run_results(opened.engine, stopped.id)
    analysis = analyse(results, **SEEDLESS)
    tuned = next(m for m in run_figures(results, analysis).models if m.label == "tuned")
    planned = len(RUBRIC.questions) * 3
    assert (tuned.samples, tuned.missing, tuned.unjudged, tuned.scored) == (planned, planned, 0, 0)
    rows = read_csv(export_csv(opened.engine, stopped.id, tmp_path / "stopped.csv").files[0])
    assert {row["n_missing"] for (_, model), row in rows.items() if model == "tuned"} == {"3"}
    summary = next(t for t in build_report(results, analysis).blocks if getattr(t, "header", [""])[:1] == ["Model"])
    missing = summary.header.index("Missing")
    assert [cells[missing] for cells in summary.rows if cells[0] == "tuned"] == [str(planned)]
    assert_outputs_agree(opened.engine, stopped.id, tmp_path / "agree")
