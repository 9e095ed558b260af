"""The PDF report of a pass over the sample set: analysis figures, text read back, CLI."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from pypdf import PdfReader

from gtreview.app.sample_project import ensure_sample_project
from gtreview.core.rubric import Question
from gtreview.inference.backend import CompletionRequest, CompletionResult, Sampling
from gtreview.report.run_report import write_run_report
from gtreview.results.analysis import analyse
from gtreview.results.loader import load_run_results
from gtreview.runs.execute import run_pass
from gtreview.runs.plan import ModelEntry, PassConfig
from gtreview.store import sets
from gtreview.store.db import reading, unit_of_work
from tests.judging.scripted import ScriptedBackend, answer_of, fixture_reply, verdict_json


def scripted(questions: dict[str, Question]):  # type: ignore[no-untyped-def]
    def judge(request: CompletionRequest) -> str:
        content = request.messages[1].content
        question = next(q for qid, q in questions.items() if f"QUESTION {qid}:" in content)
        if "ANSWER A:" in content:
            first = content.split("ANSWER A:")[1]
            return json.dumps(
                {"reason": "r", "verdict": "[[A>B]]" if first.lstrip("\n<").startswith("tuned") else "[[B>A]]"}
            )
        answer = answer_of(request)
        fixture = next((f for f in question.calibration if f.response_text == answer), None)
        if fixture is not None:
            return fixture_reply(question, fixture)
        rng = random.Random(answer)
        points = {c.id: int(c.points) for c in question.components if not c.is_gate}
        if answer.startswith("tuned"):  # clearly better, with some spread
            return verdict_json(question, True, {cid: p - rng.randint(0, 1) for cid, p in points.items()})
        return verdict_json(question, rng.random() > 0.3, {cid: rng.randint(0, p // 2) for cid, p in points.items()})

    def open_backend(spec: str) -> ScriptedBackend:
        if spec == "judge":
            return ScriptedBackend(judge, spec=spec)

        def answer(request: CompletionRequest) -> CompletionResult:
            if (
                spec == "base"
                and request.sampling.seed % 1000 == 7
                and request.messages[1].content == questions["A1"].question
            ):
                return CompletionResult(text="")  # one question fails on one sample, after retries
            return CompletionResult(text=f"{spec} answer with seed {request.sampling.seed % 1000}")

        return ScriptedBackend(answer, spec=spec)

    return open_backend


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    folder = tmp_path_factory.mktemp("report") / "sample"
    project = ensure_sample_project(folder)
    with reading(project.engine) as session:
        rubric = sets.export_rubric(session, 1)
    questions = {q.id: q for q in rubric.questions}
    config = PassConfig(
        name="report test",
        models=[ModelEntry(label="base", spec="base"), ModelEntry(label="tuned", spec="tuned")],
        judge="judge",
        repeats=3,
        sampling=Sampling(seed=5, temperature=0.7, max_tokens=64),
        drift_every=0,
    )
    patch = pytest.MonkeyPatch()  # a module fixture cannot take the function-scoped one
    patch.setattr("gtreview.runs.execute.spec_identity", lambda spec: {"spec": spec})
    result = run_pass(
        project.engine,
        config,
        rubric.questions,
        rubric_hash="h",
        open_backend=scripted(questions),
        set_id=1,
        global_variants=rubric.global_variants,
    )
    patch.undo()  # later modules see the real identities
    yield folder, project, result.run_id
    project.close()


def test_analysis_figures(finished_run) -> None:  # type: ignore[no-untyped-def]
    _, project, run_id = finished_run
    results = load_run_results(project.engine, run_id)
    analysis = analyse(results, n_boot=500, n_perm=2000)
    base, tuned = analysis.models
    assert base.counts.errors == 1 and tuned.counts.errors == 0
    assert tuned.summary.mean is not None and base.summary.mean is not None and tuned.summary.mean > base.summary.mean
    (finetune,) = analysis.finetunes
    assert finetune.difference.verdict == "fine-tune better"
    assert finetune.pairwise is not None and finetune.pairwise.wins == 30 and finetune.pairwise.position_bias_rate == 0
    assert "won 30, tied 0 and lost 0 of 30 pairs" in analysis.finding
    assert len(analysis.questions) == 10 and set(base.by_difficulty) == {"Easy", "Moderate", "Hard"}


def test_pdf_report_reads_back(finished_run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _, project, run_id = finished_run
    results = load_run_results(project.engine, run_id)
    out = write_run_report(
        results, analyse(results, n_boot=500, n_perm=2000), tmp_path / "r.pdf", set_name="Mount Wirrim"
    )
    reader = PdfReader(str(out))
    text = "\n".join(page.extract_text() for page in reader.pages)
    for expected in (
        "Benchmark report: report test",
        "Contents",
        "Finding",
        "Summary",
        "Charts",
        "Breakdowns",
        "Per question",
        "Failures and unscored items",
        "Configuration",
        "Cronbach",
        "fine-tune better",
        "page 2",
    ):
        assert expected in text, expected
    for question in results.questions:
        assert question.id in text
    assert len(reader.outline) >= 6  # bookmarks for the sections
    assert len(reader.pages) >= 5


def test_report_command(finished_run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    folder, _, run_id = finished_run
    out = tmp_path / "cli.pdf"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "gtreview.cli",
            "report",
            "--run",
            str(run_id),
            "--pdf",
            str(out),
            "--project",
            str(folder),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert "draft: no sign-off matches" in "\n".join(p.extract_text() for p in PdfReader(str(out)).pages)
    # the judge was never calibrated: the command says so, as the cover does
    (gate_line,) = [line for line in result.stdout.splitlines() if line.startswith("Judge ")]
    assert gate_line.startswith("Judge NOT gated: never calibrated: A1, ")
    assert " ".join(gate_line.split()) in " ".join(PdfReader(str(out)).pages[0].extract_text().split())
    missing = subprocess.run(
        [sys.executable, "-m", "gtreview.cli", "report", "--run", "99", "--pdf", str(out), "--project", str(folder)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert missing.returncode == 2 and "no run 99" in missing.stderr


def test_probes_kept_with_the_pass_are_read_against_its_scores(finished_run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from gtreview.app.results import probe_readings
    from gtreview.core.stats import paired_difference_of_means
    from gtreview.runs.probes import FamiliarityComparison, FamiliarityReport, ModelLikelihood, RecallReport
    from gtreview.runs.record import update_run_config

    _, project, run_id = finished_run
    gain = paired_difference_of_means([1.0, 1.2, 0.9, 1.1], [0.2, 0.1, 0.3, 0.2], n_boot=200, n_perm=200)
    familiarity = FamiliarityReport(
        n_passages=4,
        n_controls=4,
        control_kind="shuffled",
        models=[
            ModelLikelihood(label="base", passages=-3.0, controls=-3.5),
            ModelLikelihood(label="tuned", passages=-2.0, controls=-3.4),
        ],
        comparisons=[FamiliarityComparison(label="tuned", base="base", passages=gain, controls=None, excess=gain)],
    )
    recall = RecallReport(
        n_passages=4,
        control_kind="shuffled",
        prompt_share=0.5,
        max_prompt_tokens=64,
        max_continuation_tokens=48,
        ngram=4,
        models=[],
        comparisons=[],
    )
    stored = {"familiarity": familiarity.model_dump(mode="json"), "recall": recall.model_dump(mode="json")}
    with unit_of_work(project.engine) as tx:
        update_run_config(tx, run_id, probes={**stored, "sections": {"A": stored}})
    results = load_run_results(project.engine, run_id)
    analysis = analyse(results, n_boot=300, n_perm=500)
    gated = write_run_report(
        results, analysis, tmp_path / "p.pdf", gate_line="Judge gated: all reproduced.", gated=True
    )
    text = " ".join(" ".join(page.extract_text().split()) for page in PdfReader(str(gated)).pages)
    assert "Learned or recited?" in text and "Log-lik. change" in text
    assert "reasons better" in text  # the scripted fine-tune gains on reasoning points in this pass
    assert "By section" in text and "Score change /10" in text
    # the same pass under a judge that is not gated: its reasoning points may be noise, so
    # the probes read what the likelihoods say alone: a gain beyond the shuffled control,
    # which learning the domain gives too, so no claim of reciting without a split
    for gate in ({"gate_line": "Judge NOT gated: never calibrated: A1.", "gated": False}, {}):
        out = write_run_report(results, analysis, tmp_path / "q.pdf", **gate)  # type: ignore[arg-type]
        text = " ".join(" ".join(page.extract_text().split()) for page in PdfReader(str(out)).pages)
        start = text.rindex("Learned or recited?")  # the section, not its line in the contents
        probes = text[start : text.index("By section", start)]
        assert "reasons better" not in probes and "recites more" not in probes
        assert "cannot tell reciting from learning the domain" in probes
    assert "reasons better" not in probe_readings(results, analysis, judge_gated=False)
    assert probe_readings(results, analysis, judge_gated=True) == "Probes: tuned: reasons better."


def test_pdf_prints_the_design_figures_with_their_readings(finished_run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from gtreview.report.design_section import DESIGN_HEADING
    from gtreview.results.design_text import design_readings, design_tables

    _, project, run_id = finished_run
    results = load_run_results(project.engine, run_id)
    analysis = analyse(results, n_boot=300, n_perm=500)
    assert analysis.design is not None
    readings = design_readings(analysis.design)
    # the fine-tune wins every pair: no logistic fit has a finite maximum, and the reading says so
    assert (
        readings[2].startswith("tuned: Length: the effect cannot be estimated") and "raw win rate 1.00" in readings[2]
    )
    assert readings[0].startswith("tuned: Clustered by 8 source documents: +")
    out = write_run_report(results, analysis, tmp_path / "d.pdf")
    text = " ".join(" ".join(page.extract_text().split()) for page in PdfReader(str(out)).pages)
    assert DESIGN_HEADING in text
    for line in readings:
        assert " ".join(line.split()) in text, line
    for table in design_tables(analysis.design):
        assert table.title in text and all(cell in text for cell in table.rows[0])
    assert "Bradley-Terry" not in text  # two models: the win rate against the base says it all
