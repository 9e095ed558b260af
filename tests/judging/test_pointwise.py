import json
import threading

import pytest

from gtreview.core.rubric import Question
from gtreview.inference.backend import CompletionResult
from gtreview.judging.pointwise import JudgementStatus, JudgeSettings, JudgeTask, JudgingCancelled, judge_answers
from gtreview.judging.prompts import POINTWISE, load_template
from gtreview.judging.schemas import verdict_schema
from tests.judging.scripted import ScriptedBackend, answer_of, verdict_json
from tests.rubric_factory import question

Q1 = Question.model_validate(question("A1"))
Q2 = Question.model_validate(question("A2"))


def test_scores_are_computed_by_the_program_in_one_batch_per_attempt() -> None:
    backend = ScriptedBackend(lambda r: verdict_json(Q1, True, {"C1": 1, "C2": 3, "C3": 2}))
    tasks = [JudgeTask(key=f"k{n}", question=q, answer=f"answer {n}") for n, q in enumerate([Q1, Q1, Q2, Q1])]
    judgements = judge_answers(backend, tasks)
    assert [j.key for j in judgements] == ["k0", "k1", "k2", "k3"]
    assert [len(b) for b in backend.batches] == [4]  # every answer, both questions, in one batch
    record = judgements[0].record
    assert record is not None and record.total == 8  # the gate's 1 became its full 3
    assert judgements[0].prompt_sha256 == load_template(POINTWISE).sha256
    assert judgements[0].judge == "scripted:judge" and judgements[0].sampling.temperature == 0


def test_requests_carry_the_rubric_schema_and_the_answer() -> None:
    backend = ScriptedBackend(lambda r: verdict_json(Q1, False, {}))
    judge_answers(backend, [JudgeTask(key="k", question=Q1, answer="The reef pinches out.")])
    (request,) = backend.requests
    assert request.json_schema == verdict_schema(Q1)
    assert request.json_schema["properties"]["components"]["required"] == ["C1", "C2", "C3"]
    shapes = request.json_schema["properties"]["components"]["properties"]["C3"]["anyOf"]
    assert [s["properties"]["awarded"] for s in shapes] == [{"enum": [0, 4]}, {"enum": [1, 2, 3]}]
    assert answer_of(request) == "The reef pinches out."
    assert "0. Claims the reef pinched out." in request.messages[1].content


def test_empty_answer_scores_zero_without_a_call() -> None:
    backend = ScriptedBackend(lambda r: pytest.fail("the judge must not be called"))
    (judgement,) = judge_answers(backend, [JudgeTask(key="k", question=Q1, answer="  \n")])
    assert judgement.status is JudgementStatus.SCORED and judgement.total == 0 and backend.batches == []


@pytest.mark.parametrize(
    "bad",
    [
        "not json",
        "[1, 2]",
        json.dumps({"gate_passed": True, "components": {}}),
        verdict_json(Q1, True, {"C1": 3, "C2": 9, "C3": 0}),
        verdict_json(Q1, "yes", {}),  # type: ignore[arg-type]
        verdict_json(Q1, True, {"C1": 3}).replace('"C3"', '"C9"'),
        verdict_json(Q1, True, {"C2": 1}).replace('"awarded": 1', '"awarded": 1.5'),
    ],
)
def test_contract_breaks_are_reasked_then_unscored(bad: str) -> None:
    backend = ScriptedBackend(lambda r: bad)
    (judgement,) = judge_answers(backend, [JudgeTask(key="k", question=Q1, answer="An answer.")])
    assert judgement.status is JudgementStatus.UNSCORED
    assert judgement.total is None and judgement.unscored_reason
    assert judgement.attempts == 4 and len(backend.batches) == 4  # first ask + 3 re-asks
    last = backend.batches[-1][0]
    assert "broke the contract" in last.messages[-1].content and last.sampling.seed == 3


def test_a_reask_that_succeeds_is_scored() -> None:
    replies = iter(["garbage", verdict_json(Q1, True, {"C2": 2})])
    backend = ScriptedBackend(lambda r: next(replies))
    (judgement,) = judge_answers(backend, [JudgeTask(key="k", question=Q1, answer="An answer.")])
    assert judgement.status is JudgementStatus.SCORED and judgement.total == 5 and judgement.attempts == 2
    assert judgement.replies[0] == "garbage"


def test_backend_errors_and_truncation_count_as_broken_replies() -> None:
    outcomes = iter(
        [
            CompletionResult(finish_reason="error", error="503"),
            CompletionResult(text='{"gate', finish_reason="length"),
            CompletionResult(text=verdict_json(Q1, True, {})),
        ]
    )
    backend = ScriptedBackend(lambda r: next(outcomes))
    (judgement,) = judge_answers(backend, [JudgeTask(key="k", question=Q1, answer="An answer.")])
    assert judgement.status is JudgementStatus.SCORED and judgement.attempts == 3


def test_reask_limit_is_configurable_and_progress_reported() -> None:
    seen: list[tuple[int, int, int]] = []
    backend = ScriptedBackend(lambda r: "nope")
    judge_answers(
        backend,
        [JudgeTask(key=str(n), question=Q1, answer="x") for n in range(2)],
        settings=JudgeSettings(reasks=1),
        progress=lambda done, total, tokens: seen.append((done, total, tokens)),
    )
    assert len(backend.batches) == 2 and seen == [(1, 2, 0), (2, 2, 0)]


def test_cancel_between_questions() -> None:
    cancel = threading.Event()
    backend = ScriptedBackend(lambda r: (cancel.set(), verdict_json(Q1, True, {}))[1])
    tasks = [JudgeTask(key="a", question=Q1, answer="x"), JudgeTask(key="b", question=Q2, answer="y")]
    with pytest.raises(JudgingCancelled) as info:
        judge_answers(backend, tasks, cancel=cancel)
    assert [j.key for j in info.value.done] == ["a"]
