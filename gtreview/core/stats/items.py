"""Item analysis of a question set, from classical test theory.

Respondents are the model x repeat samples of a pass: the input is (Q questions, R
respondents) of totals, e.g. ``np.hstack([base, finetune_1, ...])`` of (Q, K) matrices.
It tells the domain expert which questions carry information: one everybody aces or
fails (difficulty near 1 or 0) or one whose score runs against the rest (discrimination
near or below 0) separates nothing. Cronbach's alpha says whether the set as a whole
ranks samples consistently.

Missing values (unscored samples, NaN): every statistic but difficulty needs a complete
matrix, and the two deletion rules are offered. The default, ``"drop_items"``, leaves out
questions that have an unscored sample: a pass has few respondents and many questions,
so one rare NaN costs a question, where dropping respondents would lose a whole
model-repeat for every NaN it holds (most of them, on a few hundred questions).
``"drop_respondents"`` is the textbook listwise deletion, for sets with few questions.
Pairwise deletion is not offered: the covariance it yields need not be positive
semi-definite, and alpha from it can leave [0, 1] for no reason in the data.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import numpy.typing as npt

from gtreview.core.stats.base import (
    FloatArray,
    Interval,
    Seed,
    StatModel,
    as_matrix,
    bootstrap_weights,
    opt,
    percentile_interval,
    rng_from,
    row_means,
)

Missing = Literal["drop_items", "drop_respondents"]


class ItemStat(StatModel):
    """One question: difficulty in [0, 1] and corrected item-total correlation."""

    index: int
    difficulty: float | None  # mean score / max score over its scored samples (all of them)
    discrimination: float | None  # None: left out, or a constant item or rest score
    n: int  # scored samples
    included: bool  # used in the complete matrix (discrimination and alpha)


class ItemAnalysis(StatModel):
    items: list[ItemStat]
    alpha: float | None
    alpha_ci: Interval | None  # percentile bootstrap over respondents
    n_items: int  # questions in the complete matrix
    n_respondents: int  # respondents in the complete matrix
    n_items_dropped: int
    n_respondents_dropped: int
    missing: Missing


def _constant(columns: FloatArray) -> npt.NDArray[np.bool_]:
    """Columns whose values are equal up to summation rounding."""
    spread = np.ptp(columns, axis=0)
    return np.asarray(spread <= 1e-9 * np.maximum(np.abs(columns).max(axis=0), 1.0))


def _column_correlation(x: FloatArray, y: FloatArray) -> FloatArray:
    """Pearson correlation of matching columns; NaN where either column is constant."""
    xc, yc = x - x.mean(axis=0), y - y.mean(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (xc * yc).sum(axis=0) / np.sqrt((xc * xc).sum(axis=0) * (yc * yc).sum(axis=0))
    return np.where(_constant(x) | _constant(y), np.nan, np.clip(r, -1.0, 1.0))


def _alpha(variance_sum: FloatArray, total_variance: FloatArray, k: int) -> FloatArray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total_variance > 0, k / (k - 1) * (1 - variance_sum / total_variance), np.nan)


def cronbach_alpha(respondents_by_items: npt.ArrayLike) -> float | None:
    """Alpha of a complete (respondents, items) matrix; None below two items or two
    respondents, or when every respondent has the same total."""
    x = np.asarray(respondents_by_items, dtype=np.float64)
    n, k = x.shape
    if k < 2 or n < 2 or np.isnan(x).any():
        return None
    variances = x.var(axis=0, ddof=1).sum()
    return opt(_alpha(np.asarray(variances), np.asarray(x.sum(axis=1).var(ddof=1)), k))


def _alpha_interval(x: FloatArray, n_boot: int, rng: np.random.Generator) -> Interval | None:
    """Bootstrap alpha over respondents with resampling counts as weights: two matrix
    products per statistic instead of materialising n_boot resampled matrices."""
    n, k = x.shape
    if n < 2 or k < 2 or n_boot < 1:
        return None
    w = bootstrap_weights(n, n_boot=n_boot, rng=rng)
    total = x.sum(axis=1)

    def variance(sums: FloatArray, squares: FloatArray) -> FloatArray:
        spread: FloatArray = np.maximum(squares - sums * sums / n, 0.0) / (n - 1)
        return spread

    item_var = variance(w @ x, w @ (x * x)).sum(axis=1)
    total_var = variance(w @ total, w @ (total * total))
    # A replicate whose totals are all equal up to rounding has no alpha.
    total_var = np.where(total_var <= 1e-12 * max(1.0, float((total * total).mean())), 0.0, total_var)
    return percentile_interval(_alpha(item_var, total_var, k))


def item_analysis(
    matrix: npt.ArrayLike,
    *,
    max_score: float = 10.0,
    missing: Missing = "drop_items",
    n_boot: int = 2000,
    seed: Seed = 0,
) -> ItemAnalysis:
    """Difficulty and discrimination per question, Cronbach's alpha for the set.

    ``matrix`` is (Q questions, R respondents), NaN for unscored samples and errors as 0.
    Discrimination is the corrected item-total correlation: the question's scores
    against the total of the *other* included questions across respondents (correcting
    for the item's own share of the total, which would inflate it). The alpha interval
    resamples respondents; the repeats of one model are not independent, so read it
    as a lower bound on the uncertainty.
    """
    data = as_matrix(matrix, name="matrix")
    means, counts = row_means(data)
    complete_items = np.isnan(data).sum(axis=1) == 0
    complete_resp = np.isnan(data).sum(axis=0) == 0
    keep_items: npt.NDArray[np.bool_]
    keep_resp: npt.NDArray[np.bool_]
    if missing == "drop_items":
        keep_items, keep_resp = complete_items, np.ones(data.shape[1], bool)
    elif missing == "drop_respondents":
        keep_items, keep_resp = np.ones(data.shape[0], bool), complete_resp
    else:
        raise ValueError(f"unknown missing-data rule {missing!r}")
    x = data[np.ix_(keep_items, keep_resp)].T  # respondents x items, complete
    n_resp, n_items = x.shape

    discrimination = np.full(data.shape[0], np.nan)
    if n_resp >= 2 and n_items >= 2:
        rest = x.sum(axis=1)[:, None] - x
        discrimination[keep_items] = _column_correlation(x, rest)

    return ItemAnalysis(
        items=[
            ItemStat(
                index=i,
                difficulty=opt(means[i] / max_score),
                discrimination=opt(discrimination[i]),
                n=int(counts[i]),
                included=bool(keep_items[i]) and n_resp > 0,
            )
            for i in range(data.shape[0])
        ],
        alpha=cronbach_alpha(x),
        alpha_ci=_alpha_interval(x, n_boot, rng_from(seed)),
        n_items=n_items if n_resp else 0,
        n_respondents=n_resp if n_items else 0,
        n_items_dropped=int((~keep_items).sum()),
        n_respondents_dropped=int((~keep_resp).sum()),
        missing=missing,
    )
