"""Results of a pass, re-planned from the run: matrices for the statistics, errors and
unscored samples kept apart."""

from pathlib import Path

import numpy as np
import pytest

from gtreview.inference.backend import CompletionRequest, CompletionResult, Sampling
from gtreview.results.loader import SampleStatus, load_run_results
from gtreview.runs.execute import run_pass
from gtreview.runs.plan import ModelEntry, PassConfig
from gtreview.store.project import create_project
from tests.judging.scripted import ScriptedBackend, verdict_json
from tests.runs.test_pass import QUESTIONS


@pytest.fixture(autouse=True)
def identities(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("gtreview.runs.execute.spec_identity", lambda spec: {"spec": spec})


def test_matrices_errors_and_unscored(tmp_path: Path) -> None:
    project = create_project(tmp_path / "p")
    q1, q2 = QUESTIONS

    def judge(request: CompletionRequest) -> str:
        content = request.messages[1].content
        if "ANSWER A:" in content:
            return '{"reason": "r", "verdict": "[[A>B]]"}'
        q = q1 if "QUESTION A1:" in content else q2
        if "broken" in content:
            return "not json"  # unscored after the re-asks
        return verdict_json(q, True, {"C2": 2}) if "tuned" in content else verdict_json(q, False, {})

    def open_backend(spec: str) -> ScriptedBackend:
        if spec == "judge":
            return ScriptedBackend(judge, spec=spec)

        def answer(request: CompletionRequest) -> CompletionResult:
            seed = request.sampling.seed
            if spec == "tuned" and seed % 1000 == 1:
                return CompletionResult(text="broken answer")
            if spec == "base" and seed % 1000 == 2:
                return CompletionResult(text="")  # an error after the retries
            return CompletionResult(text=f"{spec} answer")

        return ScriptedBackend(answer, spec=spec)

    config = PassConfig(
        name="r",
        models=[ModelEntry(label="base", spec="base"), ModelEntry(label="tuned", spec="tuned")],
        judge="judge",
        repeats=3,
        sampling=Sampling(seed=0, temperature=0.7, max_tokens=32),
        drift_every=0,
    )
    result = run_pass(project.engine, config, QUESTIONS, rubric_hash="h", open_backend=open_backend)
    results = load_run_results(project.engine, result.run_id)
    assert results.models == ["base", "tuned"] and results.base == "base"
    base = results.score_matrix("base")
    tuned = results.score_matrix("tuned")
    assert base.tolist() == [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]  # gate failed twice, error (=0) once, per question
    assert np.isnan(tuned[:, 1]).all() and tuned[:, [0, 2]].tolist() == [[5.0, 5.0], [5.0, 5.0]]
    assert results.counts("base") == {
        "scored": 4,
        "error": 2,
        "unscored": 0,
        "missing": 0,
        "unjudged": 0,
        "adjudicated": 0,
    }
    assert results.counts("tuned") == {
        "scored": 4,
        "error": 0,
        "unscored": 2,
        "missing": 0,
        "unjudged": 0,
        "adjudicated": 0,
    }
    errors = [s for s in results.samples if s.status is SampleStatus.ERROR]
    assert all(s.total == 0 and s.gate_passed is False and s.error for s in errors)
    gate = results.gate_matrix("tuned")
    assert gate[:, [0, 2]].tolist() == [[1.0, 1.0], [1.0, 1.0]] and np.isnan(gate[:, 1]).all()
    shares = results.kind_share("tuned")
    assert shares.shape == (2, 3, 3) and shares[1, 0].tolist()[0] == 1.0  # the gate earned in full
    assert np.isnan(shares[1, 0, 1])  # the factory's questions have no binary component
    assert abs(shares[1, 0, 2] - 2 / 7) < 1e-9  # 2 of the 7 reasoning points
    assert len(results.pairs) == 6
    for pair in results.pairs:  # the scripted judge always prefers the first answer shown
        if pair.sample_index == 2:  # the base's answer is an error: the fine-tune wins without a call
            assert (pair.label, pair.inconsistent) == ("A>>B", False)
        else:
            assert (pair.label, pair.inconsistent) == ("A=B", True)
    project.close()


def test_analysis_flags_questions_where_pointwise_and_pairwise_disagree() -> None:
    from gtreview.results.analysis import analyse
    from gtreview.results.loader import PairResult, RunResults, SampleResult

    def sample(model: str, qid: str, total: float) -> SampleResult:
        return SampleResult(
            model=model,
            qid=qid,
            sample_index=0,
            status=SampleStatus.SCORED,
            total=total,
            gate_passed=True,
            awards={"C1": 3, "C2": int(total) - 3, "C3": 0},
        )

    config = PassConfig(
        name="d", models=[ModelEntry(label="base", spec="b"), ModelEntry(label="tuned", spec="t")], judge="j", repeats=1
    )
    results = RunResults(
        run_id=1,
        name="d",
        status="finished",
        config=config,
        questions=QUESTIONS,
        samples=[sample("base", "A1", 3), sample("tuned", "A1", 6), sample("base", "A2", 3), sample("tuned", "A2", 6)],
        pairs=[
            PairResult(qid="A1", sample_index=0, finetune="tuned", base="base", label="A>>B", average=2.0),
            PairResult(qid="A2", sample_index=0, finetune="tuned", base="base", label="B>>A", average=-2.0),
        ],
    )
    analysis = analyse(results, n_boot=200, n_perm=200)
    assert [q.disagrees for q in analysis.questions] == [[], ["tuned"]]
    (finetune,) = analysis.finetunes
    assert finetune.agreement is not None and finetune.agreement.rate == 0.5
