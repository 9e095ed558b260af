"""A judge prompt that cannot fit the judge's context (with its reply) is refused in one
line that names the question and the token counts, before any judge call."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from gtreview.core.rubric import Question
from gtreview.inference.backend import CompletionRequest, CompletionResult, Sampling
from gtreview.inference.context_fit import PromptsDoNotFit
from gtreview.inference.worker import WorkerBackend
from gtreview.judging.pairwise import PairTask, compare_answers
from gtreview.judging.pointwise import JudgeSettings, JudgeTask, judge_answers
from gtreview.judging.schemas import VerdictBounds
from tests.rubric_factory import question

SETTINGS = JudgeSettings(sampling=Sampling(temperature=0.0, seed=0, max_tokens=400), bounds=VerdictBounds.uniform(12))


class CountingWorker(WorkerBackend):
    """The real worker backend, counting the completion calls that reach it."""

    def __init__(self, spec: str) -> None:
        super().__init__(spec)
        self.calls = 0

    def complete_batch(
        self, requests: Sequence[CompletionRequest], *args: Any, **kwargs: Any
    ) -> list[CompletionResult]:
        self.calls += 1
        return super().complete_batch(requests, *args, **kwargs)


@pytest.fixture()
def small_judge(tiny_judge_gguf: Path) -> Iterator[CountingWorker]:
    backend = CountingWorker(f"llama:{tiny_judge_gguf}?ctx=2048&seq=2&threads=1")
    yield backend
    backend.close()


def test_pointwise_prompts_too_long_are_refused_before_any_call(small_judge: CountingWorker) -> None:
    q = Question.model_validate(question("A1"))
    tasks = [JudgeTask(key=str(n), question=q, answer="gold " * n) for n in (1, 900)]
    with pytest.raises(PromptsDoNotFit) as caught:
        judge_answers(small_judge, tasks, settings=SETTINGS)
    assert small_judge.calls == 0
    message = str(caught.value)
    assert "\n" not in message and message.startswith("1 of 2 judge prompts does not fit the 2,048-token context")
    assert "question A1 answer 900 needs " in message and "+ 400 reply" in message


def test_pairwise_prompts_too_long_are_refused_before_any_call(small_judge: CountingWorker) -> None:
    q = Question.model_validate(question("A1"))
    tasks = [PairTask(key="A1#0", question=q, answer_a="gold " * 500, answer_b="ore " * 500)]
    with pytest.raises(
        PromptsDoNotFit, match=r"^2 of 2 pairwise judge prompts do not fit .*question A1 pair A1#0 needs"
    ):
        compare_answers(small_judge, tasks, settings=SETTINGS)
    assert small_judge.calls == 0
