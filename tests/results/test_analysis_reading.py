"""The plain learned-or-recited reading of a fine-tune's component-kind differences: a kind
whose differences do not vary (every answer at a floor, or the same for both) is "no
variation", never "within noise"."""

from __future__ import annotations

import numpy as np

from gtreview.core.stats import paired_difference
from gtreview.results.analysis import reading

RNG = np.random.default_rng(4)
VARIED = RNG.integers(0, 5, (20, 2)).astype(float)
NOISY = paired_difference(VARIED + RNG.integers(-1, 2, (20, 2)), VARIED)
BETTER = paired_difference(VARIED + 2 + RNG.integers(0, 2, (20, 2)), VARIED)
FLOOR = paired_difference(np.zeros((20, 2)), np.zeros((20, 2)))


def test_kinds_at_a_floor_read_no_variation() -> None:
    assert (NOISY.verdict, BETTER.verdict, FLOOR.verdict) == ("within noise", "fine-tune better", "no variation")
    assert reading({"binary": FLOOR, "reasoning": FLOOR}) == "no variation"
    assert reading({"reasoning": FLOOR}) == "no variation"  # no binary facts in these questions
    assert reading({"binary": FLOOR, "reasoning": NOISY}) == "within noise"  # reasoning did vary
    assert reading({"binary": BETTER, "reasoning": FLOOR}) == "recites more, reasons no better"
    assert reading({}) == "insufficient data"
