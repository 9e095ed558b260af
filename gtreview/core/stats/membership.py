"""Membership signals of a passage, and how well a signal separates trained-on documents.

Each signal reads the per-token log-probabilities log p(x_t | x_<t) a model gives a
passage. All are oriented as published; ``MEMBER_SIDE`` says which end points to
"in the training data" so :func:`membership_auc` reads each the right way round.
The AUC is what calibrates a signal on this very run: the analyst's split of
documents into trained-on and held-out is the ground truth, and a signal whose AUC
interval covers 1/2 says nothing about memorisation here.

The split is made of documents, and passages of one document share its author, era,
subject and wording, so they are not independent evidence. Given each passage's
document, :func:`membership_auc` resamples documents (within each side, taking all of a
drawn document's passages: a stratified cluster bootstrap, Field & Welsh 2007) instead of
passages; resampling passages of a few long documents would give an interval far
narrower than the evidence. With fewer than two documents on a side there is nothing to
resample and no interval is given.

Beside the AUC, :func:`tpr_at_fpr` gives the true-positive rate at a low false-positive
rate and :func:`roc_curve` the whole curve, as membership-inference papers report them.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence
from typing import Literal

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

Signal = Literal["loss", "zlib", "min_k", "min_k_plus", "reference", "hard_token"]

MEMBER_SIDE: dict[Signal, Literal["low", "high"]] = {
    "loss": "low",  # a trained-on passage is less surprising
    "zlib": "low",
    "min_k": "high",  # even its least likely tokens are likely
    "min_k_plus": "high",
    "reference": "low",  # the fine-tune finds it easier than the base does
    "hard_token": "high",  # the fine-tune gains most where the base is surprised
}

_CHUNK_CELLS = 1 << 22  # bound on (replicates x members x non-members) cells per block


class AucResult(StatModel):
    """P(a member's signal is on the member side of a non-member's), ties counting half."""

    auc: float | None
    ci: Interval | None  # stratified: members and non-members resampled separately
    n_members: int
    n_non_members: int
    n_missing: int  # passages without a finite signal, left out
    # What the interval resampled: "documents" (each side's documents, with all their
    # passages) or "passages" (when no documents were given, and in reports kept before
    # intervals were clustered). Documents are counted over passages with a signal.
    resampled: Literal["passages", "documents"] = "passages"
    n_member_documents: int | None = None
    n_non_member_documents: int | None = None


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


def hard_token_gain(target_logprobs: npt.ArrayLike, reference_logprobs: npt.ArrayLike, k: float = 0.2) -> float:
    """Mean of target minus reference log-prob over the k share of tokens the reference finds
    hardest (its lowest log-probs; the earlier token first among equal ones).

    A fine-tune that memorised a passage gains most at the tokens no model could guess,
    while what it learnt of the domain lifts the easy tokens too; the base model is the
    reference. Both must score the same token sequence. After Jawad, Xiao & Wu (2026),
    HT-MIA, arXiv:2601.20885, in its simplest form: hard tokens picked under the base.
    """
    target = _logprobs(target_logprobs)
    reference = _logprobs(reference_logprobs, "reference_logprobs")
    if target.size != reference.size:
        raise StatInputError(f"{target.size} target log-probs for {reference.size} reference ones: not the same tokens")
    if not 0 < k <= 1:
        raise StatInputError(f"k is a fraction of the tokens in (0, 1], got {k}")
    hard = np.argsort(reference, kind="stable")[: max(1, math.floor(reference.size * k))]
    return float((target[hard] - reference[hard]).mean())


def _oriented(values: npt.ArrayLike, side: Literal["low", "high"]) -> FloatArray:
    array = np.asarray(values, dtype=np.float64).ravel()
    return array if side == "high" else -array


def _comparisons(members: FloatArray, non_members: FloatArray) -> FloatArray:
    """(members, non-members) table: 1 member ahead, 1/2 tied, 0 behind."""
    difference = members[:, None] - non_members[None, :]
    return np.asarray((difference > 0) + 0.5 * (difference == 0), dtype=np.float64)


def _cluster_codes(clusters: Sequence[object] | None, size: int, who: str) -> npt.NDArray[np.int64] | None:
    if clusters is None:
        return None
    if len(clusters) != size:
        raise StatInputError(f"{len(clusters)} documents for {size} {who}")
    index: dict[object, int] = {}
    return np.array([index.setdefault(c, len(index)) for c in clusters], dtype=np.int64)


def _side_weights(codes: npt.NDArray[np.int64] | None, size: int, count: int, rng: np.random.Generator) -> FloatArray:
    """(count, passages): how often each passage is drawn, alone or with its document."""
    if codes is None:
        return bootstrap_weights(size, n_boot=count, rng=rng)
    used, dense = np.unique(codes, return_inverse=True)
    return bootstrap_weights(used.size, n_boot=count, rng=rng)[:, dense]


def membership_auc(
    members: npt.ArrayLike,
    non_members: npt.ArrayLike,
    *,
    member_side: Literal["low", "high"],
    n_boot: int = 2000,
    seed: Seed = 0,
    member_documents: Sequence[object] | None = None,
    non_member_documents: Sequence[object] | None = None,
) -> AucResult:
    """AUC of one signal on the trained-on / held-out split, with a stratified bootstrap.

    The AUC is the Mann-Whitney U of the members over n1 n2. Resampling each group on
    its own keeps the split's sizes fixed, as the analyst fixed them. Passages whose
    signal is NaN are left out and counted. Source: Hanley & McNeil (1982), Radiology 143(1).

    ``member_documents`` and ``non_member_documents`` (one per passage, both or neither)
    make the resampling unit the document: each replicate draws each side's documents
    with replacement and counts every passage of a drawn document as often as it was
    drawn, so the AUC replicate is the weighted Mann-Whitney statistic over the drawn
    passages. With one passage per document this is the passage bootstrap, draw for
    draw (the same seed gives the same interval). Below two documents on a side the
    interval is None: one document resampled is always itself.
    """
    if member_side not in ("low", "high"):
        raise StatInputError(f"member_side is 'low' or 'high', got {member_side!r}")
    if (member_documents is None) != (non_member_documents is None):
        raise StatInputError("give the documents of both sides' passages, or of neither")
    a, b = _oriented(members, member_side), _oriented(non_members, member_side)
    if np.isinf(a).any() or np.isinf(b).any():
        raise StatInputError("membership signals hold infinite values; a missing one is NaN")
    codes_a = _cluster_codes(member_documents, a.size, "member passages")
    codes_b = _cluster_codes(non_member_documents, b.size, "held-out passages")
    missing = int(np.isnan(a).sum() + np.isnan(b).sum())
    keep_a, keep_b = ~np.isnan(a), ~np.isnan(b)
    a, b = a[keep_a], b[keep_b]
    codes_a = codes_a[keep_a] if codes_a is not None else None
    codes_b = codes_b[keep_b] if codes_b is not None else None
    units_a = np.unique(codes_a).size if codes_a is not None else a.size
    units_b = np.unique(codes_b).size if codes_b is not None else b.size
    result = AucResult(
        auc=None,
        ci=None,
        n_members=int(a.size),
        n_non_members=int(b.size),
        n_missing=missing,
        resampled="passages" if codes_a is None else "documents",
        n_member_documents=None if codes_a is None else int(units_a),
        n_non_member_documents=None if codes_b is None else int(units_b),
    )
    if a.size == 0 or b.size == 0:
        return result
    table = _comparisons(a, b)
    ci = None
    if n_boot >= 1 and units_a >= 2 and units_b >= 2:
        rng = rng_from(seed)
        rows = max(1, _CHUNK_CELLS // table.size)
        replicates = []
        for start in range(0, n_boot, rows):
            count = min(rows, n_boot - start)
            wa = _side_weights(codes_a, a.size, count, rng)
            wb = _side_weights(codes_b, b.size, count, rng)
            # the drawn passages' count varies with the documents drawn, so divide by it
            replicates.append(((wa @ table) * wb).sum(axis=1) / (wa.sum(axis=1) * wb.sum(axis=1)))
        ci = percentile_interval(np.concatenate(replicates))
    return result.model_copy(update={"auc": float(table.mean()), "ci": ci})


# -- TPR at a low FPR, and the ROC curve -------------------------------------------
#
# Membership-inference papers report, beside the AUC, the share of members caught when
# almost no non-member is flagged (SPV-MIA: AUC 0.924, TPR 46.9% at 1% FPR): an attack
# that is confident about a few passages matters even when its AUC is modest. A threshold
# flags every passage at or beyond it on the member side, so passages with equal values
# are flagged together (a tie never splits in the attack's favour).


class RocCurve(StatModel):
    """The ROC curve as its corners (FPR, TPR), from (0, 0) to (1, 1): one step per distinct
    value, a tie between the sides a diagonal step. Empty when a side has no passage."""

    points: list[tuple[float, float]]
    n_members: int
    n_non_members: int


class TprAtFpr(StatModel):
    """The largest TPR over thresholds whose FPR is at most ``max_fpr``, and the counts of the
    strictest threshold that reaches it."""

    max_fpr: float
    tpr: float | None  # None: a side has no passage with this signal
    fpr: float | None  # the FPR reached: k / n_non_members, never above max_fpr
    members_flagged: int
    n_members: int
    non_members_flagged: int
    n_non_members: int


def _present(
    members: npt.ArrayLike, non_members: npt.ArrayLike, side: Literal["low", "high"]
) -> tuple[FloatArray, FloatArray]:
    if side not in ("low", "high"):
        raise StatInputError(f"member_side is 'low' or 'high', got {side!r}")
    a, b = _oriented(members, side), _oriented(non_members, side)
    if np.isinf(a).any() or np.isinf(b).any():
        raise StatInputError("membership signals hold infinite values; a missing one is NaN")
    return a[~np.isnan(a)], b[~np.isnan(b)]


def _roc_counts(a: FloatArray, b: FloatArray) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Members and non-members flagged at each threshold, strictest first: none, then each
    distinct value in turn (flagging everything at or above it), ending with all."""
    thresholds = np.unique(np.concatenate([a, b]))[::-1]
    members = a.size - np.searchsorted(np.sort(a), thresholds, side="left")
    non_members = b.size - np.searchsorted(np.sort(b), thresholds, side="left")
    zero = np.zeros(1, dtype=np.int64)
    return np.concatenate([zero, members]).astype(np.int64), np.concatenate([zero, non_members]).astype(np.int64)


