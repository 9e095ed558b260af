"""gtreview.core.stats.membership: membership signals and their AUC on a known split.

Signals are checked by hand against their papers' definitions; the AUC against
scipy.stats.mannwhitneyu (U / (n1 n2), ties counted half) and its stratified interval
against scipy.stats.bootstrap, which resamples each of several samples on its own; TPR at
a low FPR and the ROC curve against a brute force over every threshold, and by hand.
"""

from __future__ import annotations

import math
import zlib
from typing import Literal

import numpy as np
import pytest

from gtreview.core.stats import (
    MEMBER_SIDE,
    AucResult,
    StatInputError,
    hard_token_gain,
    loss,
    membership_auc,
    min_k,
    min_k_plus,
    reference_ratio,
    roc_curve,
    token_moments,
    tpr_at_fpr,
    zlib_loss,
)

stats = pytest.importorskip("scipy.stats")

TEN = [-1.0, -5.0, -2.0, -8.0, -0.5, -3.0, -4.0, -0.1, -6.0, -7.0]


def test_loss_and_zlib_loss_by_hand() -> None:
    assert loss(TEN) == pytest.approx(36.6 / 10)
    text = "Banded iron formations " * 20
    assert zlib_loss(TEN, text) == pytest.approx(36.6 / len(zlib.compress(text.encode("utf-8"))))
    assert reference_ratio([-1.0, -1.0], [-3.0, -1.0]) == pytest.approx(1.0 - 2.0)


@pytest.mark.parametrize(
    ("k", "expected"), [(0.2, (-8 - 7) / 2), (0.25, (-8 - 7) / 2), (0.3, (-8 - 7 - 6) / 3), (0.05, -8.0), (1.0, -3.66)]
)
def test_min_k_takes_the_floor_of_k_tokens_and_at_least_one(k: float, expected: float) -> None:
    assert min_k(TEN, k) == pytest.approx(expected)


def test_token_moments_and_min_k_plus_by_hand() -> None:
    p = np.array([[0.5, 0.25, 0.25, 0.0], [0.9, 0.1, 0.0, 0.0]])
    with np.errstate(divide="ignore"):
        mu, var = token_moments(np.log(p))
    # position 0: E[log p] = 0.5 ln 0.5 + 0.5 ln 0.25 = 1.5 ln 0.5; E[(log p)^2] = 0.5 ln²0.5 + 0.5 (2 ln 0.5)² = 2.5 ln²0.5
    ln = math.log(0.5)
    assert mu[0] == pytest.approx(1.5 * ln) and var[0] == pytest.approx(2.5 * ln**2 - 2.25 * ln**2)
    assert mu[1] == pytest.approx(0.9 * math.log(0.9) + 0.1 * math.log(0.1))
    # the text's tokens were the 0.25 one and the 0.9 one: standardised, then the lowest one (k = 0.5 of 2)
    x = np.array([math.log(0.25), math.log(0.9)])
    z = (x - mu) / np.sqrt(var)
    assert min_k_plus(x, mu, var, k=0.5) == pytest.approx(z.min())
    assert min_k_plus(x, mu, var, k=1.0) == pytest.approx(z.mean())


def test_signals_refuse_bad_input() -> None:
    with pytest.raises(StatInputError, match="empty"):
        loss([])
    with pytest.raises(StatInputError, match="log-probabilities"):
        min_k([0.5, -1.0])
    with pytest.raises(StatInputError, match="fraction"):
        min_k(TEN, 0.0)
    with pytest.raises(StatInputError, match="positive variance"):
        min_k_plus([-1.0], [-1.0], [0.0])


def test_auc_matches_mann_whitney_with_ties() -> None:
    members = np.array([3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0])
    non_members = np.array([2.0, 7.0, 1.0, 8.0, 2.0, 8.0])
    result = membership_auc(members, non_members, member_side="high", n_boot=0)
    u = stats.mannwhitneyu(members, non_members).statistic
    assert result.auc == pytest.approx(u / (8 * 6))
    low = membership_auc(members, non_members, member_side="low", n_boot=0)
    assert low.auc == pytest.approx(1 - u / (8 * 6))


def test_auc_interval_matches_scipy_stratified_bootstrap() -> None:
    rng = np.random.default_rng(6)
    members, non_members = rng.normal(-2.0, 0.6, 40), rng.normal(-2.3, 0.6, 35)  # loss-like: members lower
    result = membership_auc(members, non_members, member_side=MEMBER_SIDE["loss"], n_boot=4000, seed=3)

    def auc(a: np.ndarray, b: np.ndarray, axis: int = -1) -> np.ndarray:
        d = -a[..., :, None] + b[..., None, :]
        return ((d > 0) + 0.5 * (d == 0)).mean(axis=(-2, -1))

    reference = stats.bootstrap((members, non_members), auc, method="percentile", n_resamples=4000, random_state=1)
    assert result.ci is not None and result.ci.level == 0.95
    assert result.ci.low == pytest.approx(reference.confidence_interval.low, abs=0.015)
    assert result.ci.high == pytest.approx(reference.confidence_interval.high, abs=0.015)
    assert result.auc == pytest.approx(1 - stats.mannwhitneyu(members, non_members).statistic / (40 * 35))


