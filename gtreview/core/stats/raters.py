"""How far the LLM judge can be trusted: its agreement with a domain expert, and the
experts' agreement with each other.

An expert grades a sample of real answers blind, in the judge's component form: a gate
(passed / failed) and integer component awards summing to a total in 0..10. Four views
of the comparison are offered, because each hides something the others show:

* **Chance-corrected agreement.** Cohen's kappa for the gate (nominal), weighted kappa
  for totals (a 7 against an 8 is a near miss, a 2 against a 9 is not), and
  Krippendorff's alpha, which takes any number of coders and missing grades.
* **Size and direction** of the differences in points: mean absolute difference,
  exact-match rate and the mean signed difference judge − expert (positive: the judge
  is lenient), the one a reader acts on ("the judge gives 0.8 points too many").
* **Where** they differ: per rubric component, and the questions with the largest
  differences, to read by hand.
* **Between experts**: if experts do not agree with each other, the judge cannot be
  expected to do better, so their agreement is the ceiling to read the judge against.

Conventions, as in the rest of ``gtreview.core.stats``: undefined values are
None (kappa when both raters are constant at the same category, alpha when all values
are equal, anything over no pairs), results are frozen models that refuse NaN, and
intervals are 95% percentile bootstraps with an explicit ``seed``. The resampling unit
is the graded answer unless ``question_ids`` are given; several answers to one
question are not independent evidence, so pass them when the sample holds repeats.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Literal

import numpy as np
import numpy.typing as npt

from gtreview.core.stats.base import (
    FloatArray,
    Interval,
    Seed,
    StatModel,
    bootstrap_weights,
    opt,
    percentile_interval,
    rng_from,
)

Label = bool | int | str
KappaWeights = Literal["linear", "quadratic"]
AlphaLevel = Literal["nominal", "ordinal", "interval"]

TOTAL_CATEGORIES = range(0, 11)
"""The scale of a judged total: integer points 0..10."""

_CHUNK_CELLS = 1 << 22  # bound on the cells of one block of bootstrap work (about 32 MB of floats)
_IntArray = npt.NDArray[np.int64]


# --------------------------------------------------------------------------- results


class KappaResult(StatModel):
    """Cohen's kappa, plain (``weights="none"``) or weighted, of two raters.

    ``observed`` and ``expected`` are the (weighted) agreement proportions, 1 minus the
    mean disagreement weight of the observed table and of the table chance would give
    with the same marginals; kappa = (observed − expected) / (1 − expected). Weighted
    disagreement weights are scaled to 1 at the two ends of the category list, so the
    weighted proportions depend on the categories given, kappa does not.

    kappa is None when expected agreement is 1: both raters constant at the same
    category. Nothing varied, so there is no evidence either way about the raters,
    although they agreed on every item (``observed`` is then 1.0). Two raters constant at
    *different* categories are defined: observed = expected = 0, kappa = 0.
    """

    kappa: float | None
    observed: float | None
    expected: float | None
    n: int
    weights: Literal["none", "linear", "quadratic"]
    ci: Interval | None = None  # filled where the caller asked for a bootstrap (total_agreement)


class AlphaResult(StatModel):
    """Krippendorff's alpha = 1 − D_o / D_e over the pairable values.

    ``observed_disagreement`` (D_o) is the mean difference function within units,
    ``expected_disagreement`` (D_e) the same over all pairs of pairable values regardless
    of unit. alpha is None when D_e is 0 (every pairable value equal) or there are no
    pairable values. 1 is perfect agreement, 0 agreement at chance, below 0 systematic
    disagreement. With a single pairable unit every pair lies within it, D_o = D_e and
    alpha is 0: one unit cannot tell agreement from chance (its interval is None).
    """

    alpha: float | None
    level: AlphaLevel
    observed_disagreement: float | None
    expected_disagreement: float | None
    n_units: int  # units with two or more values (pairable)
    n_values: int  # values in those units
    n_units_dropped: int  # units with fewer than two values: they carry no comparison
    ci: Interval | None


class TotalAgreement(StatModel):
    """Judge against expert on the total of each answer graded by both.

    ``mean_signed_difference`` is judge − expert: positive means the judge is lenient.
    Intervals share one set of bootstrap replicates (answers, or questions when
    ``question_ids`` were given).
    """

    n: int  # answers with both totals
    n_missing: int  # answers left out because one of the two totals is None
    kappa: KappaResult  # weighted kappa on the 0..10 scale, with its interval
    alpha: AlphaResult  # Krippendorff's interval alpha, judge and expert as two coders
    mad: float | None
    mad_ci: Interval | None
    exact_match_rate: float | None
    mean_signed_difference: float | None
    msd_ci: Interval | None


class ComponentAgreement(StatModel):
    """Judge against expert on one rubric component, over answers where both awarded it.

    ``mad_share`` is the mean of |judge − expert| / component maximum, so components
    worth 1 and worth 4 points can be compared. ``n_unpaired`` counts answers where only
    one of the two awarded the component (e.g. one of them failed the gate and awarded
    nothing); they are not in the rates.
    """

    component_id: str
    n: int
    n_unpaired: int
    exact_rate: float | None
    mad: float | None
    mad_share: float | None
    mean_signed_difference: float | None  # judge − expert


class QuestionDisagreement(StatModel):
    """One question's graded answers: how far judge and expert totals lie apart."""

    question_id: str
    n: int  # graded answers of the question
    mad: float
    mean_signed_difference: float  # judge − expert
    max_abs_difference: float


