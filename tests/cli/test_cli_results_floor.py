"""A pass at the floor (every answer of both models scored 0) run with ``--no-pairwise``,
two verdicts per answer and a membership test kept with it: its zero-width intervals are
read as "no variation", never as evidence; the text of ``gtreview results`` and the PDF
say what was not run rather than print empty figures, and the text prints the noise and
membership readings the view and the PDF show."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from gtreview.app.results import run_readings_of
from gtreview.app.sample_project import ensure_sample_project
from gtreview.core.rubric import Question
from gtreview.core.stats import Interval
from gtreview.core.stats.membership import AucResult
from gtreview.inference.backend import CompletionRequest, CompletionResult, Sampling
from gtreview.report.document import Heading, Paragraph, Table
from gtreview.report.run_report import build_report
from gtreview.results.analysis import analyse
from gtreview.results.design_text import design_readings
from gtreview.results.loader import load_run_results
from gtreview.results.membership_text import MEMBERSHIP_HEADING, membership_rows, membership_summary
from gtreview.runs.membership import MembershipReport, ModelMembership, SignalAuc, auc_reading
from gtreview.runs.plan import ModelEntry, PassConfig
from gtreview.runs.record import update_run_config
from gtreview.store import sets
from gtreview.store.db import reading, unit_of_work
from gtreview.store.project import open_project
from tests.cli.test_cli_results import cli
from tests.judging.scripted import ScriptedBackend, verdict_json
from tests.projects import scripted_pass

FLOOR = "every counted answer of both tuned and base scored 0 (a floor)"
CHANCE = AucResult(auc=0.55, ci=Interval(low=0.3, high=0.8), n_members=6, n_non_members=6, n_missing=0)
MEMBERSHIP = {
    "membership": MembershipReport(
        k=0.2,
        n_members=6,
        n_held_out=6,
        member_documents=["m1", "m2"],
        held_out_documents=["h1", "h2"],
        base="base",
        models=[
            ModelMembership(
                label=label,
                is_base=label == "base",
                aucs=[
                    SignalAuc(
                        signal="loss",
                        name="Loss",
                        member_side="low",
                        result=CHANCE,
                        reading=auc_reading("Loss", CHANCE),
                    )
                ],
                passages=[],
            )
            for label in ("base", "tuned")
        ],
        readings=[],
    ).model_dump(mode="json")
}


def open_backend(questions: dict[str, Question]):  # type: ignore[no-untyped-def]
    def judge(request: CompletionRequest) -> str:
        content = request.messages[1].content
        question = next(q for qid, q in questions.items() if f"QUESTION {qid}:" in content)
        return verdict_json(question, False, {})  # the gate fails and no point is awarded: a floor

    def answer(request: CompletionRequest) -> CompletionResult:
        return CompletionResult(text="an answer that earns nothing")

    return lambda spec: ScriptedBackend(judge if "judge" in spec else answer, spec=spec)


@pytest.fixture(scope="module")
def floor_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, int]]:
    folder = tmp_path_factory.mktemp("floor") / "sample"
    project = ensure_sample_project(folder)
    with reading(project.engine) as session:
        rubric = sets.export_rubric(session, 1)
    config = PassConfig(
        name="floor",
        models=[ModelEntry(label="base", spec="base"), ModelEntry(label="tuned", spec="tuned")],
        judge="judge",
        repeats=2,
        judge_repeats=2,
        sampling=Sampling(seed=3, temperature=0.7, max_tokens=64),
        drift_every=0,
        pairwise=False,
    )
    run_id = scripted_pass(project, config, open_backend({q.id: q for q in rubric.questions}))
    with unit_of_work(project.engine) as tx:
        update_run_config(tx, run_id, probes=MEMBERSHIP)
    project.close()
    yield folder, run_id


def test_a_floor_is_no_variation_not_evidence(floor_run: tuple[Path, int]) -> None:
    folder, run_id = floor_run
    project = open_project(folder)
    try:
        shown = run_readings_of(project.engine, run_id)
        results = load_run_results(project.engine, run_id)
    finally:
        project.close()
    (difference,) = shown.figures.differences
    assert (difference.mean_difference, difference.ci_low, difference.ci_high) == (0.0, 0.0, 0.0)
    assert difference.verdict == "no variation" and difference.reading == "no variation"
    (reading,) = shown.readings
    assert reading.verdict.kind == "cannot tell"
    assert reading.verdict.claim == (f"Cannot tell: {FLOOR}: the scores do not vary, so the interval says nothing.")
    score = next(line for line in reading.lines if line.topic == "Score change")
    # the judge is not gated (never calibrated): the line says so before what was measured
    assert score.reading.startswith("not read (no gated judge); as measured: no variation")
    assert "within noise" not in score.reading
    clustered = design_readings(analyse(results, n_boot=200, n_perm=200).design)  # type: ignore[arg-type]
    assert any("no variation" in line for line in clustered)
    assert not any("within noise" in line for line in clustered)


def test_results_text_says_each_thing_once_and_what_was_not_run(floor_run, capsys) -> None:  # type: ignore[no-untyped-def]
    folder, run_id = floor_run
    status, out, _ = cli(capsys, "results", "--run", str(run_id), "--project", str(folder))
    assert status == 0
    line = next(line for line in out.splitlines() if line.startswith("  tuned - base: "))
    assert line.endswith(
        ", difference 0.00 [0.00, 0.00] (paired permutation p = 1.000), no variation (95% interval, resampling questions)"
    )
    assert "no variation; no variation" not in out and "within noise" not in out
    assert "tuned vs base: pairwise not run in this pass" in out
    assert "0 won, 0 tied, 0 lost" not in out
    assert FLOOR in out


def test_the_pdf_says_pairwise_was_not_run(floor_run: tuple[Path, int]) -> None:
    folder, run_id = floor_run
    project = open_project(folder)
    try:
        results = load_run_results(project.engine, run_id)
    finally:
        project.close()
    # a membership test kept alone, without familiarity and recall probes: the report has its
    # membership section and no probe pages (it used to fail looking for them)
    assert results.probes is not None and not results.familiarity_probes
    doc = build_report(results, analyse(results, n_boot=200, n_perm=200))
    assert any(isinstance(b, Heading) and b.text == MEMBERSHIP_HEADING for b in doc.blocks)
    assert any(isinstance(b, Paragraph) and b.text == "Pairwise comparison: not run in this pass." for b in doc.blocks)
    assert not any(isinstance(b, Table) and b.header and b.header[0] == "Pairwise vs base" for b in doc.blocks)


def test_results_text_prints_the_noise_and_membership_readings(floor_run, capsys) -> None:  # type: ignore[no-untyped-def]
    folder, run_id = floor_run
    project = open_project(folder)
    try:
        shown = run_readings_of(project.engine, run_id)
    finally:
        project.close()
    noise, membership = shown.figures.noise_reading, shown.membership
    assert noise is not None and membership is not None
    status, out, _ = cli(capsys, "results", "--run", str(run_id), "--project", str(folder))
    assert status == 0
    assert f"  {noise.heading}: {noise.summary}\n" in out
    assert all(f"    {line}\n" in out for line in noise.readings) and len(noise.readings) == 2
    assert f"  {MEMBERSHIP_HEADING}: {membership_summary(membership)}\n" in out
    assert all("    " + " | ".join(row) + "\n" in out for row in membership_rows(membership))
    # kept before TPRs and ROC curves: they read as not measured, in the text and the JSON
    assert all(row[3:5] == ["–", "–"] for row in membership_rows(membership))
    status, out, _ = cli(capsys, "results", "--run", str(run_id), "--project", str(folder), "--json")
    aucs = [a for m in json.loads(out)["membership"]["models"] for a in m["aucs"]]
    assert status == 0 and aucs and all(a["tpr_at_fpr"] == [] and a["roc"] == [] for a in aucs)