def test_auc_leaves_missing_signals_out() -> None:
    result = membership_auc([1.0, np.nan, 2.0], [0.0], member_side="high")
    assert (result.auc, result.n_members, result.n_non_members, result.n_missing) == (1.0, 2, 1, 1)
    assert result.ci is None  # one non-member cannot be resampled into a spread
    assert membership_auc([], [1.0], member_side="high").auc is None


def _documents(side: str, n_documents: int, per_document: int) -> list[str]:
    return [f"{side}{d}" for d in range(n_documents) for _ in range(per_document)]


def test_clustered_auc_is_still_mann_whitney() -> None:
    rng = np.random.default_rng(11)
    members, non_members = rng.normal(0.4, 1.0, 18), rng.normal(0.0, 1.0, 15)
    result = membership_auc(
        members,
        non_members,
        member_side="high",
        n_boot=200,
        member_documents=_documents("m", 6, 3),
        non_member_documents=_documents("h", 5, 3),
    )
    assert result.auc == pytest.approx(stats.mannwhitneyu(members, non_members).statistic / (18 * 15))
    assert (result.resampled, result.n_member_documents, result.n_non_member_documents) == ("documents", 6, 5)


def test_one_passage_per_document_resamples_exactly_as_passages() -> None:
    rng = np.random.default_rng(12)
    members, non_members = rng.normal(0.3, 1.0, 20), rng.normal(0.0, 1.0, 17)
    plain = membership_auc(members, non_members, member_side="high", n_boot=1000, seed=5)
    clustered = membership_auc(
        members,
        non_members,
        member_side="high",
        n_boot=1000,
        seed=5,
        member_documents=[f"m{i}" for i in range(20)],
        non_member_documents=[f"h{i}" for i in range(17)],
    )
    assert plain.resampled == "passages" and clustered.resampled == "documents"
    assert clustered.ci == plain.ci and clustered.auc == plain.auc


def test_copies_of_passages_narrow_the_passage_interval_but_not_the_document_one() -> None:
    """The old interval was overconfident: a document's passages counted as independent
    evidence, so saying the same thing twice looked like twice the evidence."""
    rng = np.random.default_rng(13)
    documents_m, documents_h = _documents("m", 8, 3), _documents("h", 8, 3)
    # each document shifts all its passages alike: the documents, not the passages, carry the evidence
    members = np.repeat(rng.normal(0.5, 1.0, 8), 3) + rng.normal(0, 0.2, 24)
    non_members = np.repeat(rng.normal(0.0, 1.0, 8), 3) + rng.normal(0, 0.2, 24)
    twice_m, twice_h = np.repeat(members, 2), np.repeat(non_members, 2)

    def width(result: AucResult) -> float:
        assert result.ci is not None
        return result.ci.high - result.ci.low

    once = membership_auc(members, non_members, member_side="high", n_boot=2000, seed=2)
    doubled = membership_auc(twice_m, twice_h, member_side="high", n_boot=2000, seed=2)
    assert width(doubled) < 0.8 * width(once)  # resampling passages: twice the passages, a narrower interval

    by_document = membership_auc(
        members, non_members, member_side="high", n_boot=2000, seed=2,
        member_documents=documents_m, non_member_documents=documents_h,
    )  # fmt: skip
    doubled_by_document = membership_auc(
        twice_m, twice_h, member_side="high", n_boot=2000, seed=2,
        member_documents=list(np.repeat(documents_m, 2)), non_member_documents=list(np.repeat(documents_h, 2)),
    )  # fmt: skip
    # the same documents drawn give the same AUC, copies or not (blocks of draws differ with the table's size)
    assert width(doubled_by_document) == pytest.approx(width(by_document), rel=0.05)
    assert width(by_document) > width(once)  # and the documents' interval is the wider, honest one


def test_fewer_than_two_documents_on_a_side_give_no_interval() -> None:
    result = membership_auc(
        [1.0, 2.0, 3.0],
        [0.0, 0.5, 1.5],
        member_side="high",
        member_documents=["only", "only", "only"],
        non_member_documents=["a", "b", "c"],
    )
    assert result.auc is not None and result.ci is None and result.n_member_documents == 1
    with pytest.raises(StatInputError, match="both sides"):
        membership_auc([1.0], [0.0], member_side="high", member_documents=["a"])
    with pytest.raises(StatInputError, match="2 documents for 1 member passages"):
        membership_auc([1.0], [0.0], member_side="high", member_documents=["a", "b"], non_member_documents=["c"])


