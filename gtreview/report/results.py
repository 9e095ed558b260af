"""A pass's results, gathered for the statistics, the results view and the PDF report.

Loaded by re-planning the pass from what the run recorded (its questions, model and
judge identities, template hashes) and fetching every record by key, so a pass that
reused answers from an earlier one is still complete, and later edits of the set do
not change what a finished pass reports.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from enum import StrEnum
from typing import Any

import numpy as np
from pydantic import BaseModel, Field
from sqlalchemy import Engine
from sqlmodel import Session, col, select

from gtreview.core.grading import ComponentKind, component_kind, settle_awards
from gtreview.core.rubric import Question, VariantRule
from gtreview.runs.plan import PassConfig, plan_pass
from gtreview.store import runs_repo, tables
from gtreview.store.adjudication_repo import awards_of, effective

KINDS = (ComponentKind.GATE, ComponentKind.BINARY, ComponentKind.REASONING)
PAIR_SCORES = {"A>>B": 2.0, "A>B": 1.0, "A=B": 0.0, "B>A": -1.0, "B>>A": -2.0}


class SampleStatus(StrEnum):
    SCORED = "scored"
    ERROR = "error"  # generation failed after its retries: counts as 0 and is counted apart
    UNSCORED = "unscored"  # the judge broke its contract: left out of means, counted apart
    MISSING = "missing"  # not produced yet (a pass that was stopped)


class SampleResult(BaseModel):
    model: str
    qid: str
    sample_index: int
    status: SampleStatus
    generation_key: str = ""
    judgement_key: str = ""
    adjudicated: bool = False  # an expert's override replaced the judge's score
    judge_total: float | None = None  # the judge's own total, kept beside an override
    adjudication_required: bool = False
    total: float | None = None
    gate_passed: bool | None = None
    awards: dict[str, int] = Field(default_factory=dict)
    reasons: dict[str, str] = Field(default_factory=dict)
    gate_reason: str = ""
    adjustments: list[str] = Field(default_factory=list)
    answer_raw: str = ""
    answer_clean: str = ""
    error: str = ""
    unscored_reason: str = ""


class PairResult(BaseModel):
    key: str = ""
    adjudicated: bool = False
    judge_label: str | None = None
    judge_inconsistent: bool = False  # the judge's own order flip, kept beside an override
    qid: str
    sample_index: int
    finetune: str
    base: str
    label: str | None  # None: not judged yet
    average: float | None = None
    inconsistent: bool = False
    reason_normal: str = ""
    reason_swapped: str = ""


class RunResults(BaseModel):
    run_id: int
    name: str
    status: str
    config: PassConfig
    questions: list[Question]
    global_variants: list[VariantRule] = Field(default_factory=list)
    samples: list[SampleResult]
    pairs: list[PairResult]
    models_described: dict[str, Any] = Field(default_factory=dict)
    identities: dict[str, Any] = Field(default_factory=dict)
    templates: dict[str, str] = Field(default_factory=dict)
    rubric_hash: str = ""
    probes: dict[str, Any] | None = None  # familiarity and recall reports kept with the pass

    @property
    def models(self) -> list[str]:
        return [m.label for m in self.config.models]

    @property
    def base(self) -> str:
        return self.config.base.label

    @property
    def repeats(self) -> int:
        return self.config.repeats

    def _index(self) -> dict[tuple[str, str, int], SampleResult]:
        return {(s.model, s.qid, s.sample_index): s for s in self.samples}

    def _matrix(self, model: str, value: Callable[[SampleResult], float | None]) -> np.ndarray:
        """(questions, repeats): errors count as 0 (a failure), missing samples are NaN."""
        index = self._index()
        out = np.full((len(self.questions), self.repeats), np.nan)
        for qi, question in enumerate(self.questions):
            for k in range(self.repeats):
                sample = index.get((model, question.id, k))
                if sample is None:
                    continue
                if sample.status is SampleStatus.ERROR:
                    out[qi, k] = 0.0
                elif sample.status is SampleStatus.SCORED and (number := value(sample)) is not None:
                    out[qi, k] = number
        return out

    def score_matrix(self, model: str) -> np.ndarray:
        """(questions, repeats): totals; errors are 0; unscored and missing are NaN."""
        return self._matrix(model, lambda s: s.total)

    def gate_matrix(self, model: str) -> np.ndarray:
        """(questions, repeats): 1 gate passed, 0 failed (errors fail), NaN unknown."""
        return self._matrix(model, lambda s: None if s.gate_passed is None else float(s.gate_passed))

    def kind_share(self, model: str) -> np.ndarray:
        """(questions, repeats, 3): share of the gate, binary and reasoning points earned;
        NaN where a question has no component of that kind or the sample has no score."""
        index = self._index()
        out = np.full((len(self.questions), self.repeats, len(KINDS)), np.nan)
        for qi, question in enumerate(self.questions):
            maxima = {kind: 0 for kind in KINDS}
            kinds = {c.id: component_kind(question, c) for c in question.components}
            for component in question.components:
                maxima[kinds[component.id]] += int(component.points)
            for k in range(self.repeats):
                sample = index.get((model, question.id, k))
                if sample is None or sample.status in (SampleStatus.UNSCORED, SampleStatus.MISSING):
                    continue
                for ki, kind in enumerate(KINDS):
                    if maxima[kind] == 0:
                        continue
                    earned = sum(v for cid, v in sample.awards.items() if kinds.get(cid) is kind)
                    out[qi, k, ki] = earned / maxima[kind]
        return out

    def counts(self, model: str) -> dict[str, int]:
        statuses = [s.status for s in self.samples if s.model == model]
        counts = {status.value: statuses.count(status) for status in SampleStatus}
        counts["adjudicated"] = sum(1 for s in self.samples if s.model == model and s.adjudicated)
        return counts

    def pairs_of(self, finetune: str) -> list[PairResult]:
        return [p for p in self.pairs if p.finetune == finetune]


def load_run_results(engine: Engine, run_id: int) -> RunResults:
    with Session(engine) as session:
        run = session.get(tables.Run, run_id)
        if run is None:
            raise KeyError(f"no run {run_id}")
        stored: dict[str, Any] = json.loads(run.config_json)
    if "pass" not in stored or "questions" not in stored:
        raise ValueError(f"run {run_id} was imported from harness files; it has no pass plan to report on")
    config = PassConfig.model_validate(stored["pass"])
    questions = [Question.model_validate(q) for q in stored["questions"]]
    templates = stored.get("templates", {})
    plan = plan_pass(
        config,
        questions,
        stored["identities"],
        stored["judge_identity"],
        pointwise_template=templates.get("pointwise", ""),
        pairwise_template=templates.get("pairwise", ""),
    )
    generation_keys = [t.key for t in plan.all_generations()]
    generations = {g.key: g for g in runs_repo.generations_by_keys(engine, generation_keys)}
    judgements = {j.key: j for j in _by_keys(engine, tables.Judgement, list(plan.judgement_keys.values()))}
    pair_rows = {p.key: p for p in _by_keys(engine, tables.PairJudgement, [p.key for p in plan.pairs])}
    samples = []
    for task in plan.all_generations():
        judgement_key = plan.judgement_keys[task.key]
        sample = _sample(
            task.model_label,
            task.question.id,
            task.sample_index,
            generations.get(task.key),
            judgements.get(judgement_key),
        )
        sample.generation_key, sample.judgement_key = task.key, judgement_key
        samples.append(sample)
    pairs = []
    for item in plan.pairs:
        row = pair_rows.get(item.key)
        outcome = json.loads(row.outcome_json) if row is not None else {}
        pairs.append(
            PairResult(
                key=item.key,
                qid=item.finetune.question.id,
                sample_index=item.finetune.sample_index,
                finetune=item.finetune.model_label,
                base=item.base.model_label,
                label=row.label if row else None,
                average=row.average if row else None,
                inconsistent=row.inconsistent if row else False,
                reason_normal=outcome.get("reason_normal", ""),
                reason_swapped=outcome.get("reason_swapped", ""),
            )
        )
    _apply_adjudications(samples, pairs, effective(engine, run_id), {q.id: q for q in questions})
    return RunResults(
        run_id=run_id,
        name=run.name,
        status=run.status,
        config=config,
        questions=questions,
        global_variants=[VariantRule.model_validate(v) for v in stored.get("global_variants", [])],
        samples=samples,
        pairs=pairs,
        models_described=stored.get("models", {}),
        identities=stored.get("identities", {}),
        templates=templates,
        rubric_hash=run.rubric_hash,
        probes=stored.get("probes"),
    )


def _apply_adjudications(
    samples: list[SampleResult], pairs: list[PairResult], decisions: dict[str, Any], questions: dict[str, Question]
) -> None:
    """Every figure uses the expert's settled score where there is one; the judge's stays beside it."""
    for sample in samples:
        decision = decisions.get(sample.judgement_key)
        if (
            decision is None
            or decision.action != "override"
            or sample.status not in (SampleStatus.SCORED, SampleStatus.UNSCORED)
        ):
            continue
        awards, total = settle_awards(questions[sample.qid], bool(decision.gate_passed), awards_of(decision))
        sample.judge_total = sample.total
        sample.status, sample.adjudicated = SampleStatus.SCORED, True
        sample.gate_passed, sample.awards, sample.total = bool(decision.gate_passed), awards, float(total)
    for pair in pairs:
        decision = decisions.get(pair.key)
        if decision is None or decision.action != "override" or decision.label is None:
            continue
        pair.judge_label, pair.judge_inconsistent, pair.adjudicated = pair.label, pair.inconsistent, True
        pair.label = decision.label
        pair.average = PAIR_SCORES.get(decision.label)
        pair.inconsistent = False


def _by_keys(engine: Engine, model: Any, keys: list[str]) -> list[Any]:
    rows: list[Any] = []
    with Session(engine) as session:
        for start in range(0, len(keys), 500):
            rows.extend(session.exec(select(model).where(col(model.key).in_(keys[start : start + 500]))))
    return rows


def _sample(model: str, qid: str, sample_index: int, generation: Any, judgement: Any) -> SampleResult:
    base = SampleResult(model=model, qid=qid, sample_index=sample_index, status=SampleStatus.MISSING)
    if generation is None:
        return base
    base.answer_raw, base.answer_clean = generation.raw_text, generation.clean_text
    if generation.status != "ok":
        base.status, base.error, base.total, base.gate_passed = SampleStatus.ERROR, generation.error, 0.0, False
        return base
    if judgement is None:
        return base
    payload = json.loads(judgement.record_json)
    if judgement.status != "scored" or payload.get("contract") is None:
        base.status, base.unscored_reason = SampleStatus.UNSCORED, payload.get("unscored_reason", "")
        return base
    contract = payload["contract"]
    base.status = SampleStatus.SCORED
    base.total = float(contract["total"])
    base.gate_passed = contract["gate_passed"]
    base.gate_reason = contract.get("gate_reason", "")
    base.awards = {c["id"]: c["awarded"] for c in contract["components"]}
    base.adjudication_required = bool(contract.get("adjudication_required"))
    base.reasons = {c["id"]: c.get("reason", "") for c in contract["components"]}
    base.adjustments = payload.get("adjustments", [])
    return base
