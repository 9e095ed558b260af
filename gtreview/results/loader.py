"""A pass's results, gathered for the statistics, the results view and the PDF report.

Loaded from the run's links, each of which carries its record's place in the pass's
plan (model, question, sample, verdict, pair), written when the pass linked its plan,
so a pass that reused answers from an earlier one is still complete, a planned record
not stored reads as missing, and later edits of the set do not change what a finished
pass reports. The loader never re-plans.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from enum import StrEnum
from typing import Any

import numpy as np
from pydantic import BaseModel, Field
from sqlalchemy import Engine
from sqlmodel import col, select

from gtreview.core.grading import ComponentKind, component_kind, settle_awards
from gtreview.core.numbering import natural_key
from gtreview.core.rubric import Question, VariantRule
from gtreview.results.documents import project_question_documents
from gtreview.results.legacy_imports import file_contract
from gtreview.runs.record import ModelEntry, PassConfig, RunConfig, RunRecordError, RunSource, RunStatus
from gtreview.runs.statuses import GenerationStatus, JudgementStatus, RecordKind
from gtreview.store import db, runs_repo, sets, tables
from gtreview.store.adjudication_repo import awards_of, effective

KINDS = (ComponentKind.GATE, ComponentKind.BINARY, ComponentKind.REASONING)
PAIR_SCORES = {"A>>B": 2.0, "A>B": 1.0, "A=B": 0.0, "B>A": -1.0, "B>>A": -2.0}


class SampleStatus(StrEnum):
    SCORED = "scored"
    ERROR = "error"  # generation failed after its retries: counts as 0 and is counted apart
    UNSCORED = "unscored"  # the judge broke its contract: left out of means, counted apart
    MISSING = "missing"  # no answer stored (a pass that was stopped before it)
    UNJUDGED = "unjudged"  # an answer is stored but no verdict (stopped before judging; an import without scores)


class SampleResult(BaseModel):
    model: str
    qid: str
    sample_index: int
    status: SampleStatus
    generated: bool = False  # a generation (answer or recorded failure) is stored
    judged: bool = False  # a judgement (scored or unscored) is stored
    generation_key: str = ""
    judgement_key: str = ""
    adjudicated: bool = False  # an expert's override replaced the judge's score
    judge_total: float | None = None  # the judge's own total, kept beside an override
    judge_gate_passed: bool | None = None  # the judge's own gate and awards, kept beside an override
    judge_awards: dict[str, int] = Field(default_factory=dict)
    adjudication_required: bool = False
    adjudication_note: str = ""  # why the judge asked for an expert
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


class RepeatVerdict(BaseModel):
    """A judge repeat (verdict j >= 1) on one answer: it measures the judge, it scores nothing."""

    model: str
    qid: str
    sample_index: int
    repeat: int
    total: float | None = None  # None: unscored (the judge broke its contract)
    gate_passed: bool | None = None


class RunResults(BaseModel):
    """A run's results over its ORIGINAL questions, which every figure is computed from;
    the paraphrased variants a pass also ran (``Question.paraphrase_of``) are kept apart in
    ``paraphrases`` with their samples and pairs, so adding them changes no figure."""

    run_id: int
    name: str
    source: RunSource = RunSource.PASS
    status: RunStatus
    live: bool = False  # running, and a live process holds it (see ``shown_status``)
    set_id: int | None = None
    config: PassConfig
    questions: list[Question]
    global_variants: list[VariantRule] = Field(default_factory=list)
    samples: list[SampleResult]
    pairs: list[PairResult]
    models_described: dict[str, Any] = Field(default_factory=dict)
    identities: dict[str, Any] = Field(default_factory=dict)  # model label -> file identity the pass recorded
    judge_identity: dict[str, Any] = Field(default_factory=dict)
    templates: dict[str, str] = Field(default_factory=dict)
    rubric_hash: str = ""
    probes: dict[str, Any] | None = None  # familiarity and recall reports kept with the pass
    # question id -> the corpus document its primary evidence cites (the design's clusters);
    # a question missing here cites no document of the corpus and is a cluster of its own
    documents: dict[str, str] = Field(default_factory=dict)
    # the paraphrased variants (each names the question it rewords), their answers and pairs
    paraphrases: list[Question] = Field(default_factory=list)
    paraphrase_samples: list[SampleResult] = Field(default_factory=list)
    paraphrase_pairs: list[PairResult] = Field(default_factory=list)

    def paraphrase_results(self) -> RunResults:
        """The paraphrased variants as a run of their own, so their score, gate and kind
        matrices come from the same code as the originals'."""
        return self.model_copy(
            update={
                "questions": self.paraphrases,
                "samples": self.paraphrase_samples,
                "pairs": self.paraphrase_pairs,
                "paraphrases": [],
                "paraphrase_samples": [],
                "paraphrase_pairs": [],
            }
        )

    # An expert settles a paraphrase's answer like any other: the adjudication queue and its
    # look-ups read every question, sample and pair; the figures read the originals'.
    def every_question(self) -> list[Question]:
        return [*self.questions, *self.paraphrases]

    def every_sample(self) -> list[SampleResult]:
        return [*self.samples, *self.paraphrase_samples]

    def every_pair(self) -> list[PairResult]:
        return [*self.pairs, *self.paraphrase_pairs]

    # stored judge repeats (j >= 1) of every question, paraphrases' too: the cubes read the questions asked
    repeat_verdicts: list[RepeatVerdict] = Field(default_factory=list)

    @property
    def familiarity_probes(self) -> bool:
        """Whether the familiarity and recall probes are kept with the pass (a membership
        test may be kept without them)."""
        return bool(self.probes) and "familiarity" in (self.probes or {}) and "recall" in (self.probes or {})

    @property
    def models(self) -> list[str]:
        return [m.label for m in self.config.models]

    @property
    def interrupted(self) -> bool:
        """Stored as running, but no live process holds it (killed, crashed)."""
        return self.status is RunStatus.RUNNING and not self.live

    @property
    def shown_status(self) -> str:
        """The status as the runs list shows it (one function for every view)."""
        return runs_repo.displayed_status(self.status, self.live)

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

    @property
    def judge_repeats(self) -> int:
        """J, the verdicts asked per answer (1: the judge's noise is not measured)."""
        return self.config.judge_repeats

    def _cube(
        self, model: str, first: Callable[[SampleResult], float | None], repeat: Callable[[RepeatVerdict], float | None]
    ) -> np.ndarray:
        """(questions, repeats, judge repeats), the judge's own verdicts (an expert's override
        is the score of record, not a verdict of the judge's). A generation error is 0 at
        verdict 0, as in score_matrix, and NaN after: there was no answer to judge again. So
        is an empty answer: the program fails it, the judge is never asked. Unscored,
        missing and unjudged are NaN, as in score_matrix."""
        index = self._index()
        out = np.full((len(self.questions), self.repeats, self.judge_repeats), np.nan)
        rows = {q.id: qi for qi, q in enumerate(self.questions)}
        for qi, question in enumerate(self.questions):
            for k in range(self.repeats):
                sample = index.get((model, question.id, k))
                if sample is None:
                    continue
                if sample.status is SampleStatus.ERROR:
                    out[qi, k, 0] = 0.0
                elif sample.judged and (number := first(sample)) is not None:
                    out[qi, k, 0] = number
        answered = {(s.qid, s.sample_index) for s in self.samples if s.model == model and s.answer_clean.strip()}
        for verdict in self.repeat_verdicts:
            where = (verdict.qid, verdict.sample_index)
            if verdict.model != model or where not in answered or verdict.repeat >= self.judge_repeats:
                continue
            if verdict.sample_index < self.repeats and (number := repeat(verdict)) is not None:
                out[rows[verdict.qid], verdict.sample_index, verdict.repeat] = number
        return out

    def verdict_cube(self, model: str) -> np.ndarray:
        """(questions, repeats, J): the judge's totals, verdict 0 first (see ``_cube``)."""
        return self._cube(
            model,
            lambda s: s.judge_total if s.adjudicated else s.total,
            lambda v: v.total,
        )

    def gate_cube(self, model: str) -> np.ndarray:
        """(questions, repeats, J): the judge's gate, 1 passed, 0 failed, NaN unknown."""

        def gate(passed: bool | None) -> float | None:
            return None if passed is None else float(passed)

        return self._cube(
            model,
            lambda s: gate(s.judge_gate_passed if s.adjudicated else s.gate_passed),
            lambda v: gate(v.gate_passed) if v.total is not None else None,
        )

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
                if sample is None or sample.status in (
                    SampleStatus.UNSCORED,
                    SampleStatus.MISSING,
                    SampleStatus.UNJUDGED,
                ):
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

    def record_counts(self) -> dict[str, int]:
        """How many stored records the run uses, as the Runs view lists them (the
        paraphrases' records too: the run stored them)."""
        samples, pairs = self.every_sample(), self.every_pair()
        return {
            "generations": sum(s.generated for s in samples),
            "judgements": sum(s.judged for s in samples) + len(self.repeat_verdicts),
            "pairs": sum(p.label is not None for p in pairs),
        }

    def pairs_of(self, finetune: str) -> list[PairResult]:
        return [p for p in self.pairs if p.finetune == finetune]