# -- hard-token gain (HT-MIA) ------------------------------------------------------


def test_hard_token_gain_reads_the_tokens_the_base_finds_hardest() -> None:
    base = [-0.1, -6.0, -0.2, -5.0, -0.3, -0.4, -0.5, -0.6, -0.7, -0.8]  # the hard ones: positions 1 and 3
    tuned = [-0.1, -1.0, -0.2, -4.0, -0.3, -0.4, -0.5, -0.6, -0.7, -0.8]
    # k = 20% of 10 tokens: the two the base finds hardest, gains 5 and 1
    assert hard_token_gain(tuned, base, 0.2) == pytest.approx((5.0 + 1.0) / 2)
    assert hard_token_gain(tuned, base, 0.1) == pytest.approx(5.0)  # the hardest alone
    assert hard_token_gain(tuned, base, 1.0) == pytest.approx(6.0 / 10)  # every token: the loss gain
    assert hard_token_gain(tuned, base, 0.01) == pytest.approx(5.0)  # at least one token
    # among equally hard tokens the earlier is taken
    assert hard_token_gain([-1.0, -2.0, -3.0], [-4.0, -4.0, -4.0], 0.34) == pytest.approx(3.0)


def test_hard_token_gain_needs_the_same_tokens() -> None:
    with pytest.raises(StatInputError, match="not the same tokens"):
        hard_token_gain([-1.0, -2.0], [-1.0, -2.0, -3.0])
    with pytest.raises(StatInputError, match="reference_logprobs is empty"):
        hard_token_gain([-1.0], [])
    with pytest.raises(StatInputError, match="fraction"):
        hard_token_gain([-1.0], [-1.0], 0.0)


# -- TPR at a low FPR and the ROC curve ---------------------------------------------


def brute_tpr(members: np.ndarray, non_members: np.ndarray, side: str, max_fpr: float) -> tuple[float, float]:
    """Every threshold a flag can use (none flagged, then "at or beyond" each value seen), by
    counting: the largest TPR among those whose FPR is at most ``max_fpr``, with that FPR."""
    a, b = (members, non_members) if side == "high" else (-members, -non_members)
    a, b = a[~np.isnan(a)], b[~np.isnan(b)]
    best = (0.0, 0.0)
    for t in [math.inf, *np.concatenate([a, b])]:
        tpr, fpr = float((a >= t).mean()), float((b >= t).mean())
        if fpr <= max_fpr + 1e-12 and (tpr, -fpr) > (best[0], -best[1]):
            best = (tpr, fpr)
    return best


def brute_roc(members: np.ndarray, non_members: np.ndarray) -> list[tuple[float, float]]:
    return sorted(
        {(0.0, 0.0)}
        | {(float((non_members >= t).mean()), float((members >= t).mean())) for t in [*members, *non_members]}
    )


