"""The verdict cube of a pass with judge repeats, and its noise report."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from gtreview.app.adjudicate import override_item
from gtreview.core.stats import gate_retest, noise_split, verdict_icc
from gtreview.inference.backend import CompletionRequest, CompletionResult
from gtreview.results.loader import SampleStatus, load_run_results
from gtreview.results.noise import noise_report
from gtreview.results.noise_text import model_reading, noise_text
from gtreview.runs.execute import run_pass
from gtreview.store import db, runs_repo
from gtreview.store.project import create_project
from tests.judging.scripted import ScriptedBackend
from tests.runs.test_judge_repeats import QUESTIONS, NoisyJudge, config


@pytest.fixture(autouse=True)
def identities(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("gtreview.runs.execute.spec_identity", lambda spec: {"spec": spec})


def open_backend(judge: NoisyJudge):  # type: ignore[no-untyped-def]
    def answer(spec: str, request: CompletionRequest) -> CompletionResult:
        seed = request.sampling.seed
        if spec.endswith("base") and seed % 1000 == 1235 % 1000:  # the base's second answer to A1 fails
            if "gold" in request.messages[1].content:
                return CompletionResult(text="")
        if spec.endswith("tuned") and seed % 1000 == 1234 % 1000:
            return CompletionResult(text="   ")  # never stored as an answer: an error too
        return CompletionResult(text=f"{spec} says {seed}")

    def opened(spec: str) -> ScriptedBackend:
        if spec.startswith("judge"):
            return judge.open(spec)
        return ScriptedBackend(lambda r: answer(spec, r), spec=spec)

    return opened


@pytest.fixture()
def project(tmp_path: Path):  # type: ignore[no-untyped-def]
    project = create_project(tmp_path / "p")
    yield project
    project.close()


def test_the_cube_holds_every_stored_verdict_and_errors_once(project) -> None:  # type: ignore[no-untyped-def]
    run = run_pass(
        project.engine, config(judge_repeats=3), QUESTIONS, rubric_hash="r", open_backend=open_backend(NoisyJudge())
    )
    results = load_run_results(project.engine, run.run_id)
    assert results.judge_repeats == 3
    with db.reading(project.engine) as session:
        rows = runs_repo.run_judgements(session, run.run_id)
    with db.reading(project.engine) as session:
        (listed,) = runs_repo.list_runs(session)
    assert listed.judgements == results.record_counts()["judgements"] == len(rows)  # repeats counted alike
    for model in results.models:
        cube = results.verdict_cube(model)
        gates = results.gate_cube(model)
        assert cube.shape == gates.shape == (2, 2, 3)
        matrix = results.score_matrix(model)
        np.testing.assert_array_equal(cube[:, :, 0], matrix)  # verdict 0 is the score of record
        for row in rows:
            if row.model_label != model:
                continue
            j = json.loads(row.record_json).get("judge_repeat", 0)
            qi = [q.id for q in results.questions].index(row.qid)
            assert cube[qi, row.sample_index, j] == row.total
            assert gates[qi, row.sample_index, j] == float(bool(row.gate_passed))
        for sample in results.samples:
            if sample.model == model and sample.status is SampleStatus.ERROR:
                qi = [q.id for q in results.questions].index(sample.qid)
                assert cube[qi, sample.sample_index, 0] == 0.0  # an error counts 0, once
                assert np.isnan(cube[qi, sample.sample_index, 1:]).all()  # nothing was judged again
    assert any(s.status is SampleStatus.ERROR for s in results.samples)

    report = noise_report(results)
    tuned = report.for_model("tuned")
    assert tuned is not None and tuned.judge_measured and report.for_model("nobody") is None
    cube = results.verdict_cube("tuned")
    assert tuned.split == noise_split(cube)
    assert tuned.retest.totals == verdict_icc(cube)
    assert tuned.retest.gate == gate_retest(results.gate_cube("tuned"))
    assert tuned.split.judge_variance is not None and tuned.split.judge_variance > 0  # the judge wavered
    assert len(tuned.questions) == 2 and report.question_ids == ["A1", "A2"]
    text = noise_text(report)
    assert "95%" in text.summary and "score of record" in text.summary
    assert text.readings[1] == model_reading(tuned) and "ICC(1,1)" in text.readings[1]
    assert {row[0] for row in text.rows} == {"base", "tuned"}


def test_an_override_is_the_score_of_record_but_not_a_verdict_of_the_judge(project) -> None:  # type: ignore[no-untyped-def]
    run = run_pass(
        project.engine, config(judge_repeats=2), QUESTIONS, rubric_hash="r", open_backend=open_backend(NoisyJudge())
    )
    results = load_run_results(project.engine, run.run_id)
    sample = next(s for s in results.samples if s.model == "tuned" and s.status is SampleStatus.SCORED)
    judged = results.verdict_cube("tuned")
    override_item(
        project.engine, run.run_id, sample.judgement_key, actor="expert", reason="r", gate_passed=False, awards={}
    )
    settled = load_run_results(project.engine, run.run_id)
    qi, k = [q.id for q in settled.questions].index(sample.qid), sample.sample_index
    assert settled.score_matrix("tuned")[qi, k] == 0.0 != judged[qi, k, 0]
    np.testing.assert_array_equal(settled.verdict_cube("tuned"), judged)


def test_one_verdict_per_answer_says_judge_noise_is_not_measured(project) -> None:  # type: ignore[no-untyped-def]
    run = run_pass(project.engine, config(), QUESTIONS, rubric_hash="r", open_backend=open_backend(NoisyJudge()))
    results = load_run_results(project.engine, run.run_id)
    assert results.verdict_cube("base").shape == (2, 2, 1)
    report = noise_report(results)
    assert not any(m.judge_measured for m in report.models)
    text = noise_text(report)
    assert text.rows == []
    assert text.readings == [
        "base: judge noise not measured, one verdict per answer.",
        "tuned: judge noise not measured, one verdict per answer.",
    ]
    assert text.summary.startswith("Judge noise not measured, one verdict per answer")
    # the app's own control first, the CLI's flag second
    assert '"Judge repeats per answer" at 2 or more in the Run dialog (gtreview run --judge-repeats 2)' in text.summary


def test_the_one_page_reading_splits_the_noise_with_the_passes_own_repeats(project) -> None:  # type: ignore[no-untyped-def]
    """The reading's noise line is the Noise tab's split, not the answers' spread alone."""
    from gtreview.results.analysis import analyse
    from gtreview.results.design_text import num
    from gtreview.results.reading import fine_tune_readings

    run = run_pass(
        project.engine, config(judge_repeats=3), QUESTIONS, rubric_hash="r", open_backend=open_backend(NoisyJudge())
    )
    results = load_run_results(project.engine, run.run_id)
    analysis = analyse(results, n_boot=200)
    assert analysis.noise is not None
    (reading,) = fine_tune_readings(results, analysis)
    split = analysis.noise.for_model("tuned")
    assert split is not None and split.split.se_judge is not None
    line = next(item for item in reading.lines if item.topic == "Noise in the score")
    assert f"tuned sampling {num(split.split.se_sampling)}, judge {num(split.split.se_judge)}" in line.figures
    assert reading.judge_noise_measured and reading.noise["tuned"] == split.split
