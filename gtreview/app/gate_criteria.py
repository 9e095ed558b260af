"""The judge against the expert criterion by criterion, for the judge gate.

Agreement on totals can hide a judge that is right for the wrong reasons: generous on
reasoning and harsh on facts sums to the expert's total. So the gate also asks, of each
criterion, whether the judge awards it as the expert does.

**Criteria are pooled by kind.** Criteria differ per question (A1's C2 is not B4's C2),
so one question's criterion is graded on a handful of answers (a blind sample of 30
answers over 10 questions gives each three), far too few for an interval. What the
gate must know is whether the judge can be trusted with each kind of judging the rubric
asks of it: passing the gate, deciding a stated fact present or absent, weighing a piece
of reasoning. Those are the rubric's component kinds (:class:`ComponentKind`), so every
criterion of a kind, across questions, is one pooled criterion:

* **gate**: Cohen's kappa on passed / failed, over every graded answer;
* **binary (fact)**: Cohen's kappa on awarded / not (they are all or nothing);
* **reasoning**: quadratic weighted kappa on the points awarded, on one 0..M scale with
  M the largest maximum among the pooled components (a point is a point: a miss by one
  weighs the same on a 2-point and a 4-point component).

Binary and reasoning criteria are compared only on answers both passed through the
gate: where either failed it every award is 0 by rule, which would count agreement on
zeros nobody judged (both failed) or repeat the gate's disagreement (one failed).

Each kappa has a 95% percentile bootstrap interval resampling *questions*: one
question's answers (its repeats) and criteria are not independent evidence. A pooled
criterion clears the gate when the interval's lower bound reaches the project's
threshold. Below ``MIN_ANSWERS`` graded answers, or from one question only, there is
no interval worth reading, and the criterion is reported as too few and does not clear
the gate: a gate is evidence, and an unmeasured criterion is not evidence. A criterion
with no graded answer at all (no component of that kind, or no answer both passed) is
listed as such and does not decide anything.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel

from gtreview.core.grading import ComponentKind, component_kind
from gtreview.core.rubric import Question
from gtreview.core.stats import LEVEL, KappaResult, kappa_with_interval

MIN_ANSWERS = 10
"""Graded answers a pooled criterion needs for an interval. Below about ten, most bootstrap
replicates of a kappa have one rater constant (kappa undefined) and the percentiles of the
rest say little, while a zero-width interval from a lucky few would gate a judge on nothing."""

CRITERION_NAMES: dict[ComponentKind, str] = {
    ComponentKind.GATE: "gate",
    ComponentKind.BINARY: "binary (fact) criteria",
    ComponentKind.REASONING: "reasoning criteria",
}


class CriterionState(StrEnum):
    CLEARS = "clears the threshold"
    BELOW = "below the threshold"
    TOO_FEW = "too few graded answers"
    UNDEFINED = "no agreement to read"
    NONE = "no graded answers"


class GradedPair(BaseModel):
    """One blind-graded answer: the judge's own verdict and the expert's, on one question."""

    question: Question
    judge_gate: bool
    judge_awards: dict[str, int]
    expert_gate: bool
    expert_awards: dict[str, int]


class CriterionAgreement(BaseModel):
    """One pooled criterion: the judge's awards of every criterion of a kind against the expert's."""

    kind: ComponentKind
    name: str
    statistic: str  # "kappa" (Cohen's) or "weighted kappa" (quadratic)
    n_answers: int  # graded answers that hold a criterion of this kind
    n_ratings: int  # (answer, criterion) pairs compared
    n_questions: int
    kappa: KappaResult | None  # None when nothing was graded
    lower_bound: float | None
    threshold: float
    state: CriterionState

    @property
    def blocks(self) -> bool:
        """Whether this criterion keeps the judge from being gated."""
        return self.state not in (CriterionState.CLEARS, CriterionState.NONE)


def criteria_agreement(pairs: list[GradedPair], threshold: float, *, seed: int = 0) -> list[CriterionAgreement]:
    """The three pooled criteria, in the order gate, binary, reasoning."""
    gate_j = [p.judge_gate for p in pairs]
    gate_e = [p.expert_gate for p in pairs]
    gate_q = [p.question.id for p in pairs]
    out = [_criterion(ComponentKind.GATE, gate_j, gate_e, gate_q, len(pairs), threshold, seed, "none", 1)]
    for kind in (ComponentKind.BINARY, ComponentKind.REASONING):
        judge: list[int] = []
        expert: list[int] = []
        questions: list[str] = []
        answers = 0
        top = 1
        for pair in pairs:
            if not (pair.judge_gate and pair.expert_gate):
                continue
            rated = False
            for component in pair.question.components:
                if component_kind(pair.question, component) is not kind:
                    continue
                j, e = pair.judge_awards.get(component.id), pair.expert_awards.get(component.id)
                if j is None or e is None:  # a verdict without this component proves nothing of it
                    continue
                rated = True
                if kind is ComponentKind.BINARY:
                    j, e = int(j > 0), int(e > 0)
                else:
                    top = max(top, int(component.points))
                judge.append(j)
                expert.append(e)
                questions.append(pair.question.id)
            answers += rated
        weights = "none" if kind is ComponentKind.BINARY else "quadratic"
        out.append(_criterion(kind, judge, expert, questions, answers, threshold, seed, weights, top))
    return out


def _criterion(
    kind: ComponentKind,
    judge: list[bool] | list[int],
    expert: list[bool] | list[int],
    questions: list[str],
    answers: int,
    threshold: float,
    seed: int,
    weights: str,
    top: int,
) -> CriterionAgreement:
    n_questions = len(set(questions))
    statistic = "kappa" if weights == "none" else "weighted kappa"
    kappa: KappaResult | None = None
    if answers == 0:
        state = CriterionState.NONE
    elif answers < MIN_ANSWERS or n_questions < 2:
        state = CriterionState.TOO_FEW
    else:
        kappa = (
            kappa_with_interval(judge, expert, question_ids=questions, seed=seed)
            if weights == "none"
            else kappa_with_interval(
                judge, expert, weights="quadratic", categories=range(top + 1), question_ids=questions, seed=seed
            )
        )
        if kappa.kappa is None or kappa.ci is None:
            state = CriterionState.UNDEFINED
        else:
            state = CriterionState.CLEARS if kappa.ci.low >= threshold else CriterionState.BELOW
    return CriterionAgreement(
        kind=kind,
        name=CRITERION_NAMES[kind],
        statistic=statistic,
        n_answers=answers,
        n_ratings=len(judge),
        n_questions=n_questions,
        kappa=kappa,
        lower_bound=kappa.ci.low if kappa is not None and kappa.ci is not None else None,
        threshold=threshold,
        state=state,
    )


def criterion_text(criterion: CriterionAgreement) -> str:
    """One clause per pooled criterion, as the gate's line, the view and the PDF print it."""
    name, n = criterion.name, criterion.n_answers
    if criterion.state is CriterionState.NONE:
        return f"{name}: no graded answers (none of this kind, or no answer both passed through the gate)"
    if criterion.state is CriterionState.TOO_FEW:
        if criterion.n_questions < 2 and n >= MIN_ANSWERS:
            return f"{name}: graded answers of one question only ({n}), too few for an interval"
        return f"{name}: too few graded answers ({n}) for an interval"
    kappa = criterion.kappa
    assert kappa is not None
    if criterion.state is CriterionState.UNDEFINED:
        return (
            f"{name}: {criterion.statistic} undefined on {n} graded answers (the judge and the expert gave "
            "every one the same award), so no lower bound to read"
        )
    assert kappa.kappa is not None and kappa.ci is not None
    side = "at or above" if criterion.state is CriterionState.CLEARS else "below"
    return (
        f"{name}: {criterion.statistic} {kappa.kappa:.2f} [{kappa.ci.low:.2f}, {kappa.ci.high:.2f}] on {n} graded "
        f"answers of {criterion.n_questions} questions, lower bound {side} the project's {criterion.threshold:.2f}"
    )


def criteria_details(criteria: list[CriterionAgreement]) -> list[str]:
    """The per-criterion lines under the gate's line: a heading that says how to read
    them, then one line per pooled criterion (empty when no expert sample was graded)."""
    if not criteria:
        return []
    heading = (
        f"Per criterion against the expert (criteria pooled by kind; {LEVEL:.0%} intervals resampling questions; "
        f"each lower bound must reach the project's threshold, with at least {MIN_ANSWERS} graded answers):"
    )
    return [heading, *(criterion_text(c) for c in criteria)]


__all__ = [
    "CRITERION_NAMES",
    "MIN_ANSWERS",
    "CriterionAgreement",
    "CriterionState",
    "GradedPair",
    "criteria_agreement",
    "criteria_details",
    "criterion_text",
]
