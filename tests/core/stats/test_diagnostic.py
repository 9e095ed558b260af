"""gtreview.core.stats.diagnostic: the judge's gate against the expert's, as a diagnostic test.

Wilson intervals are checked against Newcombe's (1998) worked examples and against scipy's
``binomtest(...).proportion_ci(method="wilson")``; sensitivity and specificity against a
hand count.
"""

from __future__ import annotations

import pytest
from scipy.stats import binomtest

from gtreview.core.stats import StatInputError, gate_diagnostic, wilson_interval


@pytest.mark.parametrize(
    ("successes", "n", "low", "high"),
    [(81, 263, 0.2553, 0.3662), (15, 148, 0.0624, 0.1605), (0, 20, 0.0, 0.1611), (1, 29, 0.0061, 0.1718)],
)
def test_wilson_matches_newcombe_and_scipy(successes: int, n: int, low: float, high: float) -> None:
    ci = wilson_interval(successes, n)
    assert ci is not None
    assert (round(ci.low, 4), round(ci.high, 4)) == (low, high)  # Newcombe (1998), table I
    reference = binomtest(successes, n).proportion_ci(confidence_level=0.95, method="wilson")
    assert ci.low == pytest.approx(reference.low, abs=1e-12) and ci.high == pytest.approx(reference.high, abs=1e-12)


def test_wilson_over_nothing_is_undefined_and_bad_counts_are_refused() -> None:
    assert wilson_interval(0, 0) is None
    with pytest.raises(StatInputError, match="0 <= successes <= n"):
        wilson_interval(5, 4)


def test_sensitivity_and_specificity_by_hand() -> None:
    # expert:  P  P  P  P  F  F  F
    # judge:   P  P  P  F  P  F  F   -> 3 true passes, 1 false fail, 1 false pass, 2 true fails
    expert = [True, True, True, True, False, False, False]
    judge = [True, True, True, False, True, False, False]
    result = gate_diagnostic(judge, expert)
    assert (result.true_pass, result.false_fail, result.false_pass, result.true_fail) == (3, 1, 1, 2)
    assert (result.sensitivity.successes, result.sensitivity.n, result.sensitivity.rate) == (3, 4, 0.75)
    assert (result.specificity.successes, result.specificity.n) == (2, 3)
    assert result.specificity.rate == pytest.approx(2 / 3)
    assert result.sensitivity.ci == wilson_interval(3, 4) and result.specificity.ci == wilson_interval(2, 3)


def test_a_judge_that_passes_everything_has_no_specificity() -> None:
    result = gate_diagnostic([True] * 4, [True, True, False, False])
    assert result.sensitivity.rate == 1.0 and result.specificity.rate == 0.0
    only_passes = gate_diagnostic([True, False], [True, True])
    assert only_passes.specificity.rate is None and only_passes.specificity.ci is None  # no expert fail to test on
    with pytest.raises(StatInputError, match="differ in length"):
        gate_diagnostic([True], [True, False])
