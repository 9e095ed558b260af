"""gtreview.core.stats.design, stats_passk, stats_bradley_terry: paired inference by design.

Cross-checks: a loop that concatenates the drawn documents' questions (the clustered
bootstrap as written in Field & Welsh 2007), scipy.stats.binomtest (McNemar's exact
test is a binomial test on the discordant pairs), enumeration of every k-subset of a
question's answers (pass^k, pass@k), and a direct maximisation of the Bradley-Terry
likelihood with scipy.optimize.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from gtreview.core.stats import (
    StatInputError,
    bradley_terry,
    clustered_paired_difference,
    gate_reliability,
    majority_pass,
    mcnemar_exact,
    paired_difference,
    pass_at_k,
    pass_hat_k,
)
from gtreview.core.stats import design as stats_design

stats = pytest.importorskip("scipy.stats")
optimize = pytest.importorskip("scipy.optimize")
nan = np.nan


# --------------------------------------------------------------------------- clustered bootstrap


def test_cluster_replicates_by_hand() -> None:
    # document 0 holds differences 1 and 3, document 1 holds 5
    d, clusters = np.array([1.0, 3.0, 5.0]), np.array([0, 0, 1])
    weights = np.array([[2.0, 0.0], [1.0, 1.0], [0.0, 2.0]])
    # (1 + 3 + 1 + 3) / 4 = 2; (1 + 3 + 5) / 3 = 3; (5 + 5) / 2 = 5
    assert stats_design.cluster_replicates(d, clusters, weights) == pytest.approx([2.0, 3.0, 5.0])


def test_clustered_interval_matches_a_loop_over_drawn_documents() -> None:
    rng = np.random.default_rng(5)
    documents = [f"doc{i % 7}" for i in range(40)]
    ft, base = rng.normal(6, 2, (40, 3)), rng.normal(5, 2, (40, 3))
    result = clustered_paired_difference(ft, base, documents, n_boot=500, seed=9)
    d = ft.mean(axis=1) - base.mean(axis=1)
    codes = np.array([int(name[3:]) for name in documents])
    drawn = np.random.default_rng(9).integers(0, 7, size=(500, 7))  # the draws bootstrap_weights makes
    replicates = [np.concatenate([d[codes == c] for c in row]).mean() for row in drawn]
    low, high = np.percentile(replicates, [2.5, 97.5])
    assert result.ci is not None and (result.ci.low, result.ci.high) == (pytest.approx(low), pytest.approx(high))
    assert result.ci.level == 0.95
    assert (result.n_clusters, result.n_questions) == (7, 40)
    assert result.mean_difference == pytest.approx(d.mean())


def test_documents_that_move_together_widen_the_interval() -> None:
    rng = np.random.default_rng(2)
    documents = np.repeat(np.arange(8), 10)
    shared = 3.0 * rng.standard_normal(8)[documents]  # what the fine-tune memorised of each report
    ft = (5 + shared + 0.3 * rng.standard_normal(80))[:, None]
    base = np.full((80, 1), 5.0)
    clustered = clustered_paired_difference(ft, base, list(documents), seed=1)
    naive = paired_difference(ft, base, seed=1)
    assert clustered.ci is not None and naive.ci is not None
    assert clustered.ci.high - clustered.ci.low > 2.5 * (naive.ci.high - naive.ci.low)


def test_clustered_difference_leaves_out_unscored_questions_and_one_document_has_no_interval() -> None:
    ft = np.array([[1.0], [nan], [3.0]])
    result = clustered_paired_difference(ft, np.zeros((3, 1)), ["a", "b", "a"])
    assert (result.n_clusters, result.n_questions, result.n_questions_excluded) == (1, 2, 1)
    assert result.ci is None and result.verdict == "insufficient data"
    assert result.mean_difference == pytest.approx(2.0)
    with pytest.raises(StatInputError, match="document labels"):
        clustered_paired_difference(ft, np.zeros((3, 1)), ["a", "b"])


# --------------------------------------------------------------------------- McNemar


@pytest.mark.parametrize(("b", "c"), [(0, 5), (3, 9), (10, 10), (7, 2), (612, 540)])
def test_mcnemar_matches_scipy_binomtest(b: int, c: int) -> None:
    ft = [1] * b + [0] * c + [1] * 4 + [0] * 3
    base = [0] * b + [1] * c + [1] * 4 + [0] * 3
    result = mcnemar_exact(ft, base)
    expected = stats.binomtest(b, b + c, 0.5, alternative="two-sided").pvalue
    assert result.p_value == pytest.approx(expected, rel=1e-9)
    assert (result.finetune_only, result.base_only, result.both, result.neither) == (b, c, 4, 3)
    assert result.rate_difference == pytest.approx((b - c) / (b + c + 7))


def test_mcnemar_by_hand_and_without_discordant_pairs() -> None:
    # b = 1, c = 4: p = 2 * (C(5,0) + C(5,1)) / 2^5 = 12 / 32
    result = mcnemar_exact([1, 0, 0, 0, 0, 1, nan], [0, 1, 1, 1, 1, 1, 1])
    assert result.p_value == pytest.approx(12 / 32)
    assert (result.n_pairs, result.n_excluded) == (6, 1)
    assert mcnemar_exact([1, 0], [1, 0]).p_value is None


def test_majority_pass_leaves_ties_out() -> None:
    gate = np.array([[1, 1, 0], [0, 0, 1], [1, 0, nan], [nan, nan, nan]])
    assert np.array_equal(majority_pass(gate), [1.0, 0.0, nan, nan], equal_nan=True)
    with pytest.raises(StatInputError, match="other than 1, 0"):
        mcnemar_exact([2], [1])


# --------------------------------------------------------------------------- pass^k


@pytest.mark.parametrize(("n", "c"), [(5, 3), (6, 6), (4, 0), (7, 2)])
def test_pass_k_estimators_equal_enumeration_of_k_subsets(n: int, c: int) -> None:
    outcomes = [True] * c + [False] * (n - c)
    for k in range(1, n + 1):
        subsets = list(combinations(outcomes, k))
        assert pass_hat_k(n, c, k) == pytest.approx(np.mean([all(s) for s in subsets]))
        assert pass_at_k(n, c, k) == pytest.approx(np.mean([any(s) for s in subsets]))
    assert pass_hat_k(n, c, n + 1) is None


def test_gate_reliability_by_hand() -> None:
    gate = np.array([[1, 1, 0, 0], [1, 1, 1, 1], [0, 0, 0, nan], [1, nan, nan, nan]])
    result = gate_reliability(gate, ks=[1, 2])
    first = result.questions[0]
    # 4 answers, 2 pass: of the 6 pairs of answers 2 * 2 = 4 disagree
    assert first.disagreement == pytest.approx(4 / 6) and first.flaky
    assert result.share_flaky == pytest.approx(1 / 3)  # the fourth question has one answer
    assert result.mean_disagreement == pytest.approx((4 / 6) / 3)
    one, two = result.by_k
    assert one.pass_hat_k == pytest.approx((0.5 + 1 + 0 + 1) / 4) == one.pass_at_k
    # k = 2 over the three questions with two answers: C(2,2)/C(4,2) = 1/6, 1, 0
    assert two.pass_hat_k == pytest.approx((1 / 6 + 1 + 0) / 3)
    assert two.pass_at_k == pytest.approx((1 - 1 / 6 + 1 + 0) / 3)
    assert two.n_questions == 3 and two.pass_hat_k_ci is not None


# --------------------------------------------------------------------------- Bradley-Terry


def scipy_log_strengths(first: np.ndarray, second: np.ndarray, score: np.ndarray, m: int) -> np.ndarray:
    """Maximise sum s log g_a/(g_a+g_b) + (1-s) log g_b/(g_a+g_b) directly, log g_0 fixed at 0."""

    def nll(free: np.ndarray) -> float:
        theta = np.concatenate([[0.0], free])
        diff = theta[first] - theta[second]
        return float(-(score * -np.logaddexp(0, -diff) + (1 - score) * -np.logaddexp(0, diff)).sum())

    fit = optimize.minimize(nll, np.zeros(m - 1), method="BFGS", options={"gtol": 1e-10})
    theta = np.concatenate([[0.0], fit.x])
    return theta - theta.mean()


def test_bradley_terry_matches_direct_likelihood_maximisation() -> None:
    rng = np.random.default_rng(4)
    names = ["base", "ft-a", "ft-b", "ft-c"]
    truth = np.array([0.0, 0.5, 1.0, -0.3])
    pairs = [(i, j) for i, j in combinations(range(4), 2)]
    first, second, score = [], [], []
    for _ in range(30):
        for i, j in pairs:
            p = 1 / (1 + np.exp(truth[j] - truth[i]))
            u = rng.random()
            first.append(i)
            second.append(j)
            score.append(1.0 if u < p - 0.05 else 0.5 if u < p + 0.05 else 0.0)  # a band of ties
    f, s, y = np.array(first), np.array(second), np.array(score)
    result = bradley_terry([names[i] for i in f], [names[j] for j in s], y, n_boot=300, seed=1)
    expected = scipy_log_strengths(f, s, y, 4)
    assert [x.model for x in result.strengths] == names
    assert [x.log_strength for x in result.strengths] == pytest.approx(expected, abs=1e-5)
    assert sum(x.log_strength or 0 for x in result.strengths) == pytest.approx(0.0, abs=1e-9)
    for strength in result.strengths:
        assert strength.ci is not None and strength.ci.covers(strength.log_strength or 0.0)


def test_bradley_terry_ties_are_half_wins_and_clusters_are_questions() -> None:
    result = bradley_terry(["a", "b", "c"], ["b", "c", "a"], [0.5, 0.5, 0.5], questions=["q1", "q1", "q2"])
    assert [x.log_strength for x in result.strengths] == pytest.approx([0.0, 0.0, 0.0])
    assert [x.wins for x in result.strengths] == pytest.approx([1.0, 1.0, 1.0])
    assert result.n_questions == 2


def test_bradley_terry_without_a_strongly_connected_beat_graph_is_inestimable() -> None:
    # "a" never loses: its strength would run off to infinity
    result = bradley_terry(["a", "a", "b"], ["b", "c", "c"], [1.0, 1.0, 0.0])
    assert not result.estimable
    assert all(x.log_strength is None and x.ci is None for x in result.strengths)
    with pytest.raises(StatInputError, match="itself"):
        bradley_terry(["a"], ["a"], [1.0])
