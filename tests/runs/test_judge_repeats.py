"""Judge repeats: J verdicts per answer, content-keyed, verdict 0 exactly as before."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from gtreview.core.errors import UserError
from gtreview.core.jsonmodel import canonical_hash
from gtreview.core.rubric import Question
from gtreview.inference.backend import CompletionRequest, CompletionResult, Sampling
from gtreview.judging.prompts import POINTWISE, load_template
from gtreview.runs.execute import PassEvent, run_pass
from gtreview.runs.plan import ModelEntry, PassConfig, plan_pass, shuffled_components
from gtreview.store import db, runs_repo
from gtreview.store.project import create_project
from tests.judging.scripted import ScriptedBackend, answer_of, verdict_json
from tests.rubric_factory import question

QUESTIONS = [Question.model_validate(question(f"A{n}")) for n in (1, 2)]
IDENTITIES = {"base": {"spec": "openai:base"}, "tuned": {"spec": "openai:tuned"}}
JUDGE = {"spec": "judge:x"}


def config(**changes: Any) -> PassConfig:
    base = PassConfig(
        name="t",
        models=[ModelEntry(label="base", spec="openai:base"), ModelEntry(label="tuned", spec="openai:tuned")],
        judge="judge:x",
        repeats=2,
        sampling=Sampling(temperature=0.7, seed=1234, max_tokens=64),
        drift_every=0,
        pairwise=False,
    )
    return base.model_copy(update=changes)


def plan(cfg: PassConfig) -> Any:
    sha = load_template(POINTWISE).sha256
    return plan_pass(cfg, QUESTIONS, IDENTITIES, JUDGE, pointwise_template=sha, pairwise_template="p")


def test_verdict_zero_keeps_the_key_it_had_before_repeats_existed() -> None:
    for mode in ("shuffled", "seeded"):
        planned = plan(config(judge_repeats=3, judge_repeat_mode=mode))
        sha = load_template(POINTWISE).sha256
        for task in planned.all_generations():
            before = canonical_hash(
                {
                    "generation": task.key,
                    "judge": JUDGE,
                    "sampling": config().judge_sampling.model_dump(),
                    "template": sha,
                }
            )
            assert planned.judgement_keys[task.key] == before
            repeats = planned.judge_repeats[task.key]
            assert [r.repeat for r in repeats] == [1, 2]
            keys = {before, *(r.key for r in repeats)}
            assert len(keys) == 3  # each repeat its own content key


def test_modes_give_their_own_keys_and_shuffled_keeps_the_gate_in_place() -> None:
    shuffled, seeded = plan(config(judge_repeats=2)), plan(config(judge_repeats=2, judge_repeat_mode="seeded"))
    task = shuffled.all_generations()[0]
    assert shuffled.judge_repeats[task.key][0].key != seeded.judge_repeats[task.key][0].key
    assert seeded.judge_repeats[task.key][0].seed_offset == 1
    assert seeded.judge_repeats[task.key][0].component_order is None
    orders = {tuple(shuffled_components(QUESTIONS[0], f"g{n}", j)) for n in range(20) for j in (1, 2)}
    assert orders == {("C1", "C3", "C2")}  # the gate C1 stays first; never the rubric's own order
    four = QUESTIONS[0].model_copy(
        update={
            "components": [
                *QUESTIONS[0].components,
                *(c.model_copy(update={"id": f"X{c.id}"}) for c in QUESTIONS[0].components[1:]),
            ]
        }
    )
    drawn = {tuple(shuffled_components(four, f"g{n}", 1)) for n in range(60)}
    assert len(drawn) > 5 and ("C1", "C2", "C3", "XC2", "XC3") not in drawn
    assert all(order[0] == "C1" for order in drawn)
    assert plan(config()).judge_repeats == {}


def test_a_config_without_repeats_is_found_as_the_same_pass() -> None:
    dump = config().identity_dump()
    assert "judge_repeats" not in dump and "judge_repeat_mode" not in dump
    assert config(judge_repeats=2).identity_dump()["judge_repeats"] == 2


@pytest.mark.parametrize("bad", [0, -1, 1.5, "3", True])
def test_bad_judge_repeats_are_one_line_user_errors(bad: Any) -> None:
    with pytest.raises(UserError, match="judge repeats must be a whole number of at least 1"):
        config().model_validate({**config().model_dump(), "judge_repeats": bad})


class NoisyJudge:
    """A judge whose award for C2 depends on the seed and on where C2 is shown."""

    def __init__(self) -> None:
        self.calls: list[CompletionRequest] = []

    def reply(self, request: CompletionRequest) -> str:
        self.calls.append(request)
        content = request.messages[1].content
        q = next(q for q in QUESTIONS if f"QUESTION {q.id}:" in content)
        c2_first = content.index("  C2 [") < content.index("  C3 [")
        rng = random.Random(f"{answer_of(request)}|{request.sampling.seed}|{c2_first}")
        return verdict_json(q, True, {"C2": rng.randint(0, 3), "C3": 1})

    def open(self, spec: str) -> ScriptedBackend:
        if spec.startswith("judge"):
            return ScriptedBackend(self.reply, spec=spec)
        return ScriptedBackend(lambda r: CompletionResult(text=f"{spec} says {r.sampling.seed}"), spec=spec)


@pytest.fixture()
def engine(tmp_path: Path):  # type: ignore[no-untyped-def]
    project = create_project(tmp_path / "p")
    yield project.engine
    project.close()


@pytest.fixture(autouse=True)
def identities(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("gtreview.runs.execute.spec_identity", lambda spec: {"spec": spec})


def test_repeats_are_stored_a_rerun_costs_nothing_and_raising_j_asks_only_the_new(engine) -> None:  # type: ignore[no-untyped-def]
    judge = NoisyJudge()
    one = run_pass(engine, config(), QUESTIONS, rubric_hash="r", open_backend=judge.open)
    assert len(judge.calls) == 8  # 2 models x 2 questions x 2 answers, one verdict each

    judge = NoisyJudge()
    events: list[PassEvent] = []
    three = run_pass(
        engine, config(judge_repeats=3), QUESTIONS, rubric_hash="r", open_backend=judge.open, progress=events.append
    )
    assert len(judge.calls) == 16  # only repeats 1 and 2 of each of the 8 answers
    assert {e.total for e in events if e.phase == "judge"} == {16}  # progress counts every verdict
    assert three.judged == 16
    with db.reading(engine) as session:
        rows = runs_repo.run_judgements(session, three.run_id)
    assert len(rows) == 24
    repeats = [json.loads(r.record_json).get("judge_repeat", 0) for r in rows]
    assert sorted(repeats) == [0] * 8 + [1] * 8 + [2] * 8
    with db.reading(engine) as session:
        first = {r.key for r in runs_repo.run_judgements(session, one.run_id)}
    assert first <= {r.key for r in rows}  # verdict 0 reused, not asked again

    # Shuffled repeats show C2 and C3 in the order the plan says; the seed stays the judge's.
    assert {c.sampling.seed for c in judge.calls} == {0}
    shown = {c.messages[1].content.index("  C2 [") < c.messages[1].content.index("  C3 [") for c in judge.calls}
    assert shown == {False}  # with two scored components, a repeat always shows them swapped
    orders = {r.key: json.loads(r.record_json).get("component_order") for r in rows}
    assert all(orders[r.key] is not None and orders[r.key][0] == "C1" for r in rows if r.key not in first)
    again = NoisyJudge()
    rerun = run_pass(engine, config(judge_repeats=3), QUESTIONS, rubric_hash="r", open_backend=again.open)
    assert (rerun.run_id, len(again.calls), rerun.model_calls) == (three.run_id, 0, 0)


def test_seeded_repeats_ask_the_judge_with_seed_plus_j(engine) -> None:  # type: ignore[no-untyped-def]
    judge = NoisyJudge()
    run_pass(
        engine,
        config(repeats=1, judge_repeats=3, judge_repeat_mode="seeded"),
        QUESTIONS,
        rubric_hash="r",
        open_backend=judge.open,
    )
    seeds = sorted(c.sampling.seed for c in judge.calls)
    assert seeds == [0] * 4 + [1] * 4 + [2] * 4
    assert all(c.messages[1].content.index("  C2 [") < c.messages[1].content.index("  C3 [") for c in judge.calls)
