"""The verdict rules of a fine-tune's reading, on constructed findings: every rule, the
strength words, the provisional caveat, and that no verdict claims more than its intervals."""

from __future__ import annotations

import random

import pytest

from gtreview.core.stats import Interval
from gtreview.results.reading_rules import (
    MIN_QUESTIONS,
    Evidence,
    Finding,
    agreeing,
    decide,
    finding,
    strength_of,
)


def found(low: float | None, high: float | None = None, *, estimate: float | None = None, units: int = 20) -> Finding:
    """A finding from an interval (None: no interval), the estimate its midpoint unless given."""
    if low is None or high is None:
        return finding(estimate, None, units=units, figure="no interval")
    middle = (low + high) / 2 if estimate is None else estimate
    return finding(middle, Interval(low=low, high=high), units=units, figure=f"{middle:+.2f} [{low:.2f}, {high:.2f}]")


UP, DOWN, FLAT = found(1.0, 3.0), found(-3.0, -1.0), found(-1.0, 1.0)
UNDEFINED = found(None)
CONSTANT = found(0.0, 0.0)  # every difference 0: the scores do not vary


def evidence(**changes: object) -> Evidence:
    values: dict[str, object] = {
        "label": "tuned",
        "base": "base",
        "n_questions": 20,
        "score": FLAT,
        "facts": FLAT,
        "reasoning": FLAT,
        "membership": None,
        "paraphrase": None,
        "judge_gated": True,
    }
    values.update(changes)
    return Evidence.model_validate(values)


# -- findings and strength -----------------------------------------------------------------


def test_a_finding_reads_the_side_of_the_null_its_interval_lies_on() -> None:
    assert found(0.1, 2.0).side == "up"
    assert found(-2.0, -0.1).side == "down"
    assert found(-0.1, 2.0).side == "none" and found(-0.1, 2.0).strength is None
    assert found(0.0, 2.0).side == "none"  # a bound on the null does not exclude it
    assert found(None).side == "undefined"
    auc = finding(0.7, Interval(low=0.55, high=0.85), units=20, null=0.5)
    assert auc.side == "up"  # an AUC is read against 1/2, not 0
    assert finding(0.45, Interval(low=0.3, high=0.6), units=20, null=0.5).side == "none"


@pytest.mark.parametrize(
    ("low", "estimate", "units", "expected"),
    [
        (0.5, 1.0, 20, "strong"),  # the nearest bound keeps half the estimate's distance from 0
        (0.49, 1.0, 20, "moderate"),
        (0.25, 1.0, 20, "moderate"),
        (0.24, 1.0, 20, "weak"),
        (0.01, 1.0, 20, "weak"),
        (0.9, 1.0, 9, "moderate"),  # fewer than 10 independent units: at most moderate
        (0.9, 1.0, 10, "strong"),
        (0.9, 1.0, 4, "weak"),  # fewer than 5: at most weak
        (0.9, 1.0, 5, "moderate"),
    ],
)
def test_strength_from_how_far_the_nearest_bound_keeps_from_the_null(
    low: float, estimate: float, units: int, expected: str
) -> None:
    assert strength_of(estimate, Interval(low=low, high=2.0), 0.0, units) == expected
    # the same rule below the null, mirrored
    assert strength_of(-estimate, Interval(low=-2.0, high=-low), 0.0, units) == expected


def test_strength_of_an_auc_is_measured_from_one_half() -> None:
    assert strength_of(0.8, Interval(low=0.65, high=0.9), 0.5, 20) == "strong"  # 0.15 of 0.30
    assert strength_of(0.8, Interval(low=0.56, high=0.9), 0.5, 20) == "weak"  # 0.06 of 0.30


def test_intervals_of_one_change_agree_only_where_every_defined_one_excludes_zero() -> None:
    strong, weak = found(0.8, 1.2), found(0.1, 1.9)
    assert agreeing(strong, weak) == Finding(side="up", strength="weak", figure=strong.figure)
    assert agreeing(strong, FLAT).side == "none"
    assert agreeing(UP, DOWN).side == "none"
    assert agreeing(UNDEFINED, strong).side == "up"
    assert agreeing(UNDEFINED, UNDEFINED).side == "undefined"
    assert agreeing(CONSTANT, FLAT).side == "constant" and agreeing(UP, CONSTANT).side == "constant"


