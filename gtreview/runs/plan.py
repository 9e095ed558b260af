"""Planning a benchmark pass: which generations, judgements and pairs it consists of.

Every unit of work has a content key: the sha256 of everything that determines its
result (question and rubric version, model file and adapter, sampling, sample index,
prompt template). A pass that is run again finds its finished keys in the project and
does only what is missing, so a killed pass resumes and a finished one costs nothing.
"""

from __future__ import annotations

import random
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator

from gtreview.core.errors import UserError
from gtreview.core.jsonmodel import canonical_hash
from gtreview.core.redaction import redact
from gtreview.core.rubric import Question
from gtreview.inference.backend import ChatMessage, Sampling
from gtreview.judging.prompts import load_template
from gtreview.store.runs_repo import PlannedRecord, RecordKind

ANSWER_TEMPLATE = "answer_v1"
JudgeRepeatMode = Literal["shuffled", "seeded"]


class JudgeRepeatsError(UserError):
    """A number of judge repeats that is not a whole number of at least 1."""


class ModelEntry(BaseModel):
    label: str
    spec: str


class PassConfig(BaseModel):
    """What the analyst asked for; stored with the run."""

    name: str
    models: list[ModelEntry]  # the first is the base the others are compared with
    judge: str
    repeats: int = 1
    sampling: Sampling = Field(
        default_factory=lambda: Sampling(temperature=0.7, top_p=0.95, seed=1234, max_tokens=1024)
    )
    judge_sampling: Sampling = Field(default_factory=lambda: Sampling(temperature=0.0, seed=0, max_tokens=1024))
    pairwise: bool = True
    drift_every: int = 50
    generation_retries: int = 3
    # J verdicts per answer: verdict 0 is the score of record, 1..J-1 measure the judge.
    judge_repeats: int = 1
    # "shuffled": a repeat shows the rubric's scored components in another order (a
    # temperature-0 judge given a new seed would only say the same again); "seeded":
    # the judge's sampling seed + j.
    judge_repeat_mode: JudgeRepeatMode = "shuffled"

    @field_validator("judge_repeats", mode="before")
    @classmethod
    def _at_least_one_verdict(cls, value: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise JudgeRepeatsError(f"judge repeats must be a whole number of at least 1, not {value!r}")
        return value

    @property
    def base(self) -> ModelEntry:
        return self.models[0]

    def identity_dump(self) -> dict[str, Any]:
        """This config as its run is found again: the judge-repeat fields only when they are
        not their defaults, so a pass configured before they existed is still the same pass."""
        dump = self.model_dump(mode="json")
        if self.judge_repeats == 1:
            dump.pop("judge_repeats")
            dump.pop("judge_repeat_mode")
        return dump

    def without_credentials(self) -> PassConfig:
        """This config as it is stored and hashed: every spec with its URL password (or
        any other credential) masked. The config itself keeps them, to open the models."""
        return self.model_copy(
            update={
                "models": [m.model_copy(update={"spec": redact(m.spec)}) for m in self.models],
                "judge": redact(self.judge),
            }
        )


class GenerationTask(BaseModel):
    key: str
    model_label: str
    question: Question
    sample_index: int
    messages: list[ChatMessage]
    sampling: Sampling


def answer_messages(question: Question) -> list[ChatMessage]:
    template = load_template(ANSWER_TEMPLATE)
    return [
        ChatMessage(role="system", content=template.text),
        ChatMessage(role="user", content=question.question or ""),
    ]


def question_identity(question: Question) -> str:
    """The question and its rubric as they are now: any edit gives a new identity."""
    return canonical_hash(question.to_json_dict())


def generation_key(question: Question, model_identity: dict[str, Any], sampling: Sampling, sample_index: int) -> str:
    return canonical_hash(
        {
            "question": question_identity(question),
            "model": model_identity,
            "sampling": sampling.model_dump(),
            "sample": sample_index,
            "template": load_template(ANSWER_TEMPLATE).sha256,
        }
    )


def judgement_key(generation: str, judge_identity: dict[str, Any], sampling: Sampling, template_sha: str) -> str:
    return canonical_hash(
        {"generation": generation, "judge": judge_identity, "sampling": sampling.model_dump(), "template": template_sha}
    )


def judge_repeat_key(
    generation: str,
    judge_identity: dict[str, Any],
    sampling: Sampling,
    template_sha: str,
    *,
    repeat: int,
    mode: JudgeRepeatMode,
    component_order: list[str] | None,
) -> str:
    """Repeat j >= 1 of a judgement: the key of verdict 0 plus what makes this one differ
    (its index, the mode, and the component order the judge was shown)."""
    return canonical_hash(
        {
            "generation": generation,
            "judge": judge_identity,
            "sampling": sampling.model_dump(),
            "template": template_sha,
            "repeat": repeat,
            "repeat_mode": mode,
            "component_order": component_order,
        }
    )


def shuffled_components(question: Question, generation: str, repeat: int) -> list[str]:
    """The component ids in the order repeat ``repeat`` shows them: the scored components
    permuted by a seed derived from the answer and the repeat, each gate kept in its place,
    never the rubric's own order when there are two or more to reorder (a temperature-0
    judge shown the same prompt again says the same again, which measures nothing)."""
    ids = [c.id for c in question.components]
    scored = [c.id for c in question.components if not c.is_gate]
    seed = int(canonical_hash({"generation": generation, "repeat": repeat})[:16], 16)
    drawn = random.Random(seed).sample(scored, len(scored))
    if drawn == scored and len(scored) > 1:  # the rubric's own order would only repeat verdict 0
        drawn = drawn[1:] + drawn[:1]
    permuted = iter(drawn)
    gates = {c.id for c in question.components if c.is_gate}
    return [cid if cid in gates else next(permuted) for cid in ids]


def pair_key(
    generation_a: str, generation_b: str, judge_identity: dict[str, Any], sampling: Sampling, template_sha: str
) -> str:
    return canonical_hash(
        {
            "a": generation_a,
            "b": generation_b,
            "judge": judge_identity,
            "sampling": sampling.model_dump(),
            "template": template_sha,
        }
    )


def model_identity(describe: dict[str, Any]) -> dict[str, Any]:
    """What identifies a model's outputs: file hashes for local models, server and name for HTTP ones."""
    keys = ("model_sha256", "lora_sha256", "lora_scale", "model", "base_url", "backend", "kind")
    identity = {k: describe[k] for k in keys if k in describe and describe[k] is not None}
    return identity or {"spec": describe.get("spec")}


def plan_generations(
    questions: list[Question], label: str, identity: dict[str, Any], repeats: int, sampling: Sampling
) -> list[GenerationTask]:
    """K samples per question, each with its own seed so the pass is reproducible."""
    tasks = []
    for question in questions:
        messages = answer_messages(question)
        for sample in range(repeats):
            sample_sampling = sampling.model_copy(update={"seed": sampling.seed + sample})
            tasks.append(
                GenerationTask(
                    key=generation_key(question, identity, sampling, sample),
                    model_label=label,
                    question=question,
                    sample_index=sample,
                    messages=messages,
                    sampling=sample_sampling,
                )
            )
    return tasks


class PairPlan(BaseModel):
    key: str
    finetune: GenerationTask
    base: GenerationTask


class JudgeRepeat(BaseModel):
    """One more verdict on an answer, j >= 1: what the judge is shown differently."""

    key: str
    repeat: int
    component_order: list[str] | None = None  # shuffled mode: the order the judge sees
    seed_offset: int = 0  # seeded mode: added to the judge's sampling seed


class PassPlan(BaseModel):
    """Every record a pass consists of, by key; recomputed identically by the results loader."""

    generations: dict[str, list[GenerationTask]]
    judgement_keys: dict[str, str]  # generation key -> judgement key (verdict 0, the score of record)
    pairs: list[PairPlan]
    judge_repeats: dict[str, list[JudgeRepeat]] = Field(default_factory=dict)  # generation key -> verdicts 1..J-1

    def all_generations(self) -> list[GenerationTask]:
        return [task for tasks in self.generations.values() for task in tasks]

    def all_judgement_keys(self) -> list[str]:
        """Every verdict the pass asks for, repeats included."""
        repeats = [r.key for rs in self.judge_repeats.values() for r in rs]
        return [*self.judgement_keys.values(), *repeats]

    def planned_records(self) -> list[PlannedRecord]:
        """Every record of the plan with its place in it: what a run's links carry."""
        records = []
        for position, task in enumerate(self.all_generations()):
            where = {"model": task.model_label, "qid": task.question.id, "sample_index": task.sample_index}
            records.append(PlannedRecord(kind=RecordKind.GENERATION, key=task.key, position=position, **where))
            records.append(
                PlannedRecord(
                    kind=RecordKind.JUDGEMENT,
                    key=self.judgement_keys[task.key],
                    position=position,
                    judge_repeat=0,
                    **where,
                )
            )
            records.extend(
                PlannedRecord(kind=RecordKind.JUDGEMENT, key=r.key, position=position, judge_repeat=r.repeat, **where)
                for r in self.judge_repeats.get(task.key, [])
            )
        records.extend(
            PlannedRecord(
                kind=RecordKind.PAIR,
                key=pair.key,
                model=pair.finetune.model_label,
                qid=pair.finetune.question.id,
                sample_index=pair.finetune.sample_index,
                base_model=pair.base.model_label,
                position=position,
            )
            for position, pair in enumerate(self.pairs)
        )
        return records


def plan_judge_repeats(
    config: PassConfig, task: GenerationTask, judge_identity: dict[str, Any], template_sha: str
) -> list[JudgeRepeat]:
    repeats = []
    for j in range(1, config.judge_repeats):
        shuffled = config.judge_repeat_mode == "shuffled"
        order = shuffled_components(task.question, task.key, j) if shuffled else None
        key = judge_repeat_key(
            task.key,
            judge_identity,
            config.judge_sampling,
            template_sha,
            repeat=j,
            mode=config.judge_repeat_mode,
            component_order=order,
        )
        repeats.append(JudgeRepeat(key=key, repeat=j, component_order=order, seed_offset=0 if shuffled else j))
    return repeats


def plan_pass(
    config: PassConfig,
    questions: list[Question],
    identities: dict[str, dict[str, Any]],
    judge_identity: dict[str, Any],
    *,
    pointwise_template: str,
    pairwise_template: str,
) -> PassPlan:
    generations = {
        m.label: plan_generations(questions, m.label, identities[m.label], config.repeats, config.sampling)
        for m in config.models
    }
    judgement_keys = {
        task.key: judgement_key(task.key, judge_identity, config.judge_sampling, pointwise_template)
        for tasks in generations.values()
        for task in tasks
    }
    judge_repeats = {
        task.key: plan_judge_repeats(config, task, judge_identity, pointwise_template)
        for tasks in generations.values()
        for task in tasks
        if config.judge_repeats > 1
    }
    pairs: list[PairPlan] = []
    if config.pairwise and len(config.models) > 1:
        base = {(t.question.id, t.sample_index): t for t in generations[config.base.label]}
        for model in config.models[1:]:
            for task in generations[model.label]:
                other = base[(task.question.id, task.sample_index)]
                key = pair_key(task.key, other.key, judge_identity, config.judge_sampling, pairwise_template)
                pairs.append(PairPlan(key=key, finetune=task, base=other))
    return PassPlan(generations=generations, judgement_keys=judgement_keys, pairs=pairs, judge_repeats=judge_repeats)
