"""Whether a pass's judge is gated: its figures count only once it has passed.

Two tests, both asked of the pass as it was run, never of the set as it is now:

* **Fixtures.** Every question the pass ran has a calibration of exactly that question
  (the version's content hash), by the same judge spec and the same pointwise prompt
  template, that reproduced all its fixtures within their tolerance. The calibration
  is looked up by those three keys, so a new judge model, a changed prompt template or
  an edited question finds none and the gate is asked again without anyone deciding so.
* **The expert.** Where the expert has graded a blind sample of the pass's answers, the
  judge's own verdicts are compared with the expert's: the gate as sensitivity and
  specificity (expert as truth, Wilson intervals), totals as quadratic weighted kappa
  and Krippendorff's interval alpha (bootstrap over questions), and criterion by
  criterion, pooled by kind (:mod:`gtreview.app.gate_criteria`). The gate passes when
  the 95% lower bound of the project's measure on totals, and of every pooled criterion
  with graded answers, reaches the project's threshold. With no blind grades the gate
  rests on the fixtures alone, and says so.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ValidationError
from sqlalchemy import Engine

from gtreview.app.gate_criteria import (
    CriterionAgreement,
    GradedPair,
    criteria_agreement,
    criteria_details,
    criterion_text,
)
from gtreview.app.project_settings import GateMeasure, judge_gate_measure, judge_gate_threshold
from gtreview.core.jsonmodel import canonical_hash
from gtreview.core.redaction import redact
from gtreview.core.stats import (
    AlphaResult,
    GateDiagnostic,
    Interval,
    KappaResult,
    gate_diagnostic,
    total_agreement,
)
from gtreview.judging.calibration import QuestionCalibration
from gtreview.results.loader import RunResults, SampleResult, SampleStatus, load_run_results
from gtreview.runs.statuses import RunSource
from gtreview.store import adjudication_repo, sets
from gtreview.store.db import reading

NAMED = 5  # questions named in a reason before "and N more"
MEASURE_NAMES: dict[GateMeasure, str] = {
    "weighted_kappa": "weighted kappa",
    "krippendorff_alpha": "Krippendorff's alpha",
}


class FixtureState(StrEnum):
    REPRODUCED = "reproduced"
    MISSED = "fixtures missed"
    NO_FIXTURES = "no calibration fixtures"
    OTHER_JUDGE = "calibrated only by another judge"
    OTHER_PROMPT = "calibrated only with another prompt template"
    OTHER_VERSION = "calibrated only in another version"
    NOT_CALIBRATED = "never calibrated"


class QuestionGate(BaseModel):
    qid: str
    state: FixtureState
    detail: str = ""  # e.g. "2 of 3 fixtures reproduced"


class ExpertGate(BaseModel):
    """The judge's own verdicts against the expert's blind grades of the same answers."""

    n_graded: int
    measure: GateMeasure
    threshold: float
    gate: GateDiagnostic
    kappa: KappaResult
    alpha: AlphaResult
    lower_bound: float | None  # of the chosen measure; None when its interval is undefined
    totals_passed: bool  # the lower bound on totals reaches the threshold
    criteria: list[CriterionAgreement]  # gate, binary, reasoning: pooled by kind
    passed: bool  # totals and every criterion with graded answers


class JudgeGate(BaseModel):
    run_id: int
    judge: str
    prompt_sha256: str
    gated: bool
    fixtures_passed: bool
    questions: list[QuestionGate]
    expert: ExpertGate | None  # None: no expert sample graded
    reasons: list[str]  # why it is not gated, in plain words (empty when gated)
    line: str  # "Judge gated: …" or "Judge NOT gated: …", as the view and the PDF cover print it
    details: list[str] = []  # the per-criterion lines under it (gate_criteria.criteria_details)


def judge_gate(engine: Engine, run_id: int, *, results: RunResults | None = None, seed: int = 0) -> JudgeGate:
    """Decide whether the run's judge is gated, and say why in one line.
    Pass ``results`` when they are already loaded."""
    results = results if results is not None else load_run_results(engine, run_id)
    judge = redact(results.config.judge)
    prompt = results.templates.get("pointwise", "")
    questions = _question_gates(engine, results, judge, prompt)
    fixtures_passed = bool(questions) and all(q.state is FixtureState.REPRODUCED for q in questions)
    expert = _expert_gate(engine, results, judge_gate_measure(engine), judge_gate_threshold(engine), seed)
    reasons = _fixture_reasons(results, questions) if not fixtures_passed else []
    if expert is not None and not expert.totals_passed:
        reasons.append(expert_text(expert))
    if expert is not None:
        reasons.extend(criterion_text(c) for c in expert.criteria if c.blocks)
    gated = fixtures_passed and (expert is None or expert.passed)
    return JudgeGate(
        run_id=results.run_id,
        judge=judge,
        prompt_sha256=prompt,
        gated=gated,
        fixtures_passed=fixtures_passed,
        questions=questions,
        expert=expert,
        reasons=reasons,
        line=_line(gated, len(questions), expert, reasons),
        details=criteria_details(expert.criteria) if expert is not None else [],
    )


# -- fixtures ---------------------------------------------------------------------------


def _question_gates(engine: Engine, results: RunResults, judge: str, prompt: str) -> list[QuestionGate]:
    hashes = {q.id: canonical_hash(q.to_json_dict()) for q in results.questions}
    by_content: dict[str, list[sets.ContentCalibration]] = {}
    with reading(engine) as session:
        for calibration in sets.calibrations_of_contents(session, hashes.values()):
            by_content.setdefault(calibration.content_hash, []).append(calibration)
    with reading(engine) as session:
        calibrated_elsewhere = sets.calibrated_qids(session, results.set_id) if results.set_id is not None else set()
    gates = []
    for question in results.questions:
        found = by_content.get(hashes[question.id], [])
        same = [c for c in found if redact(c.judge) == judge and c.prompt_sha256 == prompt]
        if not question.calibration:
            gates.append(QuestionGate(qid=question.id, state=FixtureState.NO_FIXTURES))
        elif same:
            gates.append(_outcome(question.id, same[-1]))  # the newest calibration decides
        elif any(redact(c.judge) == judge for c in found):
            gates.append(QuestionGate(qid=question.id, state=FixtureState.OTHER_PROMPT))
        elif found:
            gates.append(
                QuestionGate(
                    qid=question.id,
                    state=FixtureState.OTHER_JUDGE,
                    detail=", ".join(sorted({redact(c.judge) for c in found})),
                )
            )
        elif question.id in calibrated_elsewhere:
            gates.append(QuestionGate(qid=question.id, state=FixtureState.OTHER_VERSION))
        else:
            gates.append(QuestionGate(qid=question.id, state=FixtureState.NOT_CALIBRATED))
    return gates


def _outcome(qid: str, found: sets.ContentCalibration) -> QuestionGate:
    try:
        report = QuestionCalibration.model_validate_json(found.report_json)
    except ValidationError:  # a damaged record proves nothing: the question is asked again
        return QuestionGate(qid=qid, state=FixtureState.MISSED, detail="its stored calibration cannot be read")
    done = sum(1 for f in report.fixtures if f.reproduced)
    detail = f"{done} of {len(report.fixtures)} fixtures reproduced"
    state = FixtureState.REPRODUCED if report.reproduced else FixtureState.MISSED
    return QuestionGate(qid=qid, state=state, detail=detail)


def _fixture_reasons(results: RunResults, questions: list[QuestionGate]) -> list[str]:
    if not questions:
        return ["the pass has no questions"]
    if results.source is RunSource.HARNESS:
        return ["scores imported from harness files, judged outside gtreview with no calibration kept"]
    reasons = []
    for state in FixtureState:
        if state is FixtureState.REPRODUCED:
            continue
        qids = [
            f"{q.qid} ({q.detail})" if q.state is FixtureState.MISSED else q.qid for q in questions if q.state is state
        ]
        if qids:
            reasons.append(f"{state.value}: {_named(qids)}")
    return reasons


def _named(qids: list[str]) -> str:
    shown = ", ".join(qids[:NAMED])
    return shown + (f" and {len(qids) - NAMED} more" if len(qids) > NAMED else "")


# -- the expert -------------------------------------------------------------------------


def _judge_own(sample: SampleResult) -> tuple[bool, float, dict[str, int]] | None:
    """The judge's own gate, total and awards: kept beside an expert's override, so an
    answer the expert later settled still counts against the judge that got it wrong."""
    if sample.adjudicated:
        if sample.judge_gate_passed is None or sample.judge_total is None:
            return None
        return sample.judge_gate_passed, sample.judge_total, sample.judge_awards
    if sample.status is not SampleStatus.SCORED or sample.gate_passed is None or sample.total is None:
        return None
    return sample.gate_passed, sample.total, sample.awards


class GradedAnswer(BaseModel):
    """One graded answer: the judge's own gate and total beside the expert's, and the
    awards of both where the question is known (the per-criterion figures need them)."""

    qid: str
    judge_gate: bool
    judge_total: int | None
    expert_gate: bool
    expert_total: int | None
    pair: GradedPair | None = None


def _expert_gate(
    engine: Engine, results: RunResults, measure: GateMeasure, threshold: float, seed: int
) -> ExpertGate | None:
    by_generation = {s.generation_key: s for s in results.samples if s.generation_key}
    questions = {q.id: q for q in results.questions}
    graded: list[GradedAnswer] = []
    with reading(engine) as session:
        grades = adjudication_repo.grades(session, results.run_id)
    for grade in grades:
        sample = by_generation.get(grade.generation_key)
        own = _judge_own(sample) if grade.blind and sample is not None else None
        if sample is None or own is None:
            continue
        judge_gate, judge_total, judge_awards = own
        question = questions.get(sample.qid)
        pair = None
        if question is not None:
            pair = GradedPair(
                question=question,
                judge_gate=judge_gate,
                judge_awards=judge_awards,
                expert_gate=grade.gate_passed,
                expert_awards=adjudication_repo.awards_of(grade),
            )
        graded.append(
            GradedAnswer(
                qid=sample.qid,
                judge_gate=judge_gate,
                judge_total=round(judge_total),
                expert_gate=grade.gate_passed,
                expert_total=grade.total,
                pair=pair,
            )
        )
    return expert_agreement(graded, measure=measure, threshold=threshold, seed=seed)


def expert_agreement(
    graded: list[GradedAnswer], *, measure: GateMeasure, threshold: float, seed: int = 0
) -> ExpertGate | None:
    """The gate's expert figures over graded answers (None when there are none): the one
    computation the judge gate, its view and the judging benchmark all read."""
    if not graded:
        return None
    totals = total_agreement(
        [g.judge_total for g in graded],
        [g.expert_total for g in graded],
        question_ids=[g.qid for g in graded],
        seed=seed,
    )
    interval: Interval | None = totals.kappa.ci if measure == "weighted_kappa" else totals.alpha.ci
    lower = interval.low if interval is not None else None
    totals_passed = lower is not None and lower >= threshold
    criteria = criteria_agreement([g.pair for g in graded if g.pair is not None], threshold, seed=seed)
    return ExpertGate(
        n_graded=len(graded),
        measure=measure,
        threshold=threshold,
        gate=gate_diagnostic([g.judge_gate for g in graded], [g.expert_gate for g in graded]),
        kappa=totals.kappa,
        alpha=totals.alpha,
        lower_bound=lower,
        totals_passed=totals_passed,
        criteria=criteria,
        passed=totals_passed and not any(c.blocks for c in criteria),
    )


def _num(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def _with_ci(value: float | None, ci: Interval | None) -> str:
    return _num(value) + (f" [{_num(ci.low)}, {_num(ci.high)}]" if ci is not None else "")


def expert_text(expert: ExpertGate) -> str:
    """One clause: the chosen measure against the threshold, then the gate's two rates."""
    value, ci = (
        (expert.kappa.kappa, expert.kappa.ci)
        if expert.measure == "weighted_kappa"
        else (expert.alpha.alpha, expert.alpha.ci)
    )
    name = MEASURE_NAMES[expert.measure]
    if expert.lower_bound is None:
        verdict = "no interval to read (too few blind-graded answers)"
    elif expert.totals_passed:
        verdict = f"lower bound at or above the project's {expert.threshold:.2f}"
    else:
        verdict = f"lower bound below the project's {expert.threshold:.2f}"
    sensitivity, specificity = expert.gate.sensitivity, expert.gate.specificity
    return (
        f"against the expert on {expert.n_graded} blind-graded answers, {name} on totals {_with_ci(value, ci)}, "
        f"{verdict} (gate sensitivity {_with_ci(sensitivity.rate, sensitivity.ci)}, "
        f"specificity {_with_ci(specificity.rate, specificity.ci)}; 95% intervals)"
    )


def _line(gated: bool, n_questions: int, expert: ExpertGate | None, reasons: list[str]) -> str:
    if not gated:
        return "Judge NOT gated: " + "; ".join(reasons) + "."
    fixtures = f"all {n_questions} questions' calibration fixtures reproduced by this judge and prompt"
    if expert is None:
        return f"Judge gated: {fixtures}; no expert sample graded, so the gate rests on the fixtures alone."
    graded = [c.name for c in expert.criteria if c.n_answers]
    criteria = (
        f"; per criterion ({', '.join(graded)}) every lower bound at or above the project's {expert.threshold:.2f}"
    )
    return f"Judge gated: {fixtures}; {expert_text(expert)}{criteria if graded else ''}."