def test_an_interval_of_no_width_on_the_null_is_constant_not_evidence() -> None:
    assert CONSTANT.side == "constant" and CONSTANT.strength is None
    assert finding(0.5, Interval(low=0.5, high=0.5), units=20, null=0.5).side == "constant"  # an AUC at 1/2
    # every difference the same but not 0 (one model at a ceiling, the other at a floor) still excludes 0
    assert found(2.0, 2.0).side == "up" and found(2.0, 2.0).strength == "strong"


# -- the verdict, rule by rule -------------------------------------------------------------


def test_too_few_questions_cannot_tell_whatever_the_intervals_say() -> None:
    verdict = decide(evidence(n_questions=MIN_QUESTIONS - 1, score=UP, reasoning=UP))
    assert verdict.kind == "cannot tell" and verdict.strength is None
    assert verdict.claim.startswith(f"Cannot tell: only {MIN_QUESTIONS - 1} questions")


def test_a_score_change_without_an_interval_cannot_tell() -> None:
    verdict = decide(evidence(score=UNDEFINED, reasoning=UP))
    assert verdict.kind == "cannot tell" and "no interval" in verdict.claim


@pytest.mark.parametrize(
    ("means", "why"),
    [
        ((0.0, 0.0), "every counted answer of both tuned and base scored 0 (a floor)"),
        ((10.0, 10.0), "every counted answer of both tuned and base scored 10 (a ceiling)"),
        (
            (4.0, 4.0),
            "every compared question scores the same for both tuned and base (+0.00 [0.00, 0.00] points of 10)",
        ),
        ((None, None), "every compared question scores the same for both tuned and base"),
    ],
)
def test_a_score_change_that_does_not_vary_cannot_tell(means: tuple[float | None, float | None], why: str) -> None:
    verdict = decide(
        evidence(score=CONSTANT, facts=CONSTANT, reasoning=CONSTANT, mean_finetune=means[0], mean_base=means[1])
    )
    assert verdict.kind == "cannot tell" and verdict.strength is None
    assert verdict.claim.startswith(f"Cannot tell: {why}")
    assert verdict.claim.endswith("the scores do not vary, so the interval says nothing.")
    assert "No measurable difference" not in verdict.claim and "unlikely" not in verdict.claim


def test_a_paraphrase_drop_that_does_not_vary_is_not_a_test_that_found_nothing() -> None:
    verdict = decide(evidence(score=UP, paraphrase=CONSTANT))
    assert verdict.kind == "scores higher"
    assert "no membership test or paraphrase drop to read" in verdict.claim
    learned = decide(evidence(score=UP, reasoning=UP, paraphrase=CONSTANT))
    assert learned.strength == "moderate" and "no paraphrase drop could be read" in learned.claim


def test_learned_the_reasoning_when_score_and_reasoning_rise_and_paraphrase_keeps_the_gain() -> None:
    kept = found(-0.5, 0.5, units=20)
    verdict = decide(evidence(score=found(1.0, 3.0), reasoning=found(0.1, 0.3), paraphrase=kept))
    assert verdict.kind == "learned the reasoning"
    assert verdict.strength == "strong"  # both findings strong, the paraphrase read
    assert "a paraphrase does not take the gain away" in verdict.claim
    weak_reasoning = found(0.01, 0.39)
    assert decide(evidence(score=UP, reasoning=weak_reasoning, paraphrase=kept)).strength == "weak"  # the weaker


def test_learned_the_reasoning_is_at_most_moderate_when_no_paraphrase_drop_was_read() -> None:
    for paraphrase in (None, found(None)):
        verdict = decide(evidence(score=UP, reasoning=UP, paraphrase=paraphrase))
        assert verdict.kind == "learned the reasoning" and verdict.strength == "moderate"
        assert "memorised wording is not ruled out" in verdict.claim


