"""gtreview.core.stats_membership: membership signals and their AUC on a known split.

Signals are checked by hand against their papers' definitions; the AUC against
scipy.stats.mannwhitneyu (U / (n1 n2), ties counted half) and its stratified interval
against scipy.stats.bootstrap, which resamples each of several samples on its own.
"""

from __future__ import annotations

import math
import zlib

import numpy as np
import pytest

from gtreview.core.statistics import (
    MEMBER_SIDE,
    AucResult,
    StatInputError,
    loss,
    membership_auc,
    min_k,
    min_k_plus,
    reference_ratio,
    token_moments,
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