def load_run_results(engine: Engine, run_id: int) -> RunResults:
    """THE results of a run, settled scores applied: every figure anywhere is computed from this.

    A pass's records are found by its links, which carry their places in its plan, so a
    pass that reused or extended an earlier one is complete and later edits of the set
    change nothing; an imported run's records are the ones linked to it.
    """
    row = runs_repo.get_run(engine, run_id)
    if row is None:
        raise RunRecordError(f"the project has no run {run_id}")
    stored = RunConfig.model_validate(row.config)
    repeats: list[RepeatVerdict] = []
    if stored.has_plan:
        samples, pairs, config, repeats = _planned(engine, run_id, stored)
    elif stored.harness is not None:
        samples, pairs, config = _imported(engine, run_id, row.name, stored)
    else:
        raise RunRecordError(f"run {run_id} has neither a pass plan nor imported files to report on")
    questions = stored.question_models()
    if not questions and row.set_id is not None:  # an import made before questions were kept with it
        with db.reading(engine) as session:
            questions = sets.export_rubric(session, row.set_id).questions
    known = {q.id for q in questions}
    questions += [Question(id=qid) for qid in dict.fromkeys(s.qid for s in samples) if qid not in known]
    _apply_adjudications(samples, pairs, effective(engine, run_id), {q.id: q for q in questions})
    paraphrases = [q for q in questions if q.paraphrase_of is not None]
    reworded = {q.id for q in paraphrases}
    questions = [q for q in questions if q.id not in reworded]
    return RunResults(
        run_id=run_id,
        name=row.name,
        source=row.source,
        status=row.status,
        live=row.live,
        set_id=row.set_id,
        config=config,
        questions=questions,
        global_variants=stored.variant_models(),
        samples=[s for s in samples if s.qid not in reworded],
        pairs=[p for p in pairs if p.qid not in reworded],
        models_described=stored.models,
        identities=stored.identities,
        judge_identity=stored.judge_identity,
        templates=stored.templates.model_dump(),
        rubric_hash=row.rubric_hash,
        probes=stored.probes,
        documents=project_question_documents(engine, questions),
        paraphrases=paraphrases,
        paraphrase_samples=[s for s in samples if s.qid in reworded],
        paraphrase_pairs=[p for p in pairs if p.qid in reworded],
        repeat_verdicts=repeats,
    )


