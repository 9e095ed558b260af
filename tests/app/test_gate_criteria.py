"""The judge gate criterion by criterion: pooled by kind, compared where both passed the
gate, each kappa the statistics core's on the same ratings, and too few answers named."""

from __future__ import annotations

import random

from gtreview.app.gate_criteria import (
    MIN_ANSWERS,
    CriterionState,
    GradedPair,
    criteria_agreement,
    criteria_details,
    criterion_text,
)
from gtreview.app.judge_gate import GradedAnswer, expert_agreement
from gtreview.core.grading import ComponentKind, settle_awards
from gtreview.core.rubric import Question
from gtreview.core.stats import cohens_kappa, gate_diagnostic, kappa_with_interval, total_agreement, weighted_kappa
from tests.rubric_factory import question


def _question(qid: str, *, binary: bool = True) -> Question:
    data = question(qid, gate_points=3)  # C1 gate 3, C2 reasoning 3, C3 4 (binary here)
    if binary:
        data["components"][2]["binary"] = True
    return Question.model_validate(data)


def _pair(q: Question, judge: tuple[bool, int, int], expert: tuple[bool, int, int]) -> GradedPair:
    j_awards, _ = settle_awards(q, judge[0], {"C2": judge[1], "C3": judge[2]})
    e_awards, _ = settle_awards(q, expert[0], {"C2": expert[1], "C3": expert[2]})
    return GradedPair(
        question=q, judge_gate=judge[0], judge_awards=j_awards, expert_gate=expert[0], expert_awards=e_awards
    )


def _sample(n_questions: int = 8, per_question: int = 4, seed: int = 3) -> list[GradedPair]:
    rng = random.Random(seed)
    pairs = []
    for i in range(n_questions):
        q = _question(f"Q{i}")
        for _ in range(per_question):
            expert = (rng.random() < 0.75, rng.randint(0, 3), 4 * rng.randint(0, 1))
            judge = (
                expert[0] if rng.random() < 0.85 else not expert[0],
                max(0, min(3, expert[1] + rng.choice([-1, 0, 0, 1]))),
                expert[2] if rng.random() < 0.8 else 4 - expert[2],
            )
            pairs.append(_pair(q, judge, expert))
    return pairs


def test_each_kind_is_the_core_kappa_on_its_pooled_ratings() -> None:
    pairs = _sample()
    gate, binary, reasoning = criteria_agreement(pairs, 0.2, seed=5)
    assert [c.kind for c in (gate, binary, reasoning)] == [
        ComponentKind.GATE,
        ComponentKind.BINARY,
        ComponentKind.REASONING,
    ]

    qids = [p.question.id for p in pairs]
    expected_gate = kappa_with_interval(
        [p.judge_gate for p in pairs], [p.expert_gate for p in pairs], question_ids=qids, seed=5
    )
    assert gate.kappa == expected_gate and gate.n_answers == 32 and gate.statistic == "kappa"

    both = [p for p in pairs if p.judge_gate and p.expert_gate]  # components only where both passed the gate
    assert binary.n_answers == reasoning.n_answers == len(both) >= MIN_ANSWERS
    assert (
        binary.kappa is not None
        and binary.kappa.kappa
        == cohens_kappa([p.judge_awards["C3"] > 0 for p in both], [p.expert_awards["C3"] > 0 for p in both]).kappa
    )
    assert reasoning.kappa is not None and reasoning.statistic == "weighted kappa"
    assert (
        reasoning.kappa.kappa
        == weighted_kappa(
            [p.judge_awards["C2"] for p in both], [p.expert_awards["C2"] for p in both], categories=range(4)
        ).kappa
    )
    assert reasoning.kappa.ci is not None and reasoning.lower_bound == reasoning.kappa.ci.low
    for criterion in (gate, binary, reasoning):
        assert criterion.state in (CriterionState.CLEARS, CriterionState.BELOW)
        assert criterion.blocks == (criterion.state is CriterionState.BELOW)
        ci = criterion.kappa.ci  # type: ignore[union-attr]
        side = "at or above" if criterion.state is CriterionState.CLEARS else "below"
        n_questions = 8 if criterion.kind is ComponentKind.GATE else len({p.question.id for p in both})
        assert criterion.n_questions == n_questions
        assert criterion_text(criterion) == (
            f"{criterion.name}: {criterion.statistic} {criterion.kappa.kappa:.2f} [{ci.low:.2f}, {ci.high:.2f}] "  # type: ignore[union-attr]
            f"on {criterion.n_answers} graded answers of {n_questions} questions, lower bound {side} the project's 0.20"
        )


def test_a_high_threshold_fails_the_criteria_below_it() -> None:
    criteria = criteria_agreement(_sample(), 0.99, seed=5)
    below = [c for c in criteria if c.state is CriterionState.BELOW]
    assert below and all(c.blocks for c in below)
    assert all("lower bound below the project's 0.99" in criterion_text(c) for c in below)


