"""Shared pieces of the statistics modules: result base class, intervals, bootstrap.

Everything here is numpy only. The unit of resampling is always stated by the caller;
the helpers never guess it. Results leave through pydantic models that refuse NaN and
infinity (``allow_inf_nan=False``), so an undefined quantity has to be an explicit
``None`` and every result serialises to strict JSON.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict

from gtreview.core.errors import UserError

FloatArray = npt.NDArray[np.float64]
Seed = int | np.random.Generator

LEVEL = 0.95
"""Coverage of every interval: the product reports 95% percentile bootstrap intervals."""

_TAILS = (100 * (1 - LEVEL) / 2, 100 * (1 + LEVEL) / 2)


class StatInputError(UserError, ValueError):
    """Input a statistic cannot be computed from (wrong shape, values out of range).

    A ValueError too, so callers that caught the plain ValueError of older code still do.
    """


class StatModel(BaseModel):
    """Base of every statistics result: immutable, and NaN can never get in."""

    model_config = ConfigDict(frozen=True, allow_inf_nan=False)


class Interval(StatModel):
    """A percentile bootstrap interval; ``None`` in its place means it is undefined."""

    low: float
    high: float
    level: float = LEVEL

    def covers(self, value: float) -> bool:
        return self.low <= value <= self.high

    def no_variation_at(self, null: float) -> bool:
        """No width, on ``null`` itself: every resample gave no change, as when every score of
        both models is at a floor (or a ceiling, or the same for both on every question). Then
        nothing varied and the interval says nothing about how large a change is still
        possible. THE test for that, wherever an interval is read against its null. (A zero-width
        interval off the null, every difference the same but not 0, still excludes it.)"""
        tolerance = 1e-12 * max(1.0, abs(null))
        return self.high - self.low <= tolerance and abs(self.low - null) <= tolerance


def opt(value: Any) -> float | None:
    """A float for the result models, or None for NaN, infinity and None."""
    if value is None:
        return None
    result = float(value)
    return result if np.isfinite(result) else None


def rng_from(seed: Seed) -> np.random.Generator:
    """A Generator from an int seed; a Generator passed in is used (and advanced) as is."""
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


def as_matrix(scores: npt.ArrayLike, *, name: str = "scores") -> FloatArray:
    """A (Q, K) float matrix; a 1-D input is one repeat per question (K = 1)."""
    array = np.asarray(scores, dtype=np.float64)
    if array.ndim == 1:
        array = array[:, None]
    if array.ndim != 2:
        raise ValueError(f"{name} must be a (questions, repeats) matrix, got shape {array.shape}")
    if np.isinf(array).any():
        raise ValueError(f"{name} holds infinite values; unscored samples are NaN")
    return array


def with_errors(scores: FloatArray, errors: npt.ArrayLike | None) -> tuple[FloatArray, int]:
    """Enter generation errors as 0 (they count against the model) and count them.

    The mask wins over whatever the matrix holds in those cells, so a caller may pass
    raw totals with NaN for failed generations together with the mask.
    """
    if errors is None:
        return scores, 0
    mask = np.asarray(errors, dtype=bool)
    if mask.shape != scores.shape:
        raise ValueError(f"errors mask has shape {mask.shape}, scores have {scores.shape}")
    if not mask.any():
        return scores, 0
    result = scores.copy()
    result[mask] = 0.0
    return result, int(mask.sum())


def row_means(matrix: FloatArray) -> tuple[FloatArray, npt.NDArray[np.int64]]:
    """Per-row mean over the scored (non-NaN) cells, NaN for rows with none, and counts."""
    scored = ~np.isnan(matrix)
    counts = scored.sum(axis=1)
    sums = np.where(scored, matrix, 0.0).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
    return means, counts


def bootstrap_mean(values: FloatArray, *, n_boot: int, rng: np.random.Generator) -> Interval | None:
    """Percentile interval of the mean of ``values``, resampling its entries.

    Undefined (None) below two units: resampling one value always returns it, and a
    zero-width interval would claim a certainty one question cannot give.
    """
    values = values[~np.isnan(values)]
    if values.size < 2 or n_boot < 1:
        return None
    small = values.size <= np.iinfo(np.uint16).max  # narrow indices make the gather twice as fast
    index = rng.integers(0, values.size, size=(n_boot, values.size), dtype=np.uint16 if small else np.int64)
    interval = percentile_interval(values[index].mean(axis=1))
    if interval is not None and np.ptp(values) == 0:  # exactly, not up to summation rounding
        return Interval(low=float(values[0]), high=float(values[0]))
    return interval


def bootstrap_weights(n_units: int, *, n_boot: int, rng: np.random.Generator) -> FloatArray:
    """Resampling counts (n_boot, n_units): how often each unit is drawn per replicate.

    Weighted sums (``weights @ x``) replace fancy indexing where several statistics of
    the same replicate are needed, which keeps the work to matrix products.
    """
    index = rng.integers(0, n_units, size=(n_boot, n_units))
    flat = index + (np.arange(n_boot) * n_units)[:, None]
    return np.bincount(flat.ravel(), minlength=n_boot * n_units).reshape(n_boot, n_units).astype(np.float64)


def percentile_interval(replicates: FloatArray) -> Interval | None:
    """The central 95% of bootstrap replicates; undefined replicates (NaN) are skipped."""
    replicates = replicates[np.isfinite(replicates)]
    if replicates.size == 0:
        return None
    low, high = np.percentile(replicates, _TAILS)
    # Replicates of a constant differ only by rounding; keep the interval ordered.
    return Interval(low=float(low), high=float(max(low, high)))


def sample_sd(values: FloatArray) -> float | None:
    """Sample standard deviation (ddof 1) of the non-NaN values; None below two."""
    values = values[~np.isnan(values)]
    if values.size < 2:
        return None
    return float(np.std(values, ddof=1))
