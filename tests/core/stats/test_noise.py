"""gtreview.core.stats.noise and stats_retest: judge noise apart from model noise.

The nested estimators are checked three ways: a small balanced case worked by hand,
a large simulation with known variances (balanced and with a third of the verdicts
missing, where the balanced formulas would be biased), and scipy's one-way ANOVA F
for the per-question split. The retest statistics against published worked examples.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from gtreview.core.stats import (
    StatInputError,
    fleiss_kappa,
    gate_retest,
    noise_per_question,
    noise_split,
    verdict_icc,
)

stats = pytest.importorskip("scipy.stats")
nan = np.nan

# Q = 2 questions, K = 2 answers, J = 2 verdicts each.
HAND = np.array([[[1, 3], [5, 7]], [[2, 2], [4, 4]]], dtype=float)


def simulate(q: int, k: int, j: int, sds: tuple[float, float, float], seed: int, missing: float = 0.0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    a, b, e = sds
    cube = (
        5 + a * rng.standard_normal((q, 1, 1)) + b * rng.standard_normal((q, k, 1)) + e * rng.standard_normal((q, k, j))
    )
    if missing:
        cube[rng.random(cube.shape) < missing] = nan
    return cube


def test_nested_split_by_hand() -> None:
    split = noise_split(HAND)
    # within answers: (1-2)^2 + (3-2)^2 + (5-6)^2 + (7-6)^2 + 0 = 4 over 8 - 4 df -> MSW = 1
    assert split.judge_variance == pytest.approx(1.0)
    # answers in questions: 2 * ((2-4)^2 + (6-4)^2) + 2 * ((2-3)^2 + (4-3)^2) = 20 over 4 - 2 df -> 10;
    # (10 - 1) / k1, k1 = 2 verdicts per answer -> 4.5
    assert split.sampling_variance == pytest.approx(4.5)
    # questions: 4 * ((4-3.5)^2 + (3-3.5)^2) = 2 over 1 df; (2 - 1 - 2 * 4.5) / 4 < 0 -> truncated to 0
    assert split.question_variance == 0.0
    # var of the mean: 4.5 * (1/2 + 1/2) / 2^2 = 1.125 from answers; 1 * (1/4 + 1/4) / 2^2 = 0.125 from verdicts
    assert split.se_sampling == pytest.approx(math.sqrt(1.125))
    assert split.se_judge == pytest.approx(math.sqrt(0.125))
    assert split.se_measurement == pytest.approx(math.sqrt(1.25))
    assert split.se_total == pytest.approx(math.sqrt(1.25))  # plus question variance 0 / 2
    assert (split.n_questions, split.n_answers, split.n_verdicts) == (2, 4, 8)


def test_per_question_split_by_hand() -> None:
    first, second = noise_per_question(HAND)
    # q0: within SS (1 + 1 + 1 + 1) = 4 over N - K = 4 - 2 df -> MSW = 2
    assert first.judge_variance == pytest.approx(2.0)
    # MSB = 2 * ((2-4)^2 + (6-4)^2) / 1 = 16, n0 = 2 -> (16 - 2) / 2 = 7
    assert first.sampling_variance == pytest.approx(7.0)
    assert first.mean == pytest.approx(4.0)
    # q1: MSW 0, MSB = 2 * (1 + 1) = 4 -> 2
    assert (second.judge_variance, second.sampling_variance) == (pytest.approx(0.0), pytest.approx(2.0))


@pytest.mark.parametrize("missing", [0.0, 0.35])
def test_nested_split_recovers_known_variances(missing: float) -> None:
    cube = simulate(3000, 3, 3, (2.0, 1.0, 0.5), seed=11, missing=missing)
    split = noise_split(cube)
    assert split.judge_variance == pytest.approx(0.25, rel=0.05)
    assert split.sampling_variance == pytest.approx(1.0, rel=0.08)
    assert split.question_variance == pytest.approx(4.0, rel=0.08)


def test_standard_errors_match_the_spread_of_the_mean_over_reruns() -> None:
    """Fixed questions, answers and verdicts drawn again: the sd of the model mean over reruns."""
    rng = np.random.default_rng(3)
    difficulty = 2.0 * rng.standard_normal((200, 1, 1))
    design = rng.random((200, 4, 3)) < 0.3  # the same missing cells every rerun (unbalanced)
    design[:, :, 0] = False
    means, estimates = [], []
    for _ in range(300):
        cube = difficulty + 1.0 * rng.standard_normal((200, 4, 1)) + 0.7 * rng.standard_normal((200, 4, 3))
        cube[design] = nan
        answer_means = np.nanmean(cube, axis=2)
        means.append(answer_means.mean(axis=1).mean())
        estimates.append(noise_split(cube).se_measurement)
    assert np.mean(estimates) == pytest.approx(np.std(means, ddof=1), rel=0.1)


def test_per_question_split_matches_scipy_anova() -> None:
    groups = [np.array([3.0, 4.0, 6.0]), np.array([7.0, 7.5]), np.array([1.0, 2.0, 2.5, 4.0])]
    width = max(g.size for g in groups)
    cube = np.full((1, 3, width), nan)
    for k, g in enumerate(groups):
        cube[0, k, : g.size] = g
    (row,) = noise_per_question(cube)
    f, _ = stats.f_oneway(*groups)
    sizes = np.array([g.size for g in groups])
    n0 = (sizes.sum() - (sizes**2).sum() / sizes.sum()) / 2
    within = sum(((g - g.mean()) ** 2).sum() for g in groups) / (sizes.sum() - 3)
    assert row.judge_variance == pytest.approx(within)
    assert (row.sampling_variance * n0 + row.judge_variance) / row.judge_variance == pytest.approx(f)


def test_one_verdict_per_answer_leaves_the_split_undefined() -> None:
    split = noise_split(np.arange(12, dtype=float).reshape(4, 3, 1))
    assert split.judge_variance is None and split.sampling_variance is None and split.se_measurement is None
    assert split.n_verdicts == 12


def test_bad_shapes_are_one_line_errors() -> None:
    with pytest.raises(StatInputError, match="questions, answers, verdicts"):
        noise_split(np.zeros((3, 2)))
    with pytest.raises(StatInputError, match="infinite"):
        noise_split(np.full((1, 2, 2), np.inf))


# --------------------------------------------------------------------------- retest


def test_icc_matches_shrout_fleiss_worked_example() -> None:
    """Shrout & Fleiss (1979), Table 2: 6 targets x 4 judges; ICC(1,1) = .17 (Table 4)."""
    ratings = np.array([[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]], float)
    result = verdict_icc(ratings[:, None, :])
    # their one-way table: BMS = 11.24, WMS = 6.26; (11.24 - 6.26) / (11.24 + 3 * 6.26) = 0.166
    assert result.ms_between == pytest.approx(11.24, abs=0.01)
    assert result.ms_within == pytest.approx(6.26, abs=0.01)
    assert result.icc == pytest.approx(0.166, abs=0.001)


def test_icc_unbalanced_uses_the_mean_group_size() -> None:
    cube = np.array([[[1.0, 2.0, nan], [5.0, 6.0, 7.0]], [[3.0, nan, nan], [9.0, 9.0, nan]]])
    result = verdict_icc(cube)  # the single-verdict answer is no retest: 3 answers, 7 verdicts
    sizes = np.array([2.0, 3.0, 2.0])
    n0 = (7 - (sizes**2).sum() / 7) / 2
    msb, msw = result.ms_between, result.ms_within
    assert (result.n_answers, result.n_verdicts) == (3, 7)
    # within: [1, 2] 0.5, [5, 6, 7] 2.0, [9, 9] 0 over 7 - 3 df; between: means 1.5, 6, 9 around 39/7
    assert msw == pytest.approx((0.5 + 2.0 + 0.0) / 4)
    assert msb == pytest.approx((2 * (1.5 - 39 / 7) ** 2 + 3 * (6 - 39 / 7) ** 2 + 2 * (9 - 39 / 7) ** 2) / 2)
    assert result.icc == pytest.approx((msb - msw) / (msb + (n0 - 1) * msw))


def test_fleiss_kappa_matches_the_worked_example() -> None:
    """Fleiss (1971) layout as worked on Wikipedia's "Fleiss' kappa" page: 10 subjects,
    14 raters, 5 categories; P-bar = 0.378, P_e = 0.213, kappa = 0.210."""
    table = [
        [0, 0, 0, 0, 14],
        [0, 2, 6, 4, 2],
        [0, 0, 3, 5, 6],
        [0, 3, 9, 2, 0],
        [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0],
        [3, 2, 6, 3, 0],
        [2, 5, 3, 2, 2],
        [6, 5, 2, 1, 0],
        [0, 2, 2, 3, 7],
    ]
    assert fleiss_kappa(table) == pytest.approx(0.210, abs=0.0005)


def test_gate_retest_by_hand() -> None:
    # four answers, two verdicts each: agree, agree, disagree, agree
    gate = np.array([[[1, 1], [0, 0]], [[1, 0], [1, 1]]], dtype=float)
    result = gate_retest(gate)
    assert result.agreement_rate == pytest.approx(0.75)
    # Fleiss: P_i = 1, 1, 0, 1 -> 0.75; pooled pass share 5/8 -> P_e = (5/8)^2 + (3/8)^2 = 34/64
    assert result.fleiss_kappa == pytest.approx((0.75 - 34 / 64) / (1 - 34 / 64))
    assert result.cohen is not None and result.n_answers == 4
    # Cohen: first run 1,0,1,1 against rerun 1,0,0,1: p_o = 3/4, p_e = 3/4 * 2/4 + 1/4 * 2/4 = 1/2
    assert result.cohen.kappa == pytest.approx(0.5)


def test_gate_retest_refuses_scores() -> None:
    with pytest.raises(StatInputError, match="other than 1, 0"):
        gate_retest(np.full((1, 1, 2), 0.5))
