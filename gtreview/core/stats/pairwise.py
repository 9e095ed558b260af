"""Pairwise verdicts (fine-tune as A against base as B) and their agreement with scores.

An unknown pair (a verdict that could not be parsed in either order) is counted apart
and never folded into the ties: a judge that fails to answer has not said the two
answers are equally good.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from gtreview.core.pairwise import PairLabel
from gtreview.core.stats.base import Interval, Seed, StatModel, bootstrap_mean, opt, rng_from

TIE_TOLERANCE = 0.25
"""Half-width of the band around 0 that counts as "no preference" in ``agreement``."""

_WINS = frozenset({PairLabel.A_MUCH_BETTER, PairLabel.A_BETTER})
_LOSSES = frozenset({PairLabel.B_MUCH_BETTER, PairLabel.B_BETTER})


class PairwiseSummary(StatModel):
    """Counts and rates of one fine-tune's pairwise comparisons with the base.

    Rates are shares of the known pairs (None when there are none). ``mean_average`` is
    the mean reconciled score in [-2, 2] (positive: the fine-tune is preferred) with a
    bootstrap interval; ``position_bias_rate`` is the share of known pairs whose winner
    flipped with the answer order.
    """

    n_pairs: int
    wins: int  # A>>B and A>B
    strong_wins: int  # A>>B
    ties: int
    losses: int  # B>A and B>>A
    strong_losses: int  # B>>A
    unknown: int
    n_known: int
    win_rate: float | None
    tie_rate: float | None
    loss_rate: float | None
    mean_average: float | None
    ci: Interval | None
    n_inconsistent: int
    position_bias_rate: float | None


def pairwise_summary(
    labels: Sequence[str],
    averages: Sequence[float | None],
    inconsistent: Sequence[bool],
    *,
    question_ids: Sequence[object] | None = None,
    n_boot: int = 2000,
    seed: Seed = 0,
) -> PairwiseSummary:
    """Summarise reconciled pairs, one entry per (question, sample) pair.

    Without ``question_ids`` each pair is its own resampling unit. The K pairs of one
    question are not independent, though, so pass ``question_ids`` (any hashable per
    pair) to resample questions: the mean is then the mean over questions of their
    mean known average, like every other figure in the product.
    """
    n = len(labels)
    if len(averages) != n or len(inconsistent) != n:
        raise ValueError("labels, averages and inconsistent flags must have the same length")
    parsed = [PairLabel(label) for label in labels]
    known = np.array([label is not PairLabel.UNKNOWN for label in parsed], dtype=bool)
    values = np.array([np.nan if a is None else float(a) for a in averages], dtype=np.float64)
    if (known == np.isnan(values)).any():  # an unknown pair has no average, a known one has
        bad = int(np.flatnonzero(known == np.isnan(values))[0])
        raise ValueError(f"pair {bad} labelled {parsed[bad].value!r} with average {averages[bad]!r}")
    if (np.abs(values[known]) > 2).any():
        raise ValueError("pairwise averages lie in [-2, 2]")
    counts = {label: parsed.count(label) for label in PairLabel}
    n_known = int(known.sum())
    wins = counts[PairLabel.A_MUCH_BETTER] + counts[PairLabel.A_BETTER]
    losses = counts[PairLabel.B_MUCH_BETTER] + counts[PairLabel.B_BETTER]
    n_inconsistent = int(np.asarray(inconsistent, dtype=bool)[known].sum())

    if question_ids is None:
        units = values[known]
    else:
        if len(question_ids) != n:
            raise ValueError("one question id per pair")
        index = {q: i for i, q in enumerate(dict.fromkeys(question_ids))}
        of_pair = np.array([index[q] for q in question_ids], dtype=np.int64)[known]
        sums = np.bincount(of_pair, weights=values[known], minlength=len(index))
        per_question = np.bincount(of_pair, minlength=len(index))
        units = sums[per_question > 0] / per_question[per_question > 0]

    def share(count: int) -> float | None:
        return count / n_known if n_known else None

    return PairwiseSummary(
        n_pairs=n,
        wins=wins,
        strong_wins=counts[PairLabel.A_MUCH_BETTER],
        ties=counts[PairLabel.TIE],
        losses=losses,
        strong_losses=counts[PairLabel.B_MUCH_BETTER],
        unknown=counts[PairLabel.UNKNOWN],
        n_known=n_known,
        win_rate=share(wins),
        tie_rate=share(counts[PairLabel.TIE]),
        loss_rate=share(losses),
        mean_average=opt(units.mean()) if units.size else None,
        ci=bootstrap_mean(units, n_boot=n_boot, rng=rng_from(seed)),
        n_inconsistent=n_inconsistent,
        position_bias_rate=share(n_inconsistent),
    )


class QuestionAgreement(StatModel):
    """Direction of each method on one question: +1 fine-tune, -1 base, 0 no preference."""

    index: int
    pointwise: int | None
    pairwise: int | None
    agree: bool | None  # None when either method has no value for the question


class Agreement(StatModel):
    """Whether pointwise scores and pairwise verdicts point the same way, per question."""

    questions: list[QuestionAgreement]
    n_compared: int
    n_agree: int
    rate: float | None
    disagreeing: list[int]  # question indices
    tolerance_pointwise: float
    tolerance_pairwise: float


def _direction(value: float | None, tolerance: float) -> int | None:
    if value is None or np.isnan(value):
        return None
    return 0 if abs(value) <= tolerance else (1 if value > 0 else -1)


def agreement(
    pointwise_diff_per_question: Sequence[float],
    pairwise_mean_per_question: Sequence[float | None],
    *,
    pointwise_tolerance: float = TIE_TOLERANCE,
    pairwise_tolerance: float = TIE_TOLERANCE,
) -> Agreement:
    """Per question, do the two judging methods prefer the same model?

    The rule: each value is read as a direction, +1 above its tolerance, -1 below minus
    its tolerance, and 0 (no preference) within it, bounds included. Two directions
    agree when they are equal, so two near-zero values agree with each other, while a
    near-zero value and a clear preference disagree. A question with no pointwise
    difference (NaN) or no pairwise mean (None, all pairs unknown) is not compared and
    is left out of the rate. The tolerances are separate because the scales differ
    (points out of 10 against a verdict score in [-2, 2]); both default to 0.25.
    """
    if len(pointwise_diff_per_question) != len(pairwise_mean_per_question):
        raise ValueError("one pointwise difference and one pairwise mean per question")
    rows: list[QuestionAgreement] = []
    for i, (diff, pair) in enumerate(zip(pointwise_diff_per_question, pairwise_mean_per_question, strict=True)):
        point_dir = _direction(diff, pointwise_tolerance)
        pair_dir = _direction(pair, pairwise_tolerance)
        same = None if point_dir is None or pair_dir is None else point_dir == pair_dir
        rows.append(QuestionAgreement(index=i, pointwise=point_dir, pairwise=pair_dir, agree=same))
    compared = [row for row in rows if row.agree is not None]
    n_agree = sum(1 for row in compared if row.agree)
    return Agreement(
        questions=rows,
        n_compared=len(compared),
        n_agree=n_agree,
        rate=n_agree / len(compared) if compared else None,
        disagreeing=[row.index for row in compared if not row.agree],
        tolerance_pointwise=pointwise_tolerance,
        tolerance_pairwise=pairwise_tolerance,
    )
