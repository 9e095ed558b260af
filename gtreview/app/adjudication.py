"""The expert checks the judge: the adjudication queue, overrides with provenance,
blind human grading, and agreement between judge and expert.

Nothing the judge said is ever changed: an override is a new append-only record that
every figure uses until it is reverted, and the history shows each step.
"""

from __future__ import annotations

import json
import random
from enum import StrEnum

from pydantic import BaseModel
from sqlalchemy import Engine
from sqlmodel import Session

from gtreview.app.question_calibration import latest_calibrations
from gtreview.core.changes import OpChanges, OpResult
from gtreview.core.errors import UserError
from gtreview.core.grading import settle_awards
from gtreview.core.rubric import Question
from gtreview.core.stats import (
    ComponentAgreement,
    InterRater,
    KappaResult,
    QuestionDisagreement,
    TotalAgreement,
    cohens_kappa,
    component_agreement,
    inter_rater,
    most_disagreeing,
    total_agreement,
)
from gtreview.judging.marking import marking_block as marking_block  # re-exported: the marking block a grader reads
from gtreview.results.loader import PAIR_SCORES, PairResult, RunResults, SampleStatus, load_run_results
from gtreview.store import adjudication_repo, tables
from gtreview.store.db import reading, unit_of_work


class AdjudicationError(UserError, ValueError):
    """A decision that cannot be recorded (one line)."""


class QueueReason(StrEnum):
    FLAGGED = "flagged by the judge"
    UNSCORED = "unscored"
    PAIR_UNKNOWN = "pair unknown"
    PAIR_INCONSISTENT = "pair inconsistent"
    CALIBRATION_MISS = "calibration miss"
    CHOSEN = "chosen by the expert"  # not queued, settled by key (gtreview adjudicate)


class QueueItem(BaseModel):
    reason: QueueReason
    target: str  # judgement | pair | fixture
    key: str
    qid: str
    model: str
    sample_index: int
    settled: bool  # an expert decision is in force
    note: str = ""  # why it is queued, in the judge's words where it gave any


class HistoryStep(BaseModel):
    id: int
    at: str
    actor: str
    action: str
    detail: str
    reason: str


def adjudication_queue(engine: Engine, results: RunResults, *, set_id: int | None = None) -> list[QueueItem]:
    with reading(engine) as session:
        decisions = adjudication_repo.effective(session, results.run_id)
    items: list[QueueItem] = []
    for sample in results.every_sample():
        reason = None
        if sample.status is SampleStatus.UNSCORED or (sample.adjudicated and sample.judge_total is None):
            reason = QueueReason.UNSCORED
        elif sample.adjudication_required:
            reason = QueueReason.FLAGGED
        if reason is not None:
            items.append(
                QueueItem(
                    reason=reason,
                    target="judgement",
                    key=sample.judgement_key,
                    qid=sample.qid,
                    model=sample.model,
                    sample_index=sample.sample_index,
                    settled=sample.judgement_key in decisions,
                    note=sample.adjudication_note if reason is QueueReason.FLAGGED else sample.unscored_reason,
                )
            )
    for pair in results.every_pair():
        label = pair.judge_label if pair.adjudicated else pair.label
        reason = (
            QueueReason.PAIR_UNKNOWN
            if label == "unknown"
            else (QueueReason.PAIR_INCONSISTENT if _was_inconsistent(pair) else None)
        )
        if reason is not None:
            items.append(
                QueueItem(
                    reason=reason,
                    target="pair",
                    key=pair.key,
                    qid=pair.qid,
                    model=pair.finetune,
                    sample_index=pair.sample_index,
                    settled=pair.key in decisions,
                    note="verdict flipped when the answers were swapped"
                    if reason is QueueReason.PAIR_INCONSISTENT
                    else "the judge could not decide",
                )
            )
    if set_id is not None:
        calibrations = latest_calibrations(engine, set_id)  # one query, not one per question
        for question in results.every_question():
            calibrated = calibrations.get(question.id)
            if calibrated is None:
                continue
            for check in calibrated[1].fixtures:
                if not check.reproduced:
                    key = f"fixture:{question.id}:{check.fixture_id}"
                    items.append(
                        QueueItem(
                            reason=QueueReason.CALIBRATION_MISS,
                            target="fixture",
                            key=key,
                            qid=question.id,
                            model=calibrated[0],
                            sample_index=-1,
                            settled=key in decisions,
                        )
                    )
    return items