def test_a_paraphrase_drop_that_explains_the_gain_is_memorisation_not_learning() -> None:
    verdict = decide(evidence(score=UP, reasoning=UP, paraphrase=found(0.3, 1.5)))
    assert verdict.kind == "memorised"
    assert "it loses more than base when a question is paraphrased" in verdict.claim


def test_learning_and_membership_evidence_together_are_mixed() -> None:
    membership = finding(0.8, Interval(low=0.7, high=0.9), units=20, null=0.5, figure="AUC 0.80 [0.70, 0.90]")
    verdict = decide(evidence(score=UP, reasoning=UP, membership=membership))
    assert verdict.kind == "mixed" and verdict.strength is None
    assert "reference-ratio AUC tells its training documents from held-out ones (AUC 0.80" in verdict.claim
    assert "its share of reasoning points rose" in verdict.claim


def test_memorised_from_membership_alone_names_the_score_as_it_is() -> None:
    membership = finding(0.75, Interval(low=0.55, high=0.95), units=20, null=0.5, figure="AUC 0.75")
    verdict = decide(evidence(score=FLAT, membership=membership))
    assert verdict.kind == "memorised" and verdict.strength == "weak"  # 0.05 of 0.25 from 1/2
    assert "its score did not change measurably" in verdict.claim
    pointing_down = finding(0.3, Interval(low=0.2, high=0.4), units=20, null=0.5)
    assert decide(evidence(score=FLAT, membership=pointing_down)).kind == "no measurable difference"


def test_memorised_takes_the_stronger_of_two_memorisation_findings() -> None:
    membership = finding(0.75, Interval(low=0.52, high=0.95), units=20, null=0.5)  # weak
    verdict = decide(evidence(score=UP, membership=membership, paraphrase=found(1.0, 2.0)))  # strong
    assert verdict.kind == "memorised" and verdict.strength == "strong"


def test_reasoning_rising_while_the_score_does_not_is_mixed() -> None:
    assert decide(evidence(score=FLAT, reasoning=UP)).kind == "mixed"
    assert decide(evidence(score=DOWN, reasoning=UP)).kind == "mixed"


def test_the_score_rising_while_reasoning_falls_is_mixed() -> None:
    assert decide(evidence(score=UP, facts=UP, reasoning=DOWN)).kind == "mixed"


def test_scores_higher_says_where_the_gain_lies_and_what_was_not_measured() -> None:
    verdict = decide(evidence(score=found(0.1, 1.9), facts=UP, reasoning=FLAT))
    assert verdict.kind == "scores higher" and verdict.strength == "weak"
    assert "tuned scores higher than base (weak evidence" in verdict.claim
    assert "its share of fact points rose" in verdict.claim
    assert "its share of reasoning points did not move measurably" in verdict.claim
    assert "whether it learned or memorised is not measured" in verdict.claim
    tested = decide(evidence(score=UP, membership=found(-0.1, 0.1)))  # a membership test that found nothing
    assert "the membership test found no sign of memorisation, which does not rule it out" in tested.claim
    assert "neither its share of fact points nor of reasoning points moved measurably" in tested.claim


def test_scores_lower() -> None:
    verdict = decide(evidence(score=DOWN))
    assert verdict.kind == "scores lower" and verdict.strength == "strong"
    assert verdict.claim.startswith("tuned scores lower than base (strong evidence")


def test_facts_and_reasoning_moving_apart_under_a_flat_score_are_mixed() -> None:
    assert decide(evidence(score=FLAT, facts=UP, reasoning=DOWN)).kind == "mixed"


def test_no_measurable_difference_is_not_no_difference() -> None:
    verdict = decide(evidence(score=FLAT, facts=UP))
    assert verdict.kind == "no measurable difference" and verdict.strength is None
    assert "covers 0" in verdict.claim and "smaller ones are not ruled out" in verdict.claim


