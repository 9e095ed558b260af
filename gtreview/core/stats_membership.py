"""Membership signals of a passage, and how well a signal separates trained-on documents.

Each signal reads the per-token log-probabilities log p(x_t | x_<t) a model gives a
passage. All are oriented as published; ``MEMBER_SIDE`` says which end points to
"in the training data" so :func:`membership_auc` reads each the right way round.
The AUC is what calibrates a signal on this very run: the analyst's split of
documents into trained-on and held-out is the ground truth, and a signal whose AUC
interval covers 1/2 says nothing about memorisation here.
"""

from __future__ import annotations

import math
import zlib
from typing import Literal

import numpy as np
import numpy.typing as npt

from gtreview.core.stats_base import (
    FloatArray,
    Interval,
    Seed,
    StatInputError,
    StatModel,
    bootstrap_weights,
    percentile_interval,
    rng_from,
)

Signal = Literal["loss", "zlib", "min_k", "min_k_plus", "reference"]

MEMBER_SIDE: dict[Signal, Literal["low", "high"]] = {
    "loss": "low",  # a trained-on passage is less surprising
    "zlib": "low",
    "min_k": "high",  # even its least likely tokens are likely
    "min_k_plus": "high",
    "reference": "low",  # the fine-tune finds it easier than the base does
}

_CHUNK_CELLS = 1 << 22  # bound on (replicates x members x non-members) cells per block


class AucResult(StatModel):
    """P(a member's signal is on the member side of a non-member's), ties counting half."""

    auc: float | None
    ci: Interval | None  # stratified: members and non-members resampled separately
    n_members: int
    n_non_members: int
    n_missing: int  # passages without a finite signal, left out


def _logprobs(values: npt.ArrayLike, name: str = "logprobs") -> FloatArray:
    array = np.asarray(values, dtype=np.float64).ravel()
    if array.size == 0:
        raise StatInputError(f"{name} is empty: a passage needs at least one scored token")
    if not np.isfinite(array).all() or (array > 1e-9).any():
        raise StatInputError(f"{name} must be finite log-probabilities (0 or below)")
    return array


def loss(logprobs: npt.ArrayLike) -> float:
    """Mean negative log-likelihood per token. Source: Yeom et al. (2018), the LOSS attack."""
    return float(-_logprobs(logprobs).mean())


def zlib_loss(logprobs: npt.ArrayLike, text: str) -> float:
    """Total NLL over the zlib-compressed byte length of the text: surprise per unit of
    plain redundancy, so repetitive text is not mistaken for memorised. Source: Carlini et al. (2021), section 6.1."""
    compressed = len(zlib.compress(text.encode("utf-8")))
    return float(-_logprobs(logprobs).sum() / compressed)


def _lowest_mean(values: FloatArray, k: float) -> float:
    if not 0 < k <= 1:
        raise StatInputError(f"k is a fraction of the tokens in (0, 1], got {k}")
    count = max(1, math.floor(values.size * k))  # as the reference code: int(len * k), at least one
    return float(np.sort(values)[:count].mean())


def min_k(logprobs: npt.ArrayLike, k: float = 0.2) -> float:
    """Mean of the lowest k share of token log-probs. Source: Shi et al. (2023), Min-K% Prob, arXiv:2310.16789."""
    return _lowest_mean(_logprobs(logprobs), k)


def token_moments(position_logprobs: npt.ArrayLike) -> tuple[FloatArray, FloatArray]:
    """Mean and variance of log p(z) under p(z | x_<t), from (T, V) full log-distributions.

    mu_t = sum_z p(z) log p(z), var_t = sum_z p(z) (log p(z))**2 − mu_t**2: what
    Min-K%++ needs at each position, computed where the full distribution is at hand.
    """
    table = np.asarray(position_logprobs, dtype=np.float64)
    if table.ndim != 2:
        raise StatInputError(f"the full distributions must be (tokens, vocabulary), got shape {table.shape}")
    p = np.exp(table)
    safe = np.where(p > 0, table, 0.0)  # 0 * log 0 is 0, not NaN
    mu = (p * safe).sum(axis=1)
    return mu, np.maximum((p * safe**2).sum(axis=1) - mu**2, 0.0)


