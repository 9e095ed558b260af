"""Length bias of pairwise verdicts, and the length-controlled win rate.

Judges prefer longer answers, so a fine-tune that learned to talk more can "win"
without knowing more. The verdict (fine-tune wins 1, loses 0, tie 0.5, as a
fractional response) is regressed on the standardised difference in log length,
logit P(win) = a + b z, z = (log(1 + len_ft) − log(1 + len_base)) / sd. The slope b
is the length effect; sigma(a), the win rate predicted at equal length, is the
length-controlled win rate. Source: Dubois et al. (2024), "Length-Controlled
AlpacaEval", arXiv:2404.04475 (the GLM, with the length term set to 0).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist

import numpy as np
import numpy.typing as npt

from gtreview.core.stats.base import (
    LEVEL,
    FloatArray,
    Interval,
    Seed,
    StatInputError,
    StatModel,
    bootstrap_weights,
    opt,
    percentile_interval,
    rng_from,
)
from gtreview.core.stats.design import cluster_codes

MAX_ITERATIONS = 100
_CHUNK_CELLS = 1 << 20  # (replicates x verdicts) cells per block of refits, about 8 MB per array
_Z = NormalDist().inv_cdf((1 + LEVEL) / 2)  # 1.96: the Wald interval has the level of every other


class LengthBias(StatModel):
    """The length effect and the win rate with and without it.

    ``slope`` is the change in log-odds of a fine-tune win per standard deviation
    (``length_scale``) of the log-length difference; ``slope_ci`` its Wald interval from
    the observed information, ``slope_p`` the two-sided Wald p-value. ``raw_ci`` and
    ``controlled_ci`` are percentile bootstraps (questions when given, else verdicts),
    the model refitted on every replicate. None where the fit has no finite maximum
    (every verdict the same, or length separates wins from losses) or the lengths do
    not vary (then the controlled rate is the raw one if all lengths are equal).
    """

    raw_win_rate: float | None
    raw_ci: Interval | None
    controlled_win_rate: float | None
    controlled_ci: Interval | None
    intercept: float | None
    slope: float | None
    slope_se: float | None
    slope_ci: Interval | None
    slope_p: float | None
    length_scale: float | None
    n_verdicts: int
    n_units: int


def sigmoid(x: FloatArray) -> FloatArray:
    return np.asarray(0.5 * (1.0 + np.tanh(0.5 * x)), dtype=np.float64)  # no overflow for large |x|


def fit_logistic(y: FloatArray, z: FloatArray, weights: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Newton-Raphson (IRLS) for each row of ``weights``: (B, 2) estimates and (B, 2, 2) covariances.

    Maximises sum w [y log p + (1 − y) log(1 − p)], which for y in [0, 1] is the
    quasi-likelihood of a fractional response; rows that do not converge are NaN.
    """
    params = np.zeros((weights.shape[0], 2))
    converged = np.zeros(weights.shape[0], dtype=bool)
    covariance = np.full((weights.shape[0], 2, 2), np.nan)
    for _ in range(MAX_ITERATIONS):
        p = sigmoid(params[:, :1] + params[:, 1:] * z)
        residual, curvature = weights * (y - p), weights * p * (1 - p)
        gradient = np.stack([residual.sum(axis=1), (residual * z).sum(axis=1)], axis=1)
        h00, h01, h11 = curvature.sum(axis=1), (curvature * z).sum(axis=1), (curvature * z * z).sum(axis=1)
        det = h00 * h11 - h01**2
        with np.errstate(invalid="ignore", divide="ignore"):
            inverse = np.stack([np.stack([h11, -h01], 1), np.stack([-h01, h00], 1)], 1) / det[:, None, None]
        step = np.einsum("bij,bj->bi", inverse, gradient)
        step[converged] = 0.0
        params += np.nan_to_num(step, nan=0.0)
        done = np.abs(step).max(axis=1) < 1e-10
        covariance[done & ~converged] = inverse[done & ~converged]
        converged |= done
        if converged.all():
            break
    finite = converged & (np.abs(params).max(axis=1) < 30) & np.isfinite(covariance).all(axis=(1, 2))
    params[~finite] = np.nan
    return params, covariance