def roc_curve(members: npt.ArrayLike, non_members: npt.ArrayLike, *, member_side: Literal["low", "high"]) -> RocCurve:
    """The signal's ROC curve (members positive), NaN passages left out as in :func:`membership_auc`.

    Only corners are kept: a point inside a straight vertical or horizontal run changes
    neither the curve, nor its area (the AUC, ties counting half), nor any TPR at an FPR.
    """
    a, b = _present(members, non_members, member_side)
    if a.size == 0 or b.size == 0:
        return RocCurve(points=[], n_members=int(a.size), n_non_members=int(b.size))
    tp, fp = _roc_counts(a, b)
    keep = np.ones(tp.size, dtype=bool)
    vertical = (fp[:-2] == fp[1:-1]) & (fp[1:-1] == fp[2:])
    horizontal = (tp[:-2] == tp[1:-1]) & (tp[1:-1] == tp[2:])
    keep[1:-1] = ~(vertical | horizontal)
    points = [(float(f) / b.size, float(t) / a.size) for f, t in zip(fp[keep], tp[keep], strict=True)]
    return RocCurve(points=points, n_members=int(a.size), n_non_members=int(b.size))


def tpr_at_fpr(
    members: npt.ArrayLike, non_members: npt.ArrayLike, *, member_side: Literal["low", "high"], max_fpr: float
) -> TprAtFpr:
    """The share of members flagged by the most lenient threshold that flags at most ``max_fpr``
    of the non-members (the largest TPR over thresholds with FPR <= ``max_fpr``), with the
    FPR of the strictest threshold that reaches that TPR.

    With n non-members the FPR moves in steps of 1/n, so below 1/n (1% with fewer than 100
    held-out passages) this is the TPR with no non-member flagged at all. Ties are flagged
    together: a member tied with a non-member is only caught by flagging that non-member too.
    """
    if not 0 <= max_fpr <= 1:
        raise StatInputError(f"max_fpr is a rate in [0, 1], got {max_fpr}")
    a, b = _present(members, non_members, member_side)
    if a.size == 0 or b.size == 0:
        counts = {"n_members": int(a.size), "n_non_members": int(b.size)}
        return TprAtFpr(max_fpr=max_fpr, tpr=None, fpr=None, members_flagged=0, non_members_flagged=0, **counts)
    tp, fp = _roc_counts(a, b)
    allowed = np.flatnonzero(fp <= max_fpr * b.size * (1 + 1e-12))  # k/n <= max_fpr, without rounding k/n
    # both counts grow threshold by threshold: the last allowed flags the most members, and the
    # first threshold to flag that many flags the fewest non-members doing it
    best = int(np.searchsorted(tp, tp[allowed[-1]], side="left"))
    return TprAtFpr(
        max_fpr=max_fpr,
        tpr=float(tp[best]) / a.size,
        fpr=float(fp[best]) / b.size,
        members_flagged=int(tp[best]),
        n_members=int(a.size),
        non_members_flagged=int(fp[best]),
        n_non_members=int(b.size),
    )