def _was_inconsistent(pair: PairResult) -> bool:
    """The judge's own verdict flipped with the order (also when an expert has since settled it)."""
    return pair.judge_inconsistent if pair.adjudicated else pair.inconsistent


def _question(results: RunResults, qid: str) -> Question:
    question = next((q for q in results.every_question() if q.id == qid), None)
    if question is None:
        raise AdjudicationError(f"the pass has no question {qid}")
    return question


def override_judgement(
    session: Session,
    results: RunResults,
    judgement_key: str,
    *,
    actor: str,
    gate_passed: bool,
    awards: dict[str, int],
    reason: str,
) -> int:
    """Record the expert's gate and awards for one answer; the program settles the total."""
    if not reason.strip():
        raise AdjudicationError("an override needs a reason")
    sample = next((s for s in results.every_sample() if s.judgement_key == judgement_key), None)
    if sample is None:
        raise AdjudicationError("no such judgement in this pass")
    question = _question(results, sample.qid)
    unknown = sorted(set(awards) - {c.id for c in question.components})
    if unknown:
        raise AdjudicationError(f"{question.id} has no component {', '.join(unknown)}")
    for component in question.components:
        value = awards.get(component.id, 0)
        if not 0 <= value <= int(component.points):
            raise AdjudicationError(f"{component.id} award {value} is outside 0..{component.points}")
    settled, total = settle_awards(question, gate_passed, awards)
    return adjudication_repo.add_adjudication(
        session,
        tables.Adjudication(
            run_id=results.run_id,
            target="judgement",
            key=judgement_key,
            actor=actor,
            action="override",
            gate_passed=gate_passed,
            awards_json=json.dumps(settled),
            total=total,
            reason=reason.strip(),
        ),
    )


def override_pair(session: Session, results: RunResults, pair_key: str, *, actor: str, label: str, reason: str) -> int:
    if not reason.strip():
        raise AdjudicationError("an override needs a reason")
    if label not in PAIR_SCORES:
        raise AdjudicationError(f"{label!r} is not one of {', '.join(PAIR_SCORES)}")
    if not any(p.key == pair_key for p in results.every_pair()):
        raise AdjudicationError("no such pair in this pass")
    return adjudication_repo.add_adjudication(
        session,
        tables.Adjudication(
            run_id=results.run_id,
            target="pair",
            key=pair_key,
            actor=actor,
            action="override",
            label=label,
            reason=reason.strip(),
        ),
    )


def confirm(session: Session, run_id: int, target: str, key: str, *, actor: str, reason: str = "") -> int:
    """The judge was right: recorded, so the item leaves the queue."""
    return adjudication_repo.add_adjudication(
        session,
        tables.Adjudication(
            run_id=run_id, target=target, key=key, actor=actor, action="confirm", reason=reason.strip()
        ),
    )


def revert(session: Session, run_id: int, decision_id: int, *, actor: str, reason: str) -> int:
    if not reason.strip():
        raise AdjudicationError("a revert needs a reason")
    target = next((d for d in adjudication_repo.adjudications(session, run_id) if d.id == decision_id), None)
    if target is None:
        raise AdjudicationError(f"no decision {decision_id} in this pass")
    return adjudication_repo.add_adjudication(
        session,
        tables.Adjudication(
            run_id=run_id,
            target=target.target,
            key=target.key,
            actor=actor,
            action="revert",
            reverts_id=decision_id,
            reason=reason.strip(),
        ),
    )


def history(engine: Engine, run_id: int, key: str) -> list[HistoryStep]:
    steps = []
    with reading(engine) as session:
        rows = adjudication_repo.adjudications(session, run_id, key)
    for row in rows:
        if row.action == "override":
            detail = (
                f"label {row.label}"
                if row.target == "pair"
                else (
                    f"gate {'passed' if row.gate_passed else 'failed'}, total {row.total}"
                    + "".join(f", {c} {v}" for c, v in adjudication_repo.awards_of(row).items())
                )
            )
        elif row.action == "revert":
            detail = f"reverts decision #{row.reverts_id}"
        else:
            detail = "judge confirmed"
        steps.append(
            HistoryStep(
                id=row.id or 0,
                at=row.at.isoformat(timespec="seconds"),
                actor=row.actor,
                action=row.action,
                detail=detail,
                reason=row.reason,
            )
        )
    return steps


# -- blind human grading -------------------------------------------------------------


class GradingItem(BaseModel):
    """What a blind grader sees: the question and the answer, never the model or the judge."""

    generation_key: str
    qid: str
    question: Question
    answer: str