NOT_GATED = [
    (False, "Provisional: the judge is not gated"),
    (None, "Provisional: the judge gate was not checked for this pass"),
]
AUC_UP = finding(0.9, Interval(low=0.8, high=1.0), units=20, null=0.5, figure="AUC 0.90 [0.80, 1.00]")


@pytest.mark.parametrize(("gated", "caveat"), NOT_GATED)
def test_a_judge_not_gated_makes_every_verdict_provisional_and_says_so_first(gated: bool | None, caveat: str) -> None:
    for score in (UP, DOWN, FLAT, UNDEFINED):
        verdict = decide(evidence(score=score, judge_gated=gated))
        assert verdict.provisional and verdict.text.startswith(caveat) and verdict.caveat.startswith(caveat)
        assert verdict.text == f"{verdict.caveat} {verdict.claim}"
        gated_verdict = decide(evidence(score=score, judge_gated=True))
        assert (
            not gated_verdict.provisional and gated_verdict.caveat == "" and gated_verdict.text == gated_verdict.claim
        )


@pytest.mark.parametrize(("gated", "caveat"), NOT_GATED)
def test_a_judge_not_gated_makes_no_claim_from_the_scores(gated: bool | None, caveat: str) -> None:
    """A judge that failed its gate may be noise: whatever its scores say (a rise, a fall,
    reasoning up, a paraphrase drop), the verdict reads none of them."""
    judged = [
        {"score": UP, "reasoning": UP},  # gated: learned the reasoning
        {"score": UP},  # scores higher
        {"score": DOWN},  # scores lower
        {"score": FLAT, "reasoning": UP},  # mixed
        {"score": FLAT},  # no measurable difference
        {"score": UP, "paraphrase": found(0.3, 1.5)},  # memorised, from the paraphrase drop alone
    ]
    for changes in judged:
        verdict = decide(evidence(judge_gated=gated, **changes))
        assert verdict.kind == "cannot tell" and verdict.strength is None, changes
        why = "is not gated" if gated is False else "was not checked against its gate"
        assert verdict.claim.startswith(
            f"Cannot tell whether tuned learned the reasoning or memorised: the score, fact, reasoning and "
            f"paraphrase findings rest on a judge that {why}, so none of them is read"
        )
        assert "no membership test was kept with this pass" in verdict.claim


def test_without_a_gated_judge_a_membership_test_that_found_nothing_is_named() -> None:
    verdict = decide(evidence(score=UP, reasoning=UP, membership=found(-0.1, 0.1), judge_gated=False))
    assert verdict.kind == "cannot tell"
    assert verdict.claim.endswith(
        "the membership test, which does not rest on the judge, found no sign of memorisation, "
        "which does not rule it out."
    )


def test_without_a_gated_judge_scores_that_say_nothing_keep_their_own_reason() -> None:
    floor = decide(evidence(score=CONSTANT, mean_finetune=0.0, mean_base=0.0, judge_gated=False))
    assert floor.kind == "cannot tell"
    assert floor.claim.startswith("Cannot tell: every counted answer of both tuned and base scored 0 (a floor)")
    few = decide(evidence(n_questions=MIN_QUESTIONS - 1, score=UP, judge_gated=False))
    assert few.claim.startswith(f"Cannot tell: only {MIN_QUESTIONS - 1} questions have")
    unread = decide(evidence(score=UP, membership=UNDEFINED, judge_gated=False))
    assert unread.claim.endswith("the membership test kept with this pass has no reference-ratio interval to read.")


@pytest.mark.parametrize("gated", [False, None])
def test_membership_is_read_without_a_gated_judge(gated: bool | None) -> None:
    """The reference-ratio AUC compares likelihoods, not judged scores: it is read whatever
    the judge, and only it (a paraphrase drop is a judged score)."""
    verdict = decide(evidence(score=UP, reasoning=UP, membership=AUC_UP, paraphrase=found(0.3, 1.5), judge_gated=gated))
    assert verdict.kind == "memorised" and verdict.strength == "strong" and verdict.provisional
    assert verdict.claim == (
        "tuned shows memorisation (strong evidence): the reference-ratio AUC tells its training documents from "
        "held-out ones (AUC 0.90 [0.80, 1.00]), a test that does not rest on the judge; its scores are not read, so "
        "whether it also learned the reasoning cannot be told."
    )
    assert "paraphrased" not in verdict.claim and "score" not in verdict.claim.split(";")[0]