def test_too_few_answers_none_graded_and_undefined_are_named() -> None:
    q = _question("Q0", binary=False)
    r = _question("Q1", binary=False)
    pairs = [_pair(q, (True, 1, 2), (True, 2, 2)), _pair(r, (True, 3, 0), (True, 3, 1))] * 2
    pairs += [_pair(q, (False, 0, 0), (False, 0, 0))] * 8  # failed by both: no component evidence
    gate, binary, reasoning = criteria_agreement(pairs, 0.6)
    assert gate.n_answers == 12 and gate.state in (CriterionState.CLEARS, CriterionState.BELOW)
    assert binary.state is CriterionState.NONE and not binary.blocks  # no binary criterion in these questions
    assert criterion_text(binary) == (
        "binary (fact) criteria: no graded answers (none of this kind, or no answer both passed through the gate)"
    )
    assert reasoning.state is CriterionState.TOO_FEW and reasoning.blocks and reasoning.kappa is None
    assert criterion_text(reasoning) == "reasoning criteria: too few graded answers (4) for an interval"

    same = [_pair(_question(f"Q{i % 3}"), (True, i % 4, 4), (True, i % 4, 4)) for i in range(12)]
    binary_same = criteria_agreement(same, 0.6)[1]
    assert binary_same.state is CriterionState.UNDEFINED and binary_same.blocks  # every fact awarded by both
    assert criterion_text(binary_same) == (
        "binary (fact) criteria: kappa undefined on 12 graded answers (the judge and the expert gave every one "
        "the same award), so no lower bound to read"
    )

    one_question = [_pair(q, (True, i % 4, 0), (True, i % 4, 0)) for i in range(12)]
    assert criterion_text(criteria_agreement(one_question, 0.6)[2]) == (
        "reasoning criteria: graded answers of one question only (12), too few for an interval"
    )


def test_details_say_the_interval_level_and_the_rule() -> None:
    criteria = criteria_agreement(_sample(), 0.6)
    details = criteria_details(criteria)
    assert details[0].startswith("Per criterion against the expert (criteria pooled by kind; 95% intervals resampling")
    assert details[1:] == [criterion_text(c) for c in criteria]
    assert criteria_details([]) == []


def _graded(pairs: list[GradedPair]) -> list[GradedAnswer]:
    return [
        GradedAnswer(
            qid=p.question.id,
            judge_gate=p.judge_gate,
            judge_total=sum(p.judge_awards.values()),
            expert_gate=p.expert_gate,
            expert_total=sum(p.expert_awards.values()),
            pair=p,
        )
        for p in pairs
    ]


def test_expert_agreement_is_the_gate_s_figures_over_graded_answers() -> None:
    """The one computation the gate and the judging benchmark read: totals, the gate's
    two rates and the pooled criteria, each the statistics core's on the same answers."""
    pairs = _sample()
    graded = _graded(pairs)
    expert = expert_agreement(graded, measure="weighted_kappa", threshold=0.6, seed=5)
    assert expert is not None and expert.n_graded == len(pairs)
    totals = total_agreement(
        [g.judge_total for g in graded], [g.expert_total for g in graded], question_ids=[g.qid for g in graded], seed=5
    )
    assert expert.kappa == totals.kappa and expert.alpha == totals.alpha
    assert expert.lower_bound == (totals.kappa.ci.low if totals.kappa.ci else None)
    assert expert.gate == gate_diagnostic([p.judge_gate for p in pairs], [p.expert_gate for p in pairs])
    assert expert.criteria == criteria_agreement(pairs, 0.6, seed=5)
    alpha = expert_agreement(graded, measure="krippendorff_alpha", threshold=0.6, seed=5)
    assert alpha is not None and alpha.lower_bound == (totals.alpha.ci.low if totals.alpha.ci else None)
    assert expert_agreement([], measure="weighted_kappa", threshold=0.6) is None


def test_expert_agreement_passes_a_faithful_judge_and_fails_a_contrary_one() -> None:
    pairs = _sample()
    faithful = [_pair(p.question, _expert_rates(p), _expert_rates(p)) for p in pairs]
    contrary = [
        _pair(p.question, (not p.expert_gate, 3 - p.expert_awards["C2"], 4 - p.expert_awards["C3"]), _expert_rates(p))
        for p in pairs
    ]
    good = expert_agreement(_graded(faithful), measure="weighted_kappa", threshold=0.6)
    bad = expert_agreement(_graded(contrary), measure="weighted_kappa", threshold=0.6)
    assert good is not None and good.passed and good.kappa.kappa == 1.0
    assert bad is not None and not bad.passed and not bad.totals_passed
    assert bad.gate.sensitivity.rate == 0.0 and bad.gate.specificity.rate == 0.0


def _expert_rates(pair: GradedPair) -> tuple[bool, int, int]:
    return (pair.expert_gate, pair.expert_awards["C2"], pair.expert_awards["C3"])