class RaterPair(StatModel):
    """Two raters over the answers both graded."""

    rater_a: str
    rater_b: str
    n: int
    gate_kappa: KappaResult  # Cohen's kappa on passed / failed
    total_kappa: KappaResult  # quadratic weighted kappa on the 0..10 totals
    mad: float | None
    mean_signed_difference: float | None  # a − b


class InterRater(StatModel):
    """Agreement among experts who graded (some of) the same answers."""

    raters: list[str]
    n_answers: int  # answers graded by at least one rater
    pairs: list[RaterPair]  # every pair of raters, in the order the raters were given
    total_alpha: AlphaResult  # interval alpha on totals across all raters
    gate_alpha: AlphaResult  # nominal alpha on the gate across all raters


# --------------------------------------------------------------------------- kappa


def _kappa_from_tables(tables: FloatArray, disagreement: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Kappa, observed and expected agreement of each (B, V, V) contingency table.

    NaN where undefined: an empty table, or expected disagreement 0 (both marginals
    on one and the same category, where the products below are exactly 0).
    """
    n = tables.sum(axis=(1, 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        p = tables / n[:, None, None]
        rows, cols = p.sum(axis=2), p.sum(axis=1)
        d_obs = np.einsum("bij,ij->b", p, disagreement)
        d_exp = np.einsum("bi,ij,bj->b", rows, disagreement, cols)
        kappa = np.where(d_exp > 1e-12, 1.0 - d_obs / d_exp, np.nan)
    return kappa, 1.0 - d_obs, 1.0 - d_exp


def _table(codes_a: _IntArray, codes_b: _IntArray, size: int) -> FloatArray:
    counts = np.bincount(codes_a * size + codes_b, minlength=size * size)
    return counts.reshape(1, size, size).astype(np.float64)


def _kappa_result(
    table: FloatArray, disagreement: FloatArray, weights: Literal["none", "linear", "quadratic"]
) -> KappaResult:
    kappa, observed, expected = _kappa_from_tables(table, disagreement)
    return KappaResult(
        kappa=opt(kappa[0]),
        observed=opt(observed[0]),
        expected=opt(expected[0]),
        n=int(table.sum()),
        weights=weights,
    )


def _check_lengths(a: Sequence[object], b: Sequence[object], what: str = "ratings") -> None:
    if len(a) != len(b):
        raise ValueError(f"the two raters must give the same number of {what}: {len(a)} against {len(b)}")


def cohens_kappa(a: Sequence[Label], b: Sequence[Label]) -> KappaResult:
    """Cohen's kappa of two raters on nominal labels (e.g. the gate, passed / failed).

    Categories are the labels either rater used, compared by equality: ``True`` and
    ``1`` are the same label, as Python's dict keys are. See :class:`KappaResult` for
    the undefined case (both raters constant at the same label: kappa None, observed 1).
    """
    _check_lengths(a, b)
    index: dict[Label, int] = {}
    for label in (*a, *b):
        index.setdefault(label, len(index))
    size = max(len(index), 1)
    codes_a = np.array([index[x] for x in a], dtype=np.int64)
    codes_b = np.array([index[x] for x in b], dtype=np.int64)
    return _kappa_result(_table(codes_a, codes_b, size), 1.0 - np.eye(size), "none")


def _disagreement_weights(size: int, weights: KappaWeights) -> FloatArray:
    """Disagreement between category positions, 0 on the diagonal and 1 at the far ends."""
    position = np.arange(size, dtype=np.float64)
    distance = np.abs(position[:, None] - position[None, :]) / max(size - 1, 1)
    if weights == "linear":
        return distance
    if weights == "quadratic":
        squared: FloatArray = distance * distance
        return squared
    raise ValueError(f"unknown kappa weights {weights!r}; use 'linear' or 'quadratic'")


def _category_codes(values: Sequence[int], categories: Sequence[int], who: str) -> _IntArray:
    index = {category: i for i, category in enumerate(categories)}
    try:
        return np.array([index[v] for v in values], dtype=np.int64)
    except (KeyError, TypeError):
        bad = next(v for v in values if not _hashable_in(v, index))
        raise ValueError(f"{who} gave {bad!r}, which is not one of the categories {list(categories)}") from None


def _hashable_in(value: object, index: Mapping[int, int]) -> bool:
    try:
        return value in index
    except TypeError:
        return False


def weighted_kappa(
    a: Sequence[int],
    b: Sequence[int],
    *,
    categories: Sequence[int] = TOTAL_CATEGORIES,
    weights: KappaWeights = "quadratic",
) -> KappaResult:
    """Weighted kappa of two raters on an ordered scale (totals 0..10 by default).

    Disagreement grows with the distance between the *positions* of the two categories
    in ``categories`` (for 0..10 the positions are the points): linearly, or with its
    square, which is the usual choice for scores and equals an intraclass correlation
    in large samples. Every category counts, used or not, so the weights do not change
    with the sample; sklearn's ``cohen_kappa_score(a, b, labels=categories,
    weights=...)`` gives the same kappa. A value outside ``categories`` is an error.
    """
    _check_lengths(a, b)
    categories = list(categories)
    if len(set(categories)) != len(categories) or not categories:
        raise ValueError("categories must be distinct and not empty")
    disagreement = _disagreement_weights(len(categories), weights)
    codes_a = _category_codes(a, categories, "rater a")
    codes_b = _category_codes(b, categories, "rater b")
    return _kappa_result(_table(codes_a, codes_b, len(categories)), disagreement, weights)


# --------------------------------------------------------------------------- alpha


def _reliability_matrix(units: Sequence[Sequence[float | None]]) -> FloatArray:
    """(units, coders) floats, NaN where a coder gave no value; ragged rows are padded.

    Which coder gave a value does not enter alpha (only the values within each unit
    do), so a short row simply has fewer coders.
    """
    rows = [list(unit) for unit in units]
    width = max((len(row) for row in rows), default=0)
    matrix = np.full((len(rows), width), np.nan)
    for i, row in enumerate(rows):
        matrix[i, : len(row)] = [np.nan if value is None else float(value) for value in row]
    if np.isinf(matrix).any():
        raise ValueError("reliability data hold infinite values; a missing value is None")
    return matrix


def _pairwise_sum(values: FloatArray, present: npt.NDArray[np.bool_], level: AlphaLevel) -> FloatArray:
    """Per unit (last two axes: unit, coder) the sum over ordered pairs of its values of
    the difference function: 1 for unequal values (nominal), squared difference
    (interval; ordinal after the values were replaced by their midranks).

    Pair by pair, not from sums of squares, so that equal values contribute exactly 0
    and perfect agreement gives alpha exactly 1.
    """
    total = np.zeros(values.shape[:-1])
    for i, j in combinations(range(values.shape[-1]), 2):
        both = present[:, i] & present[:, j]
        if level == "nominal":
            diff = (values[..., i] != values[..., j]).astype(np.float64)
        else:
            delta = values[..., i] - values[..., j]
            diff = delta * delta
        total += np.where(both, diff, 0.0)
    return 2.0 * total


def _alpha_replicates(
    data: FloatArray, level: AlphaLevel, unit_weights: FloatArray
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """alpha, D_o and D_e for each row of ``unit_weights`` (B, U): how often each
    pairable unit of ``data`` (U, C) counts. Row of ones: the estimate itself.

    From the coincidence matrix: sum_ck o_ck delta_ck = sum_u (pairs in u) / (m_u − 1)
    and sum_ck n_c n_k delta_ck over the value marginals n_c = sum_u n_uc; the ordinal
    difference delta_ck = (sum_{g=c..k} n_g − (n_c + n_k)/2)^2 is the squared difference
    of midranks cum_c − n_c/2, which lets all three levels share the interval algebra.
    Resampling changes the marginals, so ordinal midranks are recomputed per replicate.
    """
    present = ~np.isnan(data)
    m = present.sum(axis=1).astype(np.float64)
    n = unit_weights @ m
    if level == "interval":
        centred = np.where(present, data - data[present].mean(), 0.0)
        within = unit_weights @ (_pairwise_sum(centred, present, level) / (m - 1))
        t1, t2 = unit_weights @ centred.sum(axis=1), unit_weights @ (centred * centred).sum(axis=1)
        between = 2.0 * (n * t2 - t1 * t1)
        between = np.where(between <= 1e-9 * n * t2, 0.0, between)  # equal values, up to rounding
    else:
        values, codes = np.unique(data[present], return_inverse=True)
        code_matrix = np.zeros(data.shape, dtype=np.int64)
        code_matrix[present] = codes
        counts = np.zeros((data.shape[0], values.size))
        np.add.at(counts, (np.nonzero(present)[0], codes), 1.0)
        if level == "nominal":
            within = unit_weights @ (_pairwise_sum(code_matrix.astype(np.float64), present, level) / (m - 1))
            marginals = unit_weights @ counts
            between = n * n - (marginals * marginals).sum(axis=1)
        elif level == "ordinal":
            within, between = _ordinal_sums(code_matrix, present, m, counts, unit_weights, n)
        else:
            raise ValueError(f"unknown alpha level {level!r}; use 'nominal', 'ordinal' or 'interval'")
    with np.errstate(invalid="ignore", divide="ignore"):
        d_obs = within / n
        d_exp = between / (n * (n - 1))
        alpha = np.where(d_exp > 0, 1.0 - d_obs / d_exp, np.nan)
    return alpha, d_obs, d_exp


def _ordinal_sums(
    code_matrix: _IntArray,
    present: npt.NDArray[np.bool_],
    m: FloatArray,
    counts: FloatArray,
    unit_weights: FloatArray,
    n: FloatArray,
) -> tuple[FloatArray, FloatArray]:
    """Within- and between-unit sums of the ordinal metric, in blocks of replicates."""
    n_units, n_coders = code_matrix.shape
    n_rep = unit_weights.shape[0]
    within, between = np.empty(n_rep), np.empty(n_rep)
    block = max(1, _CHUNK_CELLS // max(1, n_units * n_coders + counts.shape[1]))
    for start in range(0, n_rep, block):
        w = unit_weights[start : start + block]
        marginals = w @ counts  # (b, V)
        mid = np.cumsum(marginals, axis=1) - marginals / 2.0
        ranks = mid[:, code_matrix]  # (b, U, C)
        pairs = _pairwise_sum(ranks, present, "ordinal")  # (b, U)
        within[start : start + block] = (w * (pairs / (m - 1))).sum(axis=1)
        t1 = (marginals * mid).sum(axis=1)
        t2 = (marginals * mid * mid).sum(axis=1)
        between[start : start + block] = 2.0 * (n[start : start + block] * t2 - t1 * t1)
    return within, between


def _cluster_index(question_ids: Sequence[object] | None, n_units: int) -> _IntArray:
    """Resampling cluster of each unit: its question, or the unit itself."""
    if question_ids is None:
        return np.arange(n_units, dtype=np.int64)
    if len(question_ids) != n_units:
        raise ValueError(f"{len(question_ids)} question ids for {n_units} units")
    index = {q: i for i, q in enumerate(dict.fromkeys(question_ids))}
    return np.array([index[q] for q in question_ids], dtype=np.int64)


def _replicate_weights(clusters: _IntArray, n_boot: int, seed: Seed) -> FloatArray | None:
    """(n_boot, units) weights: how often each unit's cluster was drawn. None when
    there are fewer than two clusters (an interval over one would claim false certainty)."""
    if n_boot < 1 or clusters.size == 0:
        return None
    used, clusters = np.unique(clusters, return_inverse=True)
    if used.size < 2:
        return None
    return bootstrap_weights(used.size, n_boot=n_boot, rng=rng_from(seed))[:, clusters]


def _alpha_result(
    matrix: FloatArray,
    level: AlphaLevel,
    *,
    question_ids: Sequence[object] | None,
    n_boot: int,
    seed: Seed,
    replicate_weights: FloatArray | None = None,
) -> AlphaResult:
    """Alpha of a (units, coders) matrix; ``replicate_weights`` over *all* its units,
    if given, replace the bootstrap draw (so callers can share replicates)."""
    if level not in ("nominal", "ordinal", "interval"):
        raise ValueError(f"unknown alpha level {level!r}; use 'nominal', 'ordinal' or 'interval'")
    clusters = _cluster_index(question_ids, matrix.shape[0])
    pairable = (~np.isnan(matrix)).sum(axis=1) >= 2
    data = matrix[pairable]
    n_values = int((~np.isnan(data)).sum())
    if not pairable.any():
        return AlphaResult(
            alpha=None,
            level=level,
            observed_disagreement=None,
            expected_disagreement=None,
            n_units=0,
            n_values=0,
            n_units_dropped=int(matrix.shape[0]),
            ci=None,
        )
    alpha, d_obs, d_exp = _alpha_replicates(data, level, np.ones((1, data.shape[0])))
    if replicate_weights is None:
        replicate_weights = _replicate_weights(clusters[pairable], n_boot, seed)
        weights = replicate_weights
    else:
        weights = replicate_weights[:, pairable]
    ci = None
    if weights is not None and np.unique(clusters[pairable]).size >= 2:
        ci = percentile_interval(_alpha_replicates(data, level, weights)[0])
    return AlphaResult(
        alpha=opt(alpha[0]),
        level=level,
        observed_disagreement=opt(d_obs[0]),
        expected_disagreement=opt(d_exp[0]),
        n_units=int(pairable.sum()),
        n_values=n_values,
        n_units_dropped=int((~pairable).sum()),
        ci=ci,
    )


def krippendorff_alpha(
    units: Sequence[Sequence[float | None]],
    *,
    level: AlphaLevel = "interval",
    n_boot: int = 2000,
    seed: Seed = 0,
    question_ids: Sequence[object] | None = None,
) -> AlphaResult:
    """Krippendorff's alpha of reliability data: one row per unit (graded answer), one
    value per coder (judge, expert 1, expert 2, ...), None where a coder gave none.

    Only pairable values count: a unit with fewer than two values is left out (and
    counted in ``n_units_dropped``), as in Krippendorff (2011). ``level`` picks the
    difference function: ``"nominal"`` (equal or not: the gate), ``"ordinal"`` (ranks
    weighted by how many values lie between), ``"interval"`` (squared difference:
    totals). The interval is a percentile bootstrap over pairable units, or over
    questions when ``question_ids`` (one per unit) are given; ``n_boot=0`` skips it.
    This resamples units, not Krippendorff's own bootstrap of pairable values, so the
    product's intervals all share one rule. Nominal and ordinal levels are meant for
    scales with few distinct values (they tabulate them).
    """
    return _alpha_result(_reliability_matrix(units), level, question_ids=question_ids, n_boot=n_boot, seed=seed)


# --------------------------------------------------------------------------- differences


def _paired_floats(a: Sequence[float | None], b: Sequence[float | None]) -> tuple[FloatArray, FloatArray]:
    """The pairs where both values are known (None and NaN are missing)."""
    _check_lengths(a, b)
    x = np.array([np.nan if v is None else float(v) for v in a], dtype=np.float64)
    y = np.array([np.nan if v is None else float(v) for v in b], dtype=np.float64)
    if np.isinf(x).any() or np.isinf(y).any():
        raise ValueError("ratings hold infinite values; a missing rating is None")
    both = ~np.isnan(x) & ~np.isnan(y)
    return x[both], y[both]


def mean_absolute_difference(a: Sequence[float | None], b: Sequence[float | None]) -> float | None:
    """Mean of |a − b| over the pairs where both are known; None when there are none."""
    x, y = _paired_floats(a, b)
    return float(np.abs(x - y).mean()) if x.size else None


def _ratio_interval(values: FloatArray, weights: FloatArray | None) -> Interval | None:
    """Percentile interval of the mean of ``values`` under resampling ``weights``."""
    if weights is None:
        return None
    if np.ptp(values) == 0:  # exactly, not up to summation rounding
        return Interval(low=float(values[0]), high=float(values[0]))
    with np.errstate(invalid="ignore", divide="ignore"):
        return percentile_interval((weights @ values) / weights.sum(axis=1))


def total_agreement(
    judge_totals: Sequence[int | None],
    expert_totals: Sequence[int | None],
    *,
    question_ids: Sequence[object] | None = None,
    categories: Sequence[int] = TOTAL_CATEGORIES,
    weights: KappaWeights = "quadratic",
    n_boot: int = 2000,
    seed: Seed = 0,
) -> TotalAgreement:
    """Judge against expert on totals, one entry per graded answer.

    An answer with a None total on either side (e.g. the judge broke its contract) is
    left out and counted in ``n_missing``. Every interval comes from the same bootstrap
    replicates over answers, or over questions when ``question_ids`` (one per answer)
    are given, so the intervals of kappa, alpha and the differences are consistent.
    Totals must lie in ``categories`` (0..10).
    """
    _check_lengths(judge_totals, expert_totals, "totals")
    clusters_all = _cluster_index(question_ids, len(judge_totals))
    keep = np.array([j is not None and e is not None for j, e in zip(judge_totals, expert_totals, strict=True)], bool)
    judge = [j for j, k in zip(judge_totals, keep, strict=True) if k and j is not None]
    expert = [e for e, k in zip(expert_totals, keep, strict=True) if k and e is not None]
    clusters = clusters_all[keep]

    categories = list(categories)
    kappa = weighted_kappa(judge, expert, categories=categories, weights=weights)
    x = np.asarray(judge, dtype=np.float64)
    y = np.asarray(expert, dtype=np.float64)
    diff = x - y
    replicates = _replicate_weights(clusters, n_boot, seed)

    if replicates is not None:
        codes_j = _category_codes(judge, categories, "judge")
        codes_e = _category_codes(expert, categories, "expert")
        disagreement = _disagreement_weights(len(categories), weights)
        kappa = kappa.model_copy(update={"ci": _kappa_interval(codes_j, codes_e, disagreement, replicates)})

    pairs = np.column_stack([x, y]) if x.size else np.empty((0, 2))
    alpha = _alpha_result(pairs, "interval", question_ids=None, n_boot=0, seed=seed, replicate_weights=replicates)
    return TotalAgreement(
        n=int(x.size),
        n_missing=int((~keep).sum()),
        kappa=kappa,
        alpha=alpha,
        mad=float(np.abs(diff).mean()) if diff.size else None,
        mad_ci=_ratio_interval(np.abs(diff), replicates),
        exact_match_rate=float((diff == 0).mean()) if diff.size else None,
        mean_signed_difference=float(diff.mean()) if diff.size else None,
        msd_ci=_ratio_interval(diff, replicates),
    )


def _kappa_interval(
    codes_a: _IntArray, codes_b: _IntArray, disagreement: FloatArray, replicates: FloatArray
) -> Interval | None:
    """Percentile interval of kappa over resampled items: each replicate's contingency
    table is its weights times the items' one-hot cells (replicates where kappa is
    undefined, both raters constant at one category, are skipped)."""
    size = disagreement.shape[0]
    cells = np.zeros((codes_a.size, size * size))
    cells[np.arange(codes_a.size), codes_a * size + codes_b] = 1.0
    tables = (replicates @ cells).reshape(-1, size, size)
    return percentile_interval(_kappa_from_tables(tables, disagreement)[0])


def kappa_with_interval(
    a: Sequence[Label],
    b: Sequence[Label],
    *,
    weights: Literal["none", "linear", "quadratic"] = "none",
    categories: Sequence[int] = TOTAL_CATEGORIES,
    question_ids: Sequence[object] | None = None,
    n_boot: int = 2000,
    seed: Seed = 0,
) -> KappaResult:
    """Cohen's kappa (``weights="none"``, nominal labels) or weighted kappa (ordered
    ``categories``) with its percentile bootstrap interval.

    The estimate is :func:`cohens_kappa`'s or :func:`weighted_kappa`'s. The interval
    resamples items, or whole questions when ``question_ids`` (one per item) are given:
    several ratings of one question (its repeats, its components) are not independent
    evidence. It is None below two resampling units, as every interval here.
    """
    _check_lengths(a, b)
    if weights == "none":
        point = cohens_kappa(a, b)
        index: dict[Label, int] = {}
        for label in (*a, *b):
            index.setdefault(label, len(index))
        codes_a = np.array([index[x] for x in a], dtype=np.int64)
        codes_b = np.array([index[x] for x in b], dtype=np.int64)
        disagreement: FloatArray = 1.0 - np.eye(max(len(index), 1))
    else:
        ints_a = [v for v in a if isinstance(v, int) and not isinstance(v, bool)]
        ints_b = [v for v in b if isinstance(v, int) and not isinstance(v, bool)]
        if len(ints_a) != len(a) or len(ints_b) != len(b):
            raise ValueError("weighted kappa needs integer points on both sides, not labels")
        point = weighted_kappa(ints_a, ints_b, categories=categories, weights=weights)
        codes_a = _category_codes(ints_a, list(categories), "rater a")
        codes_b = _category_codes(ints_b, list(categories), "rater b")
        disagreement = _disagreement_weights(len(list(categories)), weights)
    replicates = _replicate_weights(_cluster_index(question_ids, len(a)), n_boot, seed)
    if replicates is None:
        return point
    return point.model_copy(update={"ci": _kappa_interval(codes_a, codes_b, disagreement, replicates)})


def component_agreement(
    judge: Sequence[Mapping[str, int]],
    expert: Sequence[Mapping[str, int]],
    maxima: Sequence[Mapping[str, int]] | Mapping[str, int],
) -> dict[str, ComponentAgreement]:
    """Per component id, judge against expert over the answers where both awarded it.

    One mapping component id → awarded points per graded answer, for each side;
    ``maxima`` gives each component's points available, per answer or one mapping for
    all. Questions have different rubrics, so a component id is pooled across every
    question that uses it: ids unique per question give per-question components, ids
    shared by convention (e.g. ``"gate"``, ``"units"``) pool like with like. Results are
    in order of first appearance. An award outside [0, maximum] is an error.
    """
    _check_lengths(judge, expert, "answers")
    if isinstance(maxima, Mapping):
        per_answer: Sequence[Mapping[str, int]] = [maxima] * len(judge)
    else:
        per_answer = maxima
        if len(per_answer) != len(judge):
            raise ValueError(f"{len(per_answer)} maxima mappings for {len(judge)} answers")

    diffs: dict[str, list[float]] = {}
    shares: dict[str, list[float]] = {}
    unpaired: dict[str, int] = {}
    for i, (j_awards, e_awards, points) in enumerate(zip(judge, expert, per_answer, strict=True)):
        for cid in dict.fromkeys([*j_awards, *e_awards]):
            diffs.setdefault(cid, [])
            shares.setdefault(cid, [])
            unpaired.setdefault(cid, 0)
            if cid not in j_awards or cid not in e_awards:
                unpaired[cid] += 1
                continue
            top = points.get(cid)
            if top is None or top <= 0:
                raise ValueError(f"answer {i}: component {cid!r} has no positive maximum")
            j_value, e_value = j_awards[cid], e_awards[cid]
            if not (0 <= j_value <= top and 0 <= e_value <= top):
                raise ValueError(f"answer {i}: component {cid!r} awards {j_value} / {e_value} outside [0, {top}]")
            diffs[cid].append(float(j_value - e_value))
            shares[cid].append(abs(j_value - e_value) / top)

    result: dict[str, ComponentAgreement] = {}
    for cid, values in diffs.items():
        d = np.asarray(values, dtype=np.float64)
        result[cid] = ComponentAgreement(
            component_id=cid,
            n=int(d.size),
            n_unpaired=unpaired[cid],
            exact_rate=float((d == 0).mean()) if d.size else None,
            mad=float(np.abs(d).mean()) if d.size else None,
            mad_share=float(np.mean(shares[cid])) if d.size else None,
            mean_signed_difference=float(d.mean()) if d.size else None,
        )
    return result


def most_disagreeing(items: Sequence[tuple[str, float, float]], top: int | None = 10) -> list[QuestionDisagreement]:
    """Questions ranked by the mean |judge − expert| total over their graded answers.

    Each item is (question_id, judge_total, expert_total) for one graded answer. Ties
    go to the question with more graded answers (more evidence), then by id, so the
    order is stable. ``top=None`` returns every question.
    """
    ids: dict[str, int] = {}
    for question_id, _, _ in items:
        ids.setdefault(question_id, len(ids))
    if not ids:
        return []
    of_item = np.array([ids[q] for q, _, _ in items], dtype=np.int64)
    diff = np.array([float(j) - float(e) for _, j, e in items], dtype=np.float64)
    if not np.isfinite(diff).all():
        raise ValueError("totals must be finite numbers; leave out answers without both totals")
    counts = np.bincount(of_item, minlength=len(ids))
    mad = np.bincount(of_item, weights=np.abs(diff), minlength=len(ids)) / counts
    msd = np.bincount(of_item, weights=diff, minlength=len(ids)) / counts
    worst = np.zeros(len(ids))
    np.maximum.at(worst, of_item, np.abs(diff))
    names = list(ids)
    order = sorted(range(len(ids)), key=lambda i: (-mad[i], -counts[i], names[i]))
    if top is not None:
        order = order[: max(top, 0)]
    return [
        QuestionDisagreement(
            question_id=names[i],
            n=int(counts[i]),
            mad=float(mad[i]),
            mean_signed_difference=float(msd[i]),
            max_abs_difference=float(worst[i]),
        )
        for i in order
    ]


# --------------------------------------------------------------------------- experts


def inter_rater(
    grades_by_expert: Mapping[str, Mapping[str, tuple[bool, int]]],
    *,
    n_boot: int = 2000,
    seed: Seed = 0,
) -> InterRater:
    """Agreement among two or more experts: answer key → (gate passed, total 0..10).

    Every pair of experts is compared over the answers both graded: Cohen's kappa on
    the gate, quadratic weighted kappa on totals, and the point differences. Alpha
    (interval on totals, nominal on the gate) takes all experts at once, with each
    answer a unit and each expert a coder; answers graded by one expert only are left
    out of it (not pairable), and the bootstrap resamples answers.
    """
    raters = list(grades_by_expert)
    if len(raters) < 2:
        raise ValueError(f"inter-rater agreement needs two or more experts, got {len(raters)}")
    answers = list(dict.fromkeys(key for rater in raters for key in grades_by_expert[rater]))

    pairs: list[RaterPair] = []
    for rater_a, rater_b in combinations(raters, 2):
        grades_a, grades_b = grades_by_expert[rater_a], grades_by_expert[rater_b]
        shared = [key for key in grades_a if key in grades_b]
        totals_a = [grades_a[key][1] for key in shared]
        totals_b = [grades_b[key][1] for key in shared]
        diff = np.asarray(totals_a, dtype=np.float64) - np.asarray(totals_b, dtype=np.float64)
        pairs.append(
            RaterPair(
                rater_a=rater_a,
                rater_b=rater_b,
                n=len(shared),
                gate_kappa=cohens_kappa([bool(grades_a[k][0]) for k in shared], [bool(grades_b[k][0]) for k in shared]),
                total_kappa=weighted_kappa(totals_a, totals_b),
                mad=float(np.abs(diff).mean()) if diff.size else None,
                mean_signed_difference=float(diff.mean()) if diff.size else None,
            )
        )

    def column(part: int) -> list[list[float | None]]:
        rows: list[list[float | None]] = []
        for key in answers:
            row: list[float | None] = []
            for rater in raters:
                grade = grades_by_expert[rater].get(key)
                row.append(None if grade is None else float(grade[part]))
            rows.append(row)
        return rows

    rng = rng_from(seed)  # one stream: the two alphas draw different but reproducible replicates
    return InterRater(
        raters=raters,
        n_answers=len(answers),
        pairs=pairs,
        total_alpha=krippendorff_alpha(column(1), level="interval", n_boot=n_boot, seed=rng),
        gate_alpha=krippendorff_alpha(column(0), level="nominal", n_boot=n_boot, seed=rng),
    )