# -- never more than the intervals allow -----------------------------------------------------


def _random_interval(rng: random.Random, centre: float = 0.0, scale: float = 1.0) -> tuple[float, Interval] | None:
    if rng.random() < 0.15:
        return None
    estimate = centre + scale * rng.uniform(-2, 2)
    half = scale * rng.uniform(0.05, 2.5)
    return estimate, Interval(low=estimate - half * rng.uniform(0.5, 1), high=estimate + half * rng.uniform(0.5, 1))


def test_no_verdict_claims_more_than_its_intervals_allow() -> None:
    rng = random.Random(7)
    kinds = set()
    for _ in range(3000):
        units = rng.choice([1, 3, 5, 8, 12, 40])
        drawn = {name: _random_interval(rng) for name in ("clustered", "paired", "facts", "reasoning", "paraphrase")}
        drawn["membership"] = auc = _random_interval(rng, 0.5, 0.2)
        measured = {name: rng.random() < 0.6 for name in ("membership", "paraphrase")}

        def of(pair: tuple[float, Interval] | None, units: int, null: float = 0.0) -> Finding:
            return finding(pair[0], pair[1], units=units, null=null) if pair else finding(None, None, units=units)

        e = evidence(
            n_questions=rng.choice([3, 4, 5, 10, 30]),
            score=agreeing(of(drawn["clustered"], units), of(drawn["paired"], units)),
            facts=of(drawn["facts"], units),
            reasoning=of(drawn["reasoning"], units),
            membership=of(auc, units, 0.5) if measured["membership"] else None,
            paraphrase=of(drawn["paraphrase"], units) if measured["paraphrase"] else None,
            judge_gated=rng.choice([True, False, None]),
        )
        verdict = decide(e)
        kinds.add(verdict.kind)
        scores = [pair for pair in (drawn["clustered"], drawn["paired"]) if pair is not None]
        assert verdict.provisional == (e.judge_gated is not True)
        if e.judge_gated is not True:  # only the membership test is read, and only as memorisation
            assert verdict.kind in ("cannot tell", "memorised")
            if verdict.kind == "memorised":
                assert measured["membership"] and auc is not None and auc[1].low > 0.5
        too_few = e.n_questions < MIN_QUESTIONS or not scores or e.score.side == "constant"
        if too_few and e.judge_gated is True:  # ungated, the scores are not read at all (above)
            assert verdict.kind == "cannot tell"
        if verdict.kind in ("scores higher", "learned the reasoning"):
            assert all(ci.low > 0 for _, ci in scores)
        if verdict.kind == "scores lower":
            assert all(ci.high < 0 for _, ci in scores)
        if verdict.kind == "learned the reasoning":
            reasoning, paraphrase = drawn["reasoning"], drawn["paraphrase"]
            assert reasoning is not None and reasoning[1].low > 0
            assert not (measured["paraphrase"] and paraphrase is not None and paraphrase[1].low > 0)
            if not (measured["paraphrase"] and paraphrase is not None):
                assert verdict.strength in ("weak", "moderate")
        if verdict.kind == "memorised":
            by_auc = measured["membership"] and auc is not None and auc[1].low > 0.5
            paraphrase = drawn["paraphrase"]
            by_paraphrase = measured["paraphrase"] and paraphrase is not None and paraphrase[1].low > 0
            assert by_auc or by_paraphrase
        if verdict.kind in ("cannot tell", "mixed", "no measurable difference"):
            assert verdict.strength is None
        else:
            assert verdict.strength is not None
        if verdict.strength == "strong":
            assert units >= 10
        if verdict.strength == "moderate":
            assert units >= 5
    assert kinds == {
        "cannot tell",
        "mixed",
        "learned the reasoning",
        "memorised",
        "scores higher",
        "scores lower",
        "no measurable difference",
    }