@pytest.mark.parametrize("seed", range(40))
def test_tpr_at_fpr_is_the_brute_force_over_thresholds(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n_members, n_non_members = int(rng.integers(1, 40)), int(rng.integers(1, 150))
    spread = int(rng.choice([3, 10, 1000]))  # few values: many ties across and within the sides
    members = rng.integers(0, spread, n_members).astype(float) + rng.integers(0, 2)
    non_members = rng.integers(0, spread, n_non_members).astype(float)
    side: Literal["low", "high"] = "high" if seed % 2 else "low"
    for max_fpr in (0.0, 0.01, 0.05, 0.1, 0.5, 1.0):
        result = tpr_at_fpr(members, non_members, member_side=side, max_fpr=max_fpr)
        tpr, fpr = brute_tpr(members, non_members, side, max_fpr)
        assert (result.tpr, result.fpr) == pytest.approx((tpr, fpr)), (max_fpr, members, non_members)
        assert result.members_flagged == round(tpr * n_members) and result.non_members_flagged == round(
            fpr * n_non_members
        )
        assert result.fpr is not None and result.fpr <= max_fpr + 1e-12
    curve = roc_curve(members, non_members, member_side=side)
    oriented = (members, non_members) if side == "high" else (-members, -non_members)
    full = brute_roc(*oriented)
    assert set(curve.points) <= set(full) and curve.points == sorted(curve.points)
    # the corners alone give the same TPR at any FPR, and the same area: the AUC, ties counting half
    for max_fpr in (0.0, 0.01, 0.1, 0.3):
        assert max(t for f, t in curve.points if f <= max_fpr + 1e-12) == pytest.approx(
            brute_tpr(members, non_members, side, max_fpr)[0]
        )
    x, y = np.array(curve.points).T
    auc = membership_auc(members, non_members, member_side=side, n_boot=0).auc
    assert float(np.sum(np.diff(x) * (y[1:] + y[:-1]) / 2)) == pytest.approx(auc)


def test_tpr_at_fpr_by_hand() -> None:
    members = [9.0, 8.0, 7.0, 5.0, 3.0]
    non_members = [6.0, 4.0, 2.0, 1.0]
    # high values mean member: above 6 are three members and no non-member
    at_zero = tpr_at_fpr(members, non_members, member_side="high", max_fpr=0.01)
    assert (at_zero.tpr, at_zero.fpr, at_zero.members_flagged, at_zero.non_members_flagged) == (0.6, 0.0, 3, 0)
    # one of four held-out passages may be flagged at 25%: down to 5, four members
    quarter = tpr_at_fpr(members, non_members, member_side="high", max_fpr=0.25)
    assert (quarter.tpr, quarter.fpr) == (0.8, 0.25)
    # the other way round (low values mean member): the lowest is held out, so nothing is caught at 0
    low = tpr_at_fpr(members, non_members, member_side="low", max_fpr=0.1)
    assert (low.tpr, low.fpr, low.n_members, low.n_non_members) == (0.0, 0.0, 5, 4)
    assert roc_curve(members, non_members, member_side="high").points == [
        (0.0, 0.0), (0.0, 0.6), (0.25, 0.6), (0.25, 0.8), (0.5, 0.8), (0.5, 1.0), (1.0, 1.0),
    ]  # fmt: skip


def test_ties_are_flagged_together() -> None:
    """A member tied with a held-out passage is caught only by flagging that passage too."""
    members, non_members = [5.0, 5.0, 0.0], [5.0] + [0.0] * 9
    strict = tpr_at_fpr(members, non_members, member_side="high", max_fpr=0.05)
    assert (strict.tpr, strict.non_members_flagged) == (0.0, 0)  # the tie at 5 would flag a held-out passage
    lenient = tpr_at_fpr(members, non_members, member_side="high", max_fpr=0.1)
    assert lenient.tpr == pytest.approx(2 / 3) and lenient.fpr == 0.1
    # each tied step is one diagonal, not a member-first stair
    assert roc_curve(members, non_members, member_side="high").points == [
        (0.0, 0.0), (0.1, pytest.approx(2 / 3)), (1.0, 1.0),
    ]  # fmt: skip
    everything_tied = tpr_at_fpr([1.0, 1.0], [1.0, 1.0], member_side="low", max_fpr=0.5)
    assert (everything_tied.tpr, everything_tied.fpr) == (0.0, 0.0)


def test_the_fpr_moves_in_steps_of_one_held_out_passage() -> None:
    """With 32 held-out passages, "1% FPR" can only be 0 of 32 flagged; 10% allows 3 of 32
    (and counts the fewest that reach the same TPR)."""
    rng = np.random.default_rng(3)
    members, non_members = rng.normal(1.0, 1.0, 32), rng.normal(0.0, 1.0, 32)
    one = tpr_at_fpr(members, non_members, member_side="high", max_fpr=0.01)
    assert (one.non_members_flagged, one.fpr) == (0, 0.0)
    assert one.members_flagged == int((members > non_members.max()).sum())
    ten = tpr_at_fpr(members, non_members, member_side="high", max_fpr=0.1)
    assert ten.non_members_flagged <= 3 and ten.fpr == ten.non_members_flagged / 32
    assert ten.members_flagged == int((members >= np.sort(non_members)[-3]).sum())
    hundred = tpr_at_fpr(members, rng.normal(0.0, 1.0, 100), member_side="high", max_fpr=0.01)
    assert hundred.non_members_flagged == 1  # with 100 held out, one may be flagged at 1%


def test_tpr_and_roc_leave_missing_signals_out_and_refuse_bad_input() -> None:
    result = tpr_at_fpr([1.0, np.nan, 2.0], [0.0, np.nan], member_side="high", max_fpr=0.0)
    assert (result.tpr, result.n_members, result.n_non_members) == (1.0, 2, 1)
    empty = tpr_at_fpr([np.nan], [0.0], member_side="high", max_fpr=0.01)
    assert (empty.tpr, empty.fpr, empty.n_members) == (None, None, 0)
    assert roc_curve([], [1.0], member_side="low").points == []
    with pytest.raises(StatInputError, match="max_fpr"):
        tpr_at_fpr([1.0], [0.0], member_side="high", max_fpr=1.5)
    with pytest.raises(StatInputError, match="member_side"):
        roc_curve([1.0], [0.0], member_side="up")  # type: ignore[arg-type]
    with pytest.raises(StatInputError, match="infinite"):
        tpr_at_fpr([math.inf], [0.0], member_side="high", max_fpr=0.1)