def grading_sample(engine: Engine, run_id: int, *, grader: str, size: int, seed: int = 0) -> list[GradingItem]:
    """A reproducible random sample of answered, not yet hand-graded answers, in random order."""
    results = load_run_results(engine, run_id)
    with reading(engine) as session:
        done = {g.generation_key for g in adjudication_repo.grades(session, run_id) if g.grader == grader}
    candidates = [
        s
        for s in results.samples
        if s.status is SampleStatus.SCORED and s.answer_clean and s.generation_key not in done
    ]
    rng = random.Random(f"{seed}:{grader}")
    chosen = rng.sample(candidates, min(size, len(candidates)))
    questions = {q.id: q for q in results.questions}
    return [
        GradingItem(generation_key=s.generation_key, qid=s.qid, question=questions[s.qid], answer=s.answer_clean)
        for s in chosen
    ]


def save_grade(
    engine: Engine,
    run_id: int,
    item: GradingItem,
    *,
    grader: str,
    gate_passed: bool,
    awards: dict[str, int],
    comment: str = "",
    blind: bool = True,
) -> OpResult[int]:
    settled, total = settle_awards(item.question, gate_passed, awards)
    grade = tables.HumanGrade(
        run_id=run_id,
        generation_key=item.generation_key,
        grader=grader,
        blind=blind,
        gate_passed=gate_passed,
        awards_json=json.dumps(settled),
        total=total,
        comment=comment,
    )
    with unit_of_work(engine) as tx:
        grade_id = adjudication_repo.add_grade(tx, grade)
    return OpResult(grade_id, OpChanges(adjudications=frozenset({run_id})))


# -- agreement between judge and experts -----------------------------------------------


class AgreementReport(BaseModel):
    n_graded: int
    graders: list[str]
    gate: KappaResult | None
    totals: TotalAgreement | None
    components: dict[str, ComponentAgreement]
    most_disagreeing: list[QuestionDisagreement]
    inter_rater: InterRater | None


def agreement_report(
    engine: Engine, run_id: int, *, seed: int = 0, results: RunResults | None = None
) -> AgreementReport:
    """Judge against expert on the hand-graded answers (the judge's own verdict, not an
    adjudicated one), and experts among themselves where two or more graded the same.
    Pass ``results`` when they are already loaded."""
    results = results if results is not None else load_run_results(engine, run_id)
    by_generation = {s.generation_key: s for s in results.samples}
    with reading(engine) as session:
        grades = adjudication_repo.grades(session, run_id)
    judge_gate: list[bool] = []
    expert_gate: list[bool] = []
    judge_totals: list[int | None] = []
    expert_totals: list[int | None] = []
    question_ids: list[str] = []
    judge_awards: list[dict[str, int]] = []
    expert_awards: list[dict[str, int]] = []
    maxima: dict[str, int] = {}
    questions = {q.id: q for q in results.questions}
    for grade in grades:
        sample = by_generation.get(grade.generation_key)
        if sample is None or sample.status is not SampleStatus.SCORED or sample.adjudicated:
            continue  # only the judge's own, scored verdicts are compared
        judge_gate.append(bool(sample.gate_passed))
        expert_gate.append(grade.gate_passed)
        judge_totals.append(None if sample.total is None else int(sample.total))
        expert_totals.append(grade.total)
        question_ids.append(sample.qid)
        judge_awards.append(sample.awards)
        expert_awards.append(adjudication_repo.awards_of(grade))
        for component in questions[sample.qid].components:
            maxima[component.id] = max(maxima.get(component.id, 0), int(component.points))
    n = len(judge_totals)
    graders = sorted({g.grader for g in grades})
    by_expert: dict[str, dict[str, tuple[bool, int]]] = {}
    for grade in grades:
        by_expert.setdefault(grade.grader, {})[grade.generation_key] = (grade.gate_passed, grade.total)
    return AgreementReport(
        n_graded=n,
        graders=graders,
        gate=cohens_kappa(judge_gate, expert_gate) if n else None,
        totals=total_agreement(judge_totals, expert_totals, question_ids=question_ids, seed=seed) if n else None,
        components=component_agreement(judge_awards, expert_awards, maxima) if n else {},
        most_disagreeing=most_disagreeing(
            [
                (q, float(j or 0), float(e or 0))
                for q, j, e in zip(question_ids, judge_totals, expert_totals, strict=True)
            ]
        )
        if n
        else [],
        inter_rater=inter_rater(by_expert, seed=seed) if len(by_expert) >= 2 else None,
    )
