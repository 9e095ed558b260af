"""gtreview.core.stats: hand-computed cases, edge cases, and scipy cross-checks.

Each hand case writes its arithmetic out so a reader can check the expected numbers
without running anything. scipy is a test-only dependency (the ``test`` extra).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from pydantic import ValidationError

from gtreview.core.stats import (
    Interval,
    ScoreSummary,
    agreement,
    breakdown,
    component_kind_rates,
    cronbach_alpha,
    gate_pass_rate,
    group_rows,
    item_analysis,
    paired_difference,
    paired_difference_of_means,
    pairwise_summary,
    per_question,
    score_matrix,
    sign_flip_p_value,
    summarize_scores,
)

stats = pytest.importorskip("scipy.stats")
nan = np.nan


# --------------------------------------------------------------------------- scores


def test_summary_by_hand() -> None:
    scores = np.array([[6, 8], [4, nan], [nan, nan], [10, 10]], dtype=float)
    summary = summarize_scores(scores)
    # per-question means: 7, 4, (none: excluded), 10  ->  mean (7 + 4 + 10) / 3 = 7
    assert summary.mean == pytest.approx(7.0)
    # per-repeat means: (6 + 4 + 10) / 3 = 20/3 and (8 + 10) / 2 = 9;
    # sd (ddof 1) of two values is |a - b| / sqrt(2) = (7/3) / sqrt(2)
    assert summary.sd == pytest.approx((7 / 3) / math.sqrt(2))
    assert (summary.n_questions, summary.n_questions_excluded) == (3, 1)
    assert (summary.n_samples, summary.n_unscored, summary.n_errors, summary.n_repeats) == (5, 3, 0, 2)
    assert summary.ci is not None and 4.0 <= summary.ci.low <= 7.0 <= summary.ci.high <= 10.0


def test_errors_mask_counts_errors_as_zero() -> None:
    scores = np.array([[nan, 8], [6, 6]], dtype=float)
    summary = summarize_scores(scores, errors=np.array([[True, False], [False, False]]))
    # the failed generation scores 0: question means (0 + 8) / 2 = 4 and 6  ->  5
    assert summary.mean == pytest.approx(5.0)
    assert (summary.n_errors, summary.n_unscored, summary.n_samples) == (1, 0, 4)


def test_score_matrix_from_masks() -> None:
    totals = np.array([[5, 9], [7, 3]])
    matrix = score_matrix(
        totals, errors=np.array([[False, True], [False, False]]), unscored=np.array([[False, False], [True, False]])
    )
    np.testing.assert_array_equal(matrix, [[5, 0], [nan, 3]])
    with pytest.raises(ValueError, match="both"):
        score_matrix(totals, errors=np.eye(2, dtype=bool), unscored=np.eye(2, dtype=bool))


def test_all_equal_scores_have_no_spread() -> None:
    summary = summarize_scores(np.full((6, 3), 7.3))
    assert summary.mean == pytest.approx(7.3)
    assert summary.sd == 0.0
    assert summary.ci == Interval(low=7.3, high=7.3)


def test_single_repeat_has_no_sd() -> None:
    summary = summarize_scores(np.array([3.0, 5.0, 7.0]))  # 1-D: K = 1
    assert summary.n_repeats == 1 and summary.sd is None
    assert summary.mean == pytest.approx(5.0) and summary.ci is not None


def test_single_question_has_no_interval() -> None:
    summary = summarize_scores(np.array([[4.0, 6.0, 8.0]]))
    assert summary.mean == pytest.approx(6.0)
    assert summary.sd == pytest.approx(2.0)  # per-repeat means 4, 6, 8
    assert summary.ci is None  # resampling one question would claim certainty


def test_everything_unscored() -> None:
    summary = summarize_scores(np.full((3, 2), nan))
    assert summary.mean is None and summary.sd is None and summary.ci is None
    assert (summary.n_questions, summary.n_questions_excluded, summary.n_unscored) == (0, 3, 6)
    json.loads(summary.model_dump_json())  # None, never NaN: strict JSON


def test_results_refuse_nan() -> None:
    with pytest.raises(ValidationError):
        ScoreSummary(
            mean=nan,
            sd=None,
            ci=None,
            n_questions=0,
            n_questions_excluded=0,
            n_repeats=1,
            n_samples=0,
            n_unscored=0,
            n_errors=0,
        )


def test_bad_matrices_are_rejected() -> None:
    with pytest.raises(ValueError, match="matrix"):
        summarize_scores(np.zeros((2, 2, 2)))
    with pytest.raises(ValueError, match="infinite"):
        summarize_scores(np.array([[1.0, np.inf]]))


def test_same_seed_same_numbers() -> None:
    scores = np.random.default_rng(3).integers(0, 11, (40, 4)).astype(float)
    assert summarize_scores(scores, seed=11) == summarize_scores(scores, seed=11)
    assert summarize_scores(scores, seed=11).ci != summarize_scores(scores, seed=12).ci
    from_generator = summarize_scores(scores, seed=np.random.default_rng(11))
    assert from_generator == summarize_scores(scores, seed=11)


def test_bootstrap_matches_scipy_percentile() -> None:
    scores = np.random.default_rng(5).integers(0, 11, (40, 3)).astype(float)
    ours = summarize_scores(scores, n_boot=20000, seed=1).ci
    theirs = stats.bootstrap(
        (scores.mean(axis=1),), np.mean, n_resamples=20000, method="percentile", rng=np.random.default_rng(2)
    ).confidence_interval
    assert ours is not None
    # standard error of the mean is about 0.25 here; the two Monte Carlo runs agree well within 0.05
    assert ours.low == pytest.approx(theirs.low, abs=0.05)
    assert ours.high == pytest.approx(theirs.high, abs=0.05)


def test_per_question_by_hand() -> None:
    rows = per_question(np.array([[6, 8, nan], [nan, nan, nan], [5, 5, 5]], dtype=float))
    first, empty, flat = rows
    # (6 + 8) / 2 = 7; sd = sqrt(((6 - 7)^2 + (8 - 7)^2) / (2 - 1)) = sqrt(2)
    assert (first.mean, first.min, first.max, first.n, first.n_unscored) == (7.0, 6.0, 8.0, 2, 1)
    assert first.sd == pytest.approx(math.sqrt(2))
    assert (empty.mean, empty.sd, empty.min, empty.max, empty.n, empty.n_unscored) == (None, None, None, None, 0, 3)
    assert (flat.mean, flat.sd, flat.index) == (5.0, 0.0, 2)
    assert per_question(np.array([4.0, 2.0]))[0].sd is None  # K = 1


def test_gate_pass_rate_by_hand() -> None:
    rate = gate_pass_rate(np.array([[1, 0], [1, 1], [nan, 0]], dtype=float))
    # per question 1/2, 2/2, 0/1  ->  (0.5 + 1 + 0) / 3 = 0.5
    assert rate.rate == pytest.approx(0.5)
    # per repeat (1 + 1) / 2 = 1 and (0 + 1 + 0) / 3 = 1/3  ->  sd (2/3) / sqrt(2)
    assert rate.sd == pytest.approx((2 / 3) / math.sqrt(2))
    assert (rate.n_unscored, rate.n_samples) == (1, 5)
    with pytest.raises(ValueError, match="other than"):
        gate_pass_rate(np.array([[0.5, 1.0]]))


def test_breakdown_by_group() -> None:
    scores = np.array([[2, 4], [9, 9], [6, 8], [nan, 1]], dtype=float)
    groups = group_rows(scores, ["easy", "hard", "easy", "medium"])
    assert list(groups) == ["easy", "hard", "medium"]
    np.testing.assert_array_equal(groups["easy"], [[2, 4], [6, 8]])
    result = breakdown(groups, seed=4)
    assert result["easy"].mean == pytest.approx(5.0)  # (3 + 7) / 2
    assert result["hard"].mean == 9.0 and result["hard"].ci is None
    assert result["easy"] == summarize_scores(groups["easy"], seed=4)  # independent of the other groups
    with pytest.raises(ValueError, match="labels"):
        group_rows(scores, ["a"])


# --------------------------------------------------------------------------- paired


def test_paired_difference_by_hand() -> None:
    finetune = np.array([[8, 6], [5, 5], [9, nan], [nan, nan]], dtype=float)
    base = np.array([[5, 5], [6, 4], [7, 7], [3, 3]], dtype=float)
    diff = paired_difference(finetune, base)
    # question means: fine-tune 7, 5, 9, (none); base 5, 5, 7, 3  ->  d = 2, 0, 2 over 3 questions
    assert (diff.n_questions, diff.n_questions_excluded) == (3, 1)
    assert diff.mean_finetune == pytest.approx(7.0) and diff.mean_base == pytest.approx(17 / 3)
    assert diff.mean_difference == pytest.approx(4 / 3)
    # sd: deviations 2/3, -4/3, 2/3; squares 4/9 + 16/9 + 4/9 = 24/9; / (3 - 1) = 4/3
    assert diff.sd_difference == pytest.approx(math.sqrt(4 / 3))
    assert diff.cohens_dz == pytest.approx((4 / 3) / math.sqrt(4 / 3))
    # 8 sign patterns of (2, 0, 2): sums 4, 4, 0, 0, 0, 0, -4, -4; |sum| >= 4 in 4 of 8
    assert diff.p_exact and diff.p_value == pytest.approx(0.5)
    # a resample of three zeros has probability 1/27 > 2.5%: the interval starts at 0
    assert diff.ci is not None and diff.ci.low == 0.0 and diff.verdict == "within noise"


def test_sign_flip_p_enumerated_by_hand() -> None:
    rng = np.random.default_rng(0)
    # d = (3, 1, 2): sums over the 8 patterns +++ 6, ++- 2, +-+ 4, +-- 0, -++ 0, -+- -4, --+ -2, --- -6
    # observed 6: |sum| >= 6 twice  ->  p = 2/8
    assert sign_flip_p_value(np.array([3.0, 1.0, 2.0]), n_perm=0, rng=rng) == (0.25, True)
    # d = (3, 1, -2): observed sum 2; |sums| are 6, 4, 2, 0, 0, 2, 4, 6  ->  six of 8 reach 2
    assert sign_flip_p_value(np.array([3.0, 1.0, -2.0]), n_perm=0, rng=rng) == (0.75, True)
    diff = paired_difference(np.array([[4.0], [6.0], [1.0]]), np.array([[1.0], [5.0], [3.0]]))
    assert (diff.p_value, diff.p_exact) == (0.75, True)


def test_permutation_exact_matches_scipy() -> None:
    rng = np.random.default_rng(8)
    base = rng.integers(0, 11, 12).astype(float)
    finetune = np.clip(base + rng.integers(-2, 4, 12), 0, 10)
    ours = paired_difference(finetune[:, None], base[:, None])
    theirs = stats.permutation_test(
        (finetune, base),
        lambda x, y, axis: np.mean(x - y, axis=axis),
        permutation_type="samples",
        vectorized=True,
        n_resamples=np.inf,
        alternative="two-sided",
    )
    assert ours.p_exact and ours.p_value == pytest.approx(theirs.pvalue, rel=1e-12)


def test_permutation_monte_carlo_matches_scipy() -> None:
    rng = np.random.default_rng(21)
    base = rng.normal(5, 2, 60)
    finetune = base + rng.normal(0.5, 2, 60)
    ours = paired_difference(finetune, base, n_perm=40000, seed=3)
    theirs = stats.permutation_test(
        (finetune, base),
        lambda x, y, axis: np.mean(x - y, axis=axis),
        permutation_type="samples",
        vectorized=True,
        n_resamples=40000,
        alternative="two-sided",
        rng=np.random.default_rng(4),
    )
    assert not ours.p_exact and ours.p_value is not None
    # both estimate the same p (near 0.1) with Monte Carlo sd about 0.0015 each
    assert ours.p_value == pytest.approx(theirs.pvalue, abs=0.01)
    assert paired_difference(finetune, base, n_perm=40000, seed=3) == ours  # reproducible


def test_paired_bootstrap_matches_scipy() -> None:
    rng = np.random.default_rng(9)
    base = rng.integers(0, 11, (50, 3)).astype(float)
    finetune = np.clip(base + rng.integers(-1, 3, (50, 3)), 0, 10)
    ours = paired_difference(finetune, base, n_boot=20000, seed=5).ci
    theirs = stats.bootstrap(
        (finetune.mean(axis=1), base.mean(axis=1)),
        lambda x, y, axis: np.mean(x - y, axis=axis),
        paired=True,
        n_resamples=20000,
        method="percentile",
        rng=np.random.default_rng(6),
    ).confidence_interval
    assert ours is not None
    assert ours.low == pytest.approx(theirs.low, abs=0.03)
    assert ours.high == pytest.approx(theirs.high, abs=0.03)


def test_verdicts() -> None:
    rng = np.random.default_rng(2)
    base = rng.integers(2, 8, (40, 3)).astype(float)
    assert paired_difference(base + 2, base).verdict == "fine-tune better"
    assert paired_difference(base - 2, base).verdict == "base better"
    same = paired_difference(base, base)
    # every difference 0: the interval is [0, 0], every sign pattern is as extreme as 0; nothing
    # varied, so the interval says nothing either way ("no variation", not "within noise")
    assert same.verdict == "no variation" and same.ci == Interval(low=0.0, high=0.0)
    assert paired_difference(base + rng.integers(-1, 2, (40, 3)), base).verdict == "within noise"
    assert same.p_value == 1.0 and same.cohens_dz is None and not same.p_exact


def test_paired_single_question_and_mismatch() -> None:
    one = paired_difference(np.array([[7.0, 9.0]]), np.array([[5.0]]))  # K may differ
    assert one.mean_difference == pytest.approx(3.0) and one.ci is None
    assert one.verdict == "insufficient data" and one.cohens_dz is None
    assert (one.p_value, one.p_exact) == (1.0, True)  # both patterns of one difference are as extreme
    none = paired_difference_of_means([nan, 1.0], [2.0, nan])
    assert none.n_questions == 0 and none.p_value is None and none.mean_difference is None
    with pytest.raises(ValueError, match="questions"):
        paired_difference(np.zeros((3, 2)), np.zeros((4, 2)))


# --------------------------------------------------------------------------- pairwise


def test_pairwise_summary_by_hand() -> None:
    summary = pairwise_summary(
        ["A>>B", "A>B", "A=B", "B>A", "unknown", "A>B"],
        [2.0, 1.0, 0.0, -1.0, None, 0.5],
        [False, False, True, False, False, True],
    )
    assert (summary.wins, summary.strong_wins, summary.ties, summary.losses, summary.unknown) == (3, 1, 1, 1, 1)
    assert (summary.n_pairs, summary.n_known) == (6, 5)
    # rates among the 5 known pairs: wins 3/5, ties 1/5, losses 1/5
    assert (summary.win_rate, summary.tie_rate, summary.loss_rate) == (0.6, 0.2, 0.2)
    # mean of the known averages (2 + 1 + 0 - 1 + 0.5) / 5 = 0.5; two inconsistent of 5 known
    assert summary.mean_average == pytest.approx(0.5)
    assert (summary.n_inconsistent, summary.position_bias_rate) == (2, 0.4)
    assert summary.ci is not None and -1.0 <= summary.ci.low <= 0.5 <= summary.ci.high <= 2.0


def test_pairwise_all_unknown_is_not_a_tie() -> None:
    summary = pairwise_summary(["unknown"] * 3, [None] * 3, [False] * 3)
    assert (summary.unknown, summary.ties, summary.n_known) == (3, 0, 0)
    assert summary.win_rate is None and summary.mean_average is None and summary.ci is None
    assert summary.position_bias_rate is None


def test_pairwise_clusters_by_question() -> None:
    labels, averages = ["A>>B", "A>B", "B>A", "unknown"], [2.0, 1.0, -1.0, None]
    clustered = pairwise_summary(labels, averages, [False] * 4, question_ids=["q1", "q1", "q2", "q2"])
    # question means (2 + 1) / 2 = 1.5 and -1 (the unknown pair drops out)  ->  0.25
    assert clustered.mean_average == pytest.approx(0.25)
    flat = pairwise_summary(labels, averages, [False] * 4)
    assert flat.mean_average == pytest.approx(2 / 3)  # (2 + 1 - 1) / 3


def test_pairwise_rejects_incoherent_input() -> None:
    with pytest.raises(ValueError, match="labelled"):
        pairwise_summary(["A>B"], [None], [False])
    with pytest.raises(ValueError, match="labelled"):
        pairwise_summary(["unknown"], [1.0], [False])
    with pytest.raises(ValueError, match="same length"):
        pairwise_summary(["A>B", "A=B"], [1.0], [False])
    with pytest.raises(ValueError):
        pairwise_summary(["A>>>B"], [1.0], [False])


def test_pairwise_reproducible() -> None:
    labels = ["A>B", "A=B", "B>A", "A>>B", "A>B"] * 4
    averages = [1.0, 0.0, -1.0, 2.0, 0.5] * 4
    first = pairwise_summary(labels, averages, [False] * 20, seed=7)
    assert first == pairwise_summary(labels, averages, [False] * 20, seed=7)


# --------------------------------------------------------------------------- agreement


def test_agreement_by_hand() -> None:
    result = agreement([1.0, -0.5, 0.1, 0.3, 2.0, nan, 0.25], [0.5, -1.0, -0.2, 0.0, None, 1.0, -0.25])
    # q0 +/+ agree; q1 -/- agree; q2 both within 0.25: tie/tie agree; q3 + (0.3 > 0.25) / tie: disagree;
    # q4 no pairwise mean, q5 no pointwise difference: not compared; q6 both on the bound: tie/tie agree
    assert [q.agree for q in result.questions] == [True, True, True, False, None, None, True]
    assert (result.n_compared, result.n_agree, result.disagreeing) == (5, 4, [3])
    assert result.rate == pytest.approx(0.8)
    assert (result.questions[3].pointwise, result.questions[3].pairwise) == (1, 0)
    with pytest.raises(ValueError, match="per question"):
        agreement([1.0], [])


def test_agreement_nothing_compared() -> None:
    result = agreement([1.0, 2.0], [None, None])
    assert result.rate is None and result.n_compared == 0 and result.disagreeing == []


# --------------------------------------------------------------------------- component kinds

KIND_MAXIMA = np.array([[2, 3, 5], [2, 4, 0]], dtype=float)  # question 1 has two components: slot 2 is padding
KIND_KINDS = np.array([["gate", "binary", "reasoning"], ["gate", "reasoning", ""]])


def test_component_kind_rates_by_hand() -> None:
    base = np.array(
        [
            [[2, 3, 1], [2, 0, 3]],
            [[2, 2, nan], [0, 0, 0]],  # NaN in a padding slot is ignored; the second repeat failed the gate
        ],
        dtype=float,
    )
    finetune = np.array(
        [
            [[2, 3, 5], [nan, nan, nan]],  # second repeat unscored
            [[2, 4, 0], [2, 3, 0]],
        ],
        dtype=float,
    )
    report = component_kind_rates({"base": base, "ft": finetune}, KIND_MAXIMA, KIND_KINDS)
    assert report.base == "base" and report.kinds == ["gate", "binary", "reasoning"]
    b, f = report.rates["base"], report.rates["ft"]
    # base gate: q0 (2/2 + 2/2) / 2 = 1, q1 (2/2 + 0/2) / 2 = 0.5  ->  0.75
    assert b["gate"].rate == pytest.approx(0.75)
    # base binary, q0 only: (3/3 + 0/3) / 2 = 0.5; one question: no interval
    assert (b["binary"].rate, b["binary"].n_questions, b["binary"].ci) == (0.5, 1, None)
    # base reasoning: q0 (1/5 + 3/5) / 2 = 0.4, q1 (2/4 + 0/4) / 2 = 0.25  ->  0.325
    assert b["reasoning"].rate == pytest.approx(0.325)
    # fine-tune: gate q0 1 (one scored repeat), q1 1 -> 1; binary q0 3/3 = 1;
    # reasoning q0 5/5 = 1, q1 (4/4 + 3/4) / 2 = 0.875  ->  0.9375
    assert (f["gate"].rate, f["binary"].rate) == (1.0, 1.0)
    assert f["reasoning"].rate == pytest.approx(0.9375)
    gains = report.differences["ft"]
    assert set(report.differences) == {"ft"}
    assert gains["gate"].mean_difference == pytest.approx(0.25)  # (0 + 0.5) / 2
    assert gains["binary"].mean_difference == pytest.approx(0.5) and gains["binary"].verdict == "insufficient data"
    assert gains["reasoning"].mean_difference == pytest.approx(0.6125)  # (0.6 + 0.625) / 2
    json.loads(report.model_dump_json())


def test_component_kind_gain_on_facts_not_reasoning() -> None:
    rng = np.random.default_rng(12)
    q, k = 40, 3
    maxima, kinds = np.array([2.0, 4.0, 4.0]), ["gate", "binary", "reasoning"]
    reasoning = rng.integers(0, 5, (q, k)).astype(float)
    base = np.stack([np.full((q, k), 2.0), (rng.random((q, k)) < 0.3) * 4.0, reasoning], axis=2)
    finetune = np.stack([np.full((q, k), 2.0), np.full((q, k), 4.0), reasoning], axis=2)
    report = component_kind_rates({"base": base, "ft": finetune}, maxima, kinds)
    assert report.differences["ft"]["binary"].verdict == "fine-tune better"
    assert report.differences["ft"]["reasoning"].verdict == "no variation"  # the same reasoning points everywhere
    assert report.rates["ft"]["binary"].rate == 1.0


def test_component_kind_rates_validation() -> None:
    awards = np.array([[[2, 3, 9]]], dtype=float)  # 9 > 5
    with pytest.raises(ValueError, match="within"):
        component_kind_rates({"m": awards}, KIND_MAXIMA[:1], KIND_KINDS[:1])
    with pytest.raises(ValueError, match="shape"):
        component_kind_rates({"m": np.zeros((1, 1, 3))}, np.ones(2), ["gate", "binary"])
    with pytest.raises(ValueError, match="base"):
        component_kind_rates({"m": np.zeros((1, 1, 3))}, np.ones(3), ["gate"] * 3, base="x")
    named = component_kind_rates({"a": np.zeros((2, 1, 1)), "b": np.ones((2, 1, 1))}, [1.0], ["binary"], base="b")
    assert set(named.differences) == {"a"} and named.differences["a"]["binary"].mean_difference == -1.0


# --------------------------------------------------------------------------- item analysis


def test_item_analysis_by_hand() -> None:
    # 3 questions x 4 respondents; respondent totals 3, 9, 12, 16
    matrix = np.array([[2, 4, 6, 8], [1, 3, 2, 4], [0, 2, 4, 4]], dtype=float)
    result = item_analysis(matrix)
    # difficulty = mean / 10: 5/10, 2.5/10, 2.5/10
    assert [item.difficulty for item in result.items] == [0.5, 0.25, 0.25]
    # item variances (ddof 1): 20/3, 5/3, 11/3 (sum 12); total variance: deviations -7, -1, 2, 6 -> 90/3 = 30
    # alpha = 3/2 * (1 - 12/30) = 0.9
    assert result.alpha == pytest.approx(0.9)
    # item 0 against rest (1, 5, 6, 8): deviations (-3, -1, 1, 3) and (-4, 0, 1, 3)
    # r = (12 + 0 + 1 + 9) / sqrt(20 * 26) = 22 / sqrt(520)
    assert result.items[0].discrimination == pytest.approx(22 / math.sqrt(520))
    # item 1 against rest (2, 6, 10, 12): deviations (-1.5, .5, -.5, 1.5) and (-5.5, -1.5, 2.5, 4.5)
    # r = (8.25 - 0.75 - 1.25 + 6.75) / sqrt(5 * 59) = 13 / sqrt(295)
    assert result.items[1].discrimination == pytest.approx(13 / math.sqrt(295))
    assert (result.n_items, result.n_respondents, result.n_items_dropped) == (3, 4, 0)


def test_discrimination_matches_pearsonr() -> None:
    matrix = np.random.default_rng(4).integers(0, 11, (8, 15)).astype(float)
    result = item_analysis(matrix)
    for i, item in enumerate(result.items):
        rest = np.delete(matrix, i, axis=0).sum(axis=0)
        assert item.discrimination == pytest.approx(stats.pearsonr(matrix[i], rest).statistic, abs=1e-12)


def test_known_cronbach_alpha_examples() -> None:
    # mtcars cyl, gear, carb, hp: 0.09463206 (easystats/performance test suite)
    cyl = [6, 6, 4, 6, 8, 6, 8, 4, 4, 6, 6, 8, 8, 8, 8, 8, 8, 4, 4, 4, 4, 8, 8, 8, 8, 4, 4, 4, 8, 6, 8, 4]
    gear = [4, 4, 4, 3, 3, 3, 3, 4, 4, 4, 4, 3, 3, 3, 3, 3, 3, 4, 4, 4, 3, 3, 3, 3, 3, 4, 5, 5, 5, 5, 5, 4]
    carb = [4, 4, 1, 1, 2, 1, 4, 2, 2, 4, 4, 3, 3, 3, 4, 4, 4, 1, 2, 1, 1, 2, 2, 4, 2, 1, 2, 2, 4, 6, 8, 2]
    hp = [110, 110, 93, 110, 175, 105, 245, 62, 95, 123, 123, 180, 180, 180, 205, 215, 230]
    hp += [66, 52, 65, 97, 150, 150, 245, 175, 66, 91, 113, 264, 175, 335, 109]
    assert cronbach_alpha(np.column_stack([cyl, gear, carb, hp])) == pytest.approx(0.09463206, abs=1e-7)
    # StatsBase.jl example: covariance [[10,6,6,6],[6,11,6,6],[6,6,12,6],[6,6,6,13]] -> 0.8136;
    # by hand 4/3 * (1 - 46/118) = 96/118. Data with exactly that sample covariance:
    cov = np.array([[10, 6, 6, 6], [6, 11, 6, 6], [6, 6, 12, 6], [6, 6, 6, 13]], dtype=float)
    z = np.random.default_rng(0).normal(size=(30, 4))
    z -= z.mean(axis=0)
    q, _ = np.linalg.qr(z)  # orthonormal, still centred
    data = q * math.sqrt(29) @ np.linalg.cholesky(cov).T
    assert cronbach_alpha(data) == pytest.approx(96 / 118)
    # parallel items agree perfectly; respondents (1, 1) and (1, 2): alpha 0
    assert cronbach_alpha([[1, 1], [2, 2]]) == pytest.approx(1.0)
    assert cronbach_alpha([[1, 1], [1, 2]]) == pytest.approx(0.0)
    assert cronbach_alpha([[1, 1], [1, 1]]) is None and cronbach_alpha([[1], [2]]) is None


def test_alpha_interval_matches_scipy_bootstrap() -> None:
    rng = np.random.default_rng(17)
    ability = rng.normal(0, 1, 40)
    matrix = np.clip(np.round(5 + 2 * ability + rng.normal(0, 1.5, (6, 40))), 0, 10)
    ours = item_analysis(matrix, n_boot=5000, seed=1).alpha_ci
    theirs = stats.bootstrap(
        (np.arange(40),),
        lambda idx: cronbach_alpha(matrix[:, idx.astype(int)].T),
        vectorized=False,
        n_resamples=5000,
        method="percentile",
        rng=np.random.default_rng(2),
    ).confidence_interval
    assert ours is not None
    assert ours.low == pytest.approx(theirs.low, abs=0.02)
    assert ours.high == pytest.approx(theirs.high, abs=0.02)
    assert item_analysis(matrix, n_boot=5000, seed=1).alpha_ci == ours


def test_item_analysis_missing_values() -> None:
    matrix = np.array([[2, 4, 6, 8], [1, 3, nan, 4], [0, 2, 4, 4], [5, 5, 5, 5]], dtype=float)
    by_items = item_analysis(matrix)
    assert by_items.missing == "drop_items" and by_items.n_items_dropped == 1
    unscored = by_items.items[1]
    assert not unscored.included and unscored.discrimination is None
    assert unscored.difficulty == pytest.approx(8 / 3 / 10) and unscored.n == 3
    assert by_items.items[3].included and by_items.items[3].discrimination is None  # a constant item
    # items 0, 2, 3 over all 4 respondents; the constant item adds no variance:
    # variances 20/3, 11/3, 0 (sum 31/3); totals 7, 11, 15, 17 -> deviations -5.5, -1.5, 2.5, 4.5 -> 59/3
    assert by_items.alpha == pytest.approx(1.5 * (1 - 31 / 59))
    by_respondents = item_analysis(matrix, missing="drop_respondents")
    assert (by_respondents.n_respondents, by_respondents.n_respondents_dropped, by_respondents.n_items) == (3, 1, 4)
    assert by_respondents.items[1].included
    with pytest.raises(ValueError, match="rule"):
        item_analysis(matrix, missing="pairwise")  # type: ignore[arg-type]


def test_item_analysis_degenerate() -> None:
    one_respondent = item_analysis(np.array([[3.0], [4.0]]))
    assert one_respondent.alpha is None and one_respondent.alpha_ci is None
    assert all(item.discrimination is None for item in one_respondent.items)
    one_item = item_analysis(np.array([[3.0, 5.0, 9.0]]))
    assert one_item.alpha is None and one_item.items[0].difficulty == pytest.approx(17 / 30)
    json.loads(one_item.model_dump_json())