def min_k_plus(logprobs: npt.ArrayLike, mu: npt.ArrayLike, variance: npt.ArrayLike, k: float = 0.2) -> float:
    """Min-K% of the standardised log-probs (log p(x_t) − mu_t) / sigma_t.

    A token is odd for a member when it is unlikely *relative to* what the model
    expected at that position. Source: Zhang et al. (2024), Min-K%++, arXiv:2404.02936, eq. 4.
    """
    values = _logprobs(logprobs)
    means, variances = np.asarray(mu, dtype=np.float64).ravel(), np.asarray(variance, dtype=np.float64).ravel()
    if not (means.size == variances.size == values.size):
        raise StatInputError(f"{values.size} tokens with {means.size} means and {variances.size} variances")
    if not (variances > 0).all():
        raise StatInputError("Min-K%++ needs a positive variance at every position (a one-token distribution has none)")
    return _lowest_mean((values - means) / np.sqrt(variances), k)


def reference_ratio(target_logprobs: npt.ArrayLike, reference_logprobs: npt.ArrayLike) -> float:
    """Target NLL minus reference NLL (per token), the base model as reference: what the
    fine-tune learned of this passage beyond what any model finds easy. Source: Carlini et al. (2021), "Reference"; Mireshghallah et al. (2022)."""
    return loss(target_logprobs) - loss(_logprobs(reference_logprobs, "reference_logprobs"))


def _oriented(values: npt.ArrayLike, side: Literal["low", "high"]) -> FloatArray:
    array = np.asarray(values, dtype=np.float64).ravel()
    return array if side == "high" else -array


def _comparisons(members: FloatArray, non_members: FloatArray) -> FloatArray:
    """(members, non-members) table: 1 member ahead, 1/2 tied, 0 behind."""
    difference = members[:, None] - non_members[None, :]
    return np.asarray((difference > 0) + 0.5 * (difference == 0), dtype=np.float64)


def membership_auc(
    members: npt.ArrayLike,
    non_members: npt.ArrayLike,
    *,
    member_side: Literal["low", "high"],
    n_boot: int = 2000,
    seed: Seed = 0,
) -> AucResult:
    """AUC of one signal on the trained-on / held-out split, with a stratified bootstrap.

    The AUC is the Mann-Whitney U of the members over n1 n2. Resampling each group on
    its own keeps the split's sizes fixed, as the analyst fixed them. Passages whose
    signal is NaN are left out and counted. Source: Hanley & McNeil (1982), Radiology 143(1).
    """
    if member_side not in ("low", "high"):
        raise StatInputError(f"member_side is 'low' or 'high', got {member_side!r}")
    a, b = _oriented(members, member_side), _oriented(non_members, member_side)
    if np.isinf(a).any() or np.isinf(b).any():
        raise StatInputError("membership signals hold infinite values; a missing one is NaN")
    missing = int(np.isnan(a).sum() + np.isnan(b).sum())
    a, b = a[~np.isnan(a)], b[~np.isnan(b)]
    if a.size == 0 or b.size == 0:
        return AucResult(auc=None, ci=None, n_members=int(a.size), n_non_members=int(b.size), n_missing=missing)
    table = _comparisons(a, b)
    ci = None
    if n_boot >= 1 and a.size >= 2 and b.size >= 2:
        rng = rng_from(seed)
        rows = max(1, _CHUNK_CELLS // table.size)
        replicates = []
        for start in range(0, n_boot, rows):
            count = min(rows, n_boot - start)
            wa = bootstrap_weights(a.size, n_boot=count, rng=rng)
            wb = bootstrap_weights(b.size, n_boot=count, rng=rng)
            replicates.append(((wa @ table) * wb).sum(axis=1) / (a.size * b.size))
        ci = percentile_interval(np.concatenate(replicates))
    return AucResult(
        auc=float(table.mean()), ci=ci, n_members=int(a.size), n_non_members=int(b.size), n_missing=missing
    )
