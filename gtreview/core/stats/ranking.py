"""Bradley-Terry strengths of several models from their pairwise verdicts.

P(i beats j) = g_i / (g_i + g_j). The maximum-likelihood strengths come from the MM
algorithm of Hunter (2004), "MM algorithms for generalized Bradley-Terry models",
Ann. Statist. 32(1), eq. 3: g_i <- W_i / sum_j N_ij / (g_i + g_j). A tie counts half a
win to each side. Strengths are fixed up to a common factor, so the geometric mean
is set to 1 (log-strengths sum to 0). The estimate exists only when every split of
the models into two groups has a win from the second group over the first (Hunter's
Assumption 1: the "beat" graph is strongly connected); otherwise it is None.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from gtreview.core.stats.base import (
    FloatArray,
    Interval,
    Seed,
    StatInputError,
    StatModel,
    bootstrap_weights,
    percentile_interval,
    rng_from,
)
from gtreview.core.stats.design import cluster_codes

MAX_ITERATIONS = 10_000
TOLERANCE = 1e-10  # on the largest change of a log-strength between iterations


class Strength(StatModel):
    """One model's log-strength: log g_i, the models' mean at 0.

    exp(a − b) is the odds that a model of log-strength a beats one of log-strength b.
    """

    model: str
    log_strength: float | None
    ci: Interval | None
    wins: float  # ties count half
    comparisons: int


class BradleyTerry(StatModel):
    strengths: list[Strength]
    n_comparisons: int
    n_questions: int  # resampling units
    estimable: bool  # the beat graph is strongly connected (else every strength is None)


def win_tables(
    first: npt.NDArray[np.int64],
    second: npt.NDArray[np.int64],
    score: FloatArray,
    units: npt.NDArray[np.int64],
    weights: FloatArray,
    size: int,
) -> FloatArray:
    """(B, M, M) tables of wins of row over column, each unit weighted per replicate.

    ``weights`` is (B, units); a comparison scores ``score`` for ``first`` and
    ``1 − score`` for ``second``. Comparisons are summed per unit first, so the work
    grows with questions, not with verdicts.
    """
    cells = np.zeros((weights.shape[1], size * size))
    np.add.at(cells, (units, first * size + second), score)
    np.add.at(cells, (units, second * size + first), 1.0 - score)
    return np.asarray(weights @ cells, dtype=np.float64).reshape(-1, size, size)


def strongly_connected(wins: FloatArray) -> npt.NDArray[np.bool_]:
    """Whether each (M, M) table's graph i -> j (i won something against j) reaches all pairs."""
    size = wins.shape[-1]
    reach = (wins > 0) | np.eye(size, dtype=bool)
    for _ in range(max(1, int(np.ceil(np.log2(size))))):  # path lengths double each squaring
        reach = np.einsum("bik,bkj->bij", reach.astype(np.float64), reach.astype(np.float64)) > 0
    return np.asarray(reach.all(axis=(1, 2)), dtype=np.bool_)


def mm_log_strengths(wins: FloatArray) -> FloatArray:
    """Log-strengths (B, M) by Hunter's MM iteration, NaN where inestimable or unconverged."""
    totals = wins.sum(axis=2)
    games = wins + np.transpose(wins, (0, 2, 1))
    ok = strongly_connected(wins)
    strengths = np.ones(totals.shape)
    converged = np.zeros(ok.shape, dtype=bool)
    for _ in range(MAX_ITERATIONS):
        active = ok & ~converged
        if not active.any():
            break
        g = strengths[active]
        denominator = (games[active] / (g[:, :, None] + g[:, None, :])).sum(axis=2)
        updated = totals[active] / denominator
        updated /= np.exp(np.log(updated).mean(axis=1, keepdims=True))
        change = np.abs(np.log(updated) - np.log(g)).max(axis=1)
        strengths[active] = updated
        converged[np.flatnonzero(active)[change < TOLERANCE]] = True
    result = np.log(strengths)
    result[~(ok & converged)] = np.nan
    return result


def bradley_terry(
    model_a: Sequence[str],
    model_b: Sequence[str],
    score_a: npt.ArrayLike,
    *,
    questions: Sequence[object] | None = None,
    n_boot: int = 2000,
    seed: Seed = 0,
) -> BradleyTerry:
    """Strengths from comparisons (model_a[i] against model_b[i], scoring score_a[i]).

    ``score_a`` is 1 when model_a won, 0 when it lost, 0.5 for a tie. Intervals resample
    ``questions`` (all comparisons on one question together) or, without them, single
    comparisons; a replicate without an estimate is left out of the percentiles.
    """
    score = np.asarray(score_a, dtype=np.float64).ravel()
    if not (len(model_a) == len(model_b) == score.size):
        raise StatInputError(f"{len(model_a)} and {len(model_b)} models for {score.size} verdicts")
    if not np.isin(score, (0.0, 0.5, 1.0)).all():
        raise StatInputError("score_a holds values other than 1 (won), 0.5 (tie) and 0 (lost)")
    if any(a == b for a, b in zip(model_a, model_b, strict=True)):
        raise StatInputError("a model cannot be compared with itself")
    names = list(dict.fromkeys([*model_a, *model_b]))
    code = {name: i for i, name in enumerate(names)}
    first = np.array([code[m] for m in model_a], dtype=np.int64)
    second = np.array([code[m] for m in model_b], dtype=np.int64)
    units = cluster_codes(range(score.size) if questions is None else questions)
    if units.size != score.size:
        raise StatInputError(f"{units.size} question labels for {score.size} verdicts")
    n_units = int(units.max()) + 1 if units.size else 0
    table = win_tables(first, second, score, units, np.ones((1, n_units)), len(names))
    point = mm_log_strengths(table)[0] if names else np.zeros(0)
    replicates = np.full((0, len(names)), np.nan)
    if n_boot >= 1 and n_units >= 2 and len(names) >= 2:
        drawn = bootstrap_weights(n_units, n_boot=n_boot, rng=rng_from(seed))
        replicates = mm_log_strengths(win_tables(first, second, score, units, drawn, len(names)))
    estimable = bool(np.isfinite(point).all()) and len(names) >= 2
    strengths = [
        Strength(
            model=name,
            log_strength=float(point[i]) if estimable else None,
            ci=percentile_interval(replicates[:, i]) if estimable else None,
            wins=float(table[0, i].sum()),
            comparisons=int(((first == i) | (second == i)).sum()),
        )
        for i, name in enumerate(names)
    ]
    return BradleyTerry(strengths=strengths, n_comparisons=int(score.size), n_questions=n_units, estimable=estimable)