def _planned(
    engine: Engine, run_id: int, stored: RunConfig
) -> tuple[list[SampleResult], list[PairResult], PassConfig, list[RepeatVerdict]]:
    """A pass's records as its links place them in its plan, a planned one not stored as missing."""
    assert stored.pass_config is not None
    planned = runs_repo.planned_records(engine, run_id)
    of_kind = {kind: [r for r in planned if r.kind == kind] for kind in RecordKind}
    generations = {
        g.key: g for g in runs_repo.generations_by_keys(engine, [r.key for r in of_kind[RecordKind.GENERATION]])
    }
    judgement_links = of_kind[RecordKind.JUDGEMENT]
    judgements = {j.key: j for j in _by_keys(engine, tables.Judgement, [r.key for r in judgement_links])}
    pair_links = of_kind[RecordKind.PAIR]
    pair_rows = {p.key: p for p in _by_keys(engine, tables.PairJudgement, [r.key for r in pair_links])}
    verdict_of = {(r.model, r.qid, r.sample_index): r.key for r in judgement_links if r.judge_repeat == 0}
    samples = []
    for link in of_kind[RecordKind.GENERATION]:
        judgement_key = verdict_of.get((link.model, link.qid, link.sample_index), "")
        sample = _sample(
            link.model, link.qid, link.sample_index, generations.get(link.key), judgements.get(judgement_key)
        )
        sample.generation_key, sample.judgement_key = link.key, judgement_key
        samples.append(sample)
    pairs = [
        _pair(link.key, link.qid, link.sample_index, link.model, link.base_model or "", pair_rows.get(link.key))
        for link in pair_links
    ]
    return samples, pairs, stored.pass_config, _repeat_verdicts(judgement_links, judgements)


def _repeat_verdicts(links: list[runs_repo.PlannedRecord], judgements: dict[str, Any]) -> list[RepeatVerdict]:
    verdicts = []
    for link in links:
        row = judgements.get(link.key)
        if not link.judge_repeat or row is None:
            continue
        scored = row.status == JudgementStatus.SCORED and row.total is not None
        verdicts.append(
            RepeatVerdict(
                model=link.model,
                qid=link.qid,
                sample_index=link.sample_index,
                repeat=link.judge_repeat,
                total=float(row.total) if scored else None,
                gate_passed=row.gate_passed if scored else None,
            )
        )
    return verdicts


