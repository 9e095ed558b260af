"""The real llama.cpp path: a tiny random-weight GGUF judges under the rubric's grammar."""

import json
from pathlib import Path

from gtreview.core.rubric import Question
from gtreview.inference.backend import Sampling
from gtreview.inference.factory import open_backend
from gtreview.judging.calibration import calibrate
from gtreview.judging.pairwise import PairTask, compare_answers
from gtreview.judging.pointwise import JudgementStatus, JudgeSettings, JudgeTask, judge_answers
from gtreview.judging.schemas import VerdictBounds
from tests.rubric_factory import question

SETTINGS = JudgeSettings(sampling=Sampling(temperature=0.0, seed=0, max_tokens=400), bounds=VerdictBounds.uniform(12))


def test_random_judge_replies_parse_and_totals_are_legal(tiny_judge_gguf: Path) -> None:
    q = Question.model_validate(question("A1"))
    backend = open_backend(f"llama:{tiny_judge_gguf}?ctx=8192&seq=4&threads=2")
    try:
        tasks = [
            JudgeTask(key=str(n), question=q, answer=f"Answer number {n}: the reef is oxidised.") for n in range(3)
        ]
        judgements = judge_answers(backend, tasks, settings=SETTINGS)
        again = judge_answers(backend, tasks, settings=SETTINGS)
    finally:
        backend.close()
    for judgement in judgements:
        assert judgement.judge.startswith("llama:")
        if judgement.status is JudgementStatus.SCORED:
            record = judgement.record
            assert record is not None and 0 <= record.total <= 10
            assert all(0 <= c.awarded <= c.maximum for c in record.components)
            assert record.total == 0 or record.gate_passed
            json.loads(judgement.replies[-1])  # the grammar made the reply strict JSON
        else:  # a random model may run out of tokens; that is recorded, never a 0
            assert judgement.total is None and judgement.unscored_reason
    assert sum(j.status is JudgementStatus.SCORED for j in judgements) >= 1
    assert [j.replies for j in judgements] == [j.replies for j in again]  # deterministic judging


def test_random_judge_calibration_and_pairwise_run_end_to_end(tiny_judge_gguf: Path) -> None:
    q = Question.model_validate(question("A1"))
    backend = open_backend(f"llama:{tiny_judge_gguf}?ctx=8192&seq=4&threads=2")
    try:
        report = calibrate(backend, [q], settings=SETTINGS)
        (pair,) = compare_answers(
            backend, [PairTask(key="p", question=q, answer_a="x is y", answer_b="y is x")], settings=SETTINGS
        )
    finally:
        backend.close()
    assert report.fixture_count == 3 and len(report.questions[0].fixtures) == 3
    assert pair.outcome.verdict_normal is not None and pair.outcome.verdict_swapped is not None  # enum-constrained