def _refit_intercepts(y: FloatArray, z: FloatArray, units: npt.NDArray[np.int64], drawn: FloatArray) -> FloatArray:
    """The intercept refitted on each replicate, in blocks that bound the memory."""
    rows = max(1, _CHUNK_CELLS // max(1, y.size))
    blocks = [
        fit_logistic(y, z, drawn[start : start + rows][:, units])[0][:, 0] for start in range(0, len(drawn), rows)
    ]
    return np.concatenate(blocks)


def length_bias(
    verdicts: npt.ArrayLike,
    finetune_lengths: npt.ArrayLike,
    base_lengths: npt.ArrayLike,
    *,
    questions: Sequence[object] | None = None,
    n_boot: int = 2000,
    seed: Seed = 0,
) -> LengthBias:
    """Fit the length model to pairwise verdicts and bootstrap both win rates.

    ``verdicts`` are the fine-tune's share of each comparison (1, 0.5, 0, or the
    average of the two orders); lengths are token or word counts of the two answers.
    """
    y = np.asarray(verdicts, dtype=np.float64).ravel()
    ft, base = (np.asarray(x, dtype=np.float64).ravel() for x in (finetune_lengths, base_lengths))
    if not (y.size == ft.size == base.size):
        raise StatInputError(f"{y.size} verdicts for {ft.size} fine-tune and {base.size} base lengths")
    if not (np.isfinite(y).all() and ((y >= 0) & (y <= 1)).all()):
        raise StatInputError("verdicts must be fine-tune win shares between 0 and 1")
    if not (np.isfinite(ft).all() and np.isfinite(base).all() and (ft >= 0).all() and (base >= 0).all()):
        raise StatInputError("answer lengths must be counts of 0 or more")
    units = cluster_codes(range(y.size) if questions is None else questions)
    if units.size != y.size:
        raise StatInputError(f"{units.size} question labels for {y.size} verdicts")
    n_units = int(units.max()) + 1 if units.size else 0
    x = np.log1p(ft) - np.log1p(base)
    scale = float(np.std(x, ddof=1)) if x.size >= 2 else 0.0
    scale = scale if scale > 1e-12 else 0.0  # equal ratios differ only by rounding in the logs
    z = x / scale if scale > 0 else x
    drawn = bootstrap_weights(n_units, n_boot=n_boot, rng=rng_from(seed)) if n_units >= 2 and n_boot >= 1 else None
    raw = opt(y.mean()) if y.size else None
    raw_ci = None
    if drawn is not None:
        unit_sums, unit_sizes = np.bincount(units, weights=y, minlength=n_units), np.bincount(units, minlength=n_units)
        raw_ci = percentile_interval((drawn @ unit_sums) / (drawn @ unit_sizes))
    empty = {"intercept": None, "slope": None, "slope_se": None, "slope_ci": None, "slope_p": None}
    if scale == 0:  # length cannot be told apart from the model; equal lengths need no control
        equal = bool(y.size) and bool((x == 0).all())
        return LengthBias(
            raw_win_rate=raw,
            raw_ci=raw_ci,
            controlled_win_rate=raw if equal else None,
            controlled_ci=raw_ci if equal else None,
            length_scale=None,
            n_verdicts=int(y.size),
            n_units=n_units,
            **empty,
        )
    (intercept, slope), covariance = (a[0] for a in fit_logistic(y, z, np.ones((1, y.size))))
    controlled_ci = None
    if drawn is not None:
        controlled_ci = percentile_interval(sigmoid(_refit_intercepts(y, z, units, drawn)))
    se = math.sqrt(covariance[1, 1]) if np.isfinite(slope) else float("nan")
    fitted = bool(np.isfinite(slope)) and se > 0
    return LengthBias(
        raw_win_rate=raw,
        raw_ci=raw_ci,
        controlled_win_rate=opt(sigmoid(np.array([intercept]))[0]),
        controlled_ci=controlled_ci,
        intercept=opt(intercept),
        slope=opt(slope),
        slope_se=opt(se),
        slope_ci=Interval(low=slope - _Z * se, high=slope + _Z * se) if fitted else None,
        slope_p=math.erfc(abs(slope / se) / math.sqrt(2)) if fitted else None,
        length_scale=scale,
        n_verdicts=int(y.size),
        n_units=n_units,
    )