def _imported(
    engine: Engine, run_id: int, name: str, stored: RunConfig
) -> tuple[list[SampleResult], list[PairResult], PassConfig]:
    """An imported run's linked records, matched by model, question and sample."""
    assert stored.harness is not None
    generations = {(g.model_label, g.qid, g.sample_index): g for g in runs_repo.run_generations(engine, run_id)}
    judgements = {(j.model_label, j.qid, j.sample_index): j for j in runs_repo.run_judgements(engine, run_id)}
    pair_rows = runs_repo.run_pairs(engine, run_id)
    base = stored.harness.base_label
    labels = list(
        dict.fromkeys([base, *stored.harness.labels, *(k[0] for k in generations), *(k[0] for k in judgements)])
    )
    used = {k[0] for k in [*generations, *judgements]} | {p.model_a for p in pair_rows} | {p.model_b for p in pair_rows}
    labels = [label for label in labels if label in used] or labels
    questions = {q.id: q for q in stored.question_models()}
    samples = []
    for key in sorted(set(generations) | set(judgements), key=lambda k: (labels.index(k[0]), natural_key(k[1]), k[2])):
        generation, judgement = generations.get(key), judgements.get(key)
        sample = _sample(*key, generation, judgement, imported=True, question=questions.get(key[1]))
        sample.generation_key = generation.key if generation is not None else ""
        sample.judgement_key = judgement.key if judgement is not None else ""
        samples.append(sample)
    pairs = [_imported_pair(p, labels[0]) for p in pair_rows]
    judge = next((j.judge for j in judgements.values()), "harness")
    repeats = 1 + max((k[2] for k in [*generations, *judgements]), default=0)
    config = PassConfig(
        name=name,
        models=[ModelEntry(label=label, spec="harness") for label in labels],
        judge=judge,
        repeats=repeats,
        pairwise=bool(pair_rows),
    )
    return samples, pairs, config


_TURNED = {"A>B": "B>A", "A>>B": "B>>A", "B>A": "A>B", "B>>A": "A>>B"}


def _imported_pair(row: Any, base: str) -> PairResult:
    """A harness pair as fine-tune (A) against base (B): the harness puts the base first, so
    such a pair is turned round (its label mirrored, its average negated)."""
    if row.model_a != base:
        return _pair(row.key, row.qid, row.sample_index, row.model_a, row.model_b, row)
    pair = _pair(row.key, row.qid, row.sample_index, row.model_b, row.model_a, row)
    pair.label = _TURNED.get(pair.label or "", pair.label)
    pair.average = None if pair.average is None else -pair.average
    return pair


def _pair(key: str, qid: str, sample_index: int, finetune: str, base: str, row: Any) -> PairResult:
    outcome = json.loads(row.outcome_json) if row is not None else {}
    return PairResult(
        key=key,
        qid=qid,
        sample_index=sample_index,
        finetune=finetune,
        base=base,
        label=row.label if row else None,
        average=row.average if row else None,
        inconsistent=row.inconsistent if row else False,
        reason_normal=str(outcome.get("reason_normal", "") or ""),
        reason_swapped=str(outcome.get("reason_swapped", "") or ""),
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
        sample.judge_total, sample.judge_gate_passed = sample.total, sample.gate_passed
        sample.judge_awards = sample.awards
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
    with db.reading(engine) as session:
        return [
            row
            for start in range(0, len(keys), 500)
            for row in session.exec(select(model).where(col(model.key).in_(keys[start : start + 500])))
        ]


def _sample(
    model: str,
    qid: str,
    sample_index: int,
    generation: Any,
    judgement: Any,
    *,
    imported: bool = False,
    question: Question | None = None,
) -> SampleResult:
    base = SampleResult(model=model, qid=qid, sample_index=sample_index, status=SampleStatus.MISSING)
    if generation is None and not (imported and judgement is not None):
        return base
    base.generated, base.judged = generation is not None, judgement is not None
    if generation is not None:
        base.answer_raw, base.answer_clean = generation.raw_text, generation.clean_text
        if generation.status != GenerationStatus.OK:
            base.status, base.error, base.total, base.gate_passed = SampleStatus.ERROR, generation.error, 0.0, False
            return base
    if judgement is None:
        base.status = SampleStatus.UNJUDGED
        return base
    payload = json.loads(judgement.record_json)
    contract = payload.get("contract")
    if contract is None and imported and judgement.status == JudgementStatus.SCORED and judgement.total is not None:
        contract = file_contract(payload, judgement, question)
    if judgement.status != JudgementStatus.SCORED or contract is None:
        base.status, base.unscored_reason = SampleStatus.UNSCORED, payload.get("unscored_reason", "")
        return base
    base.status = SampleStatus.SCORED
    base.total = float(contract["total"])
    base.gate_passed = contract["gate_passed"]
    base.gate_reason = contract.get("gate_reason", "")
    base.awards = {c["id"]: c["awarded"] for c in contract["components"]}
    base.adjudication_required = bool(contract.get("adjudication_required"))
    base.adjudication_note = str(contract.get("adjudication_note") or "")
    base.reasons = {c["id"]: c.get("reason", "") for c in contract["components"]}
    base.adjustments = payload.get("adjustments", [])
    return base
