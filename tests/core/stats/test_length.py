"""gtreview.core.stats.length: the length effect and the length-controlled win rate.

The Newton-Raphson fit is checked against scipy.optimize.minimize on the same negative
log-likelihood (fractional verdicts included), its Wald standard error against the
inverse of a finite-difference Hessian of that likelihood, and the controlled win rate
against data simulated with a pure length effect, where it must come back to 1/2.
"""

from __future__ import annotations

import numpy as np
import pytest

from gtreview.core.stats import StatInputError, length_bias

optimize = pytest.importorskip("scipy.optimize")


def simulate(n: int, intercept: float, slope: float, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    base = rng.integers(40, 400, n)
    ft = np.maximum(1, (base * np.exp(rng.normal(0.4, 0.5, n))).astype(int))  # the fine-tune talks more
    x = np.log1p(ft) - np.log1p(base)
    p = 1 / (1 + np.exp(-(intercept + slope * x / x.std(ddof=1))))
    u = rng.random(n)
    verdicts = np.where(u < p - 0.05, 1.0, np.where(u < p + 0.05, 0.5, 0.0))  # a band of ties
    return verdicts, ft.astype(float), base.astype(float)


def nll(params: np.ndarray, y: np.ndarray, z: np.ndarray) -> float:
    eta = params[0] + params[1] * z
    return float((y * np.logaddexp(0, -eta) + (1 - y) * np.logaddexp(0, eta)).sum())


def test_fit_matches_scipy_minimize_and_the_numerical_hessian() -> None:
    y, ft, base = simulate(400, 0.3, 0.8, seed=3)
    result = length_bias(y, ft, base, n_boot=200)
    x = np.log1p(ft) - np.log1p(base)
    z = x / x.std(ddof=1)
    fit = optimize.minimize(nll, np.zeros(2), args=(y, z), method="BFGS", options={"gtol": 1e-9})
    assert (result.intercept, result.slope) == (pytest.approx(fit.x[0], abs=1e-5), pytest.approx(fit.x[1], abs=1e-5))
    h, eye = 1e-4, np.eye(2)
    hessian = np.array(
        [
            [
                (
                    nll(fit.x + h * (eye[i] + eye[j]), y, z)
                    - nll(fit.x + h * (eye[i] - eye[j]), y, z)
                    - nll(fit.x - h * (eye[i] - eye[j]), y, z)
                    + nll(fit.x - h * (eye[i] + eye[j]), y, z)
                )
                / (4 * h * h)
                for j in range(2)
            ]
            for i in range(2)
        ]
    )
    assert result.slope_se == pytest.approx(np.sqrt(np.linalg.inv(hessian)[1, 1]), rel=1e-3)
    assert result.slope_ci is not None and result.slope_ci.level == 0.95
    assert result.slope_ci.high - result.slope_ci.low == pytest.approx(2 * 1.959964 * result.slope_se)
    assert result.length_scale == pytest.approx(x.std(ddof=1))
    assert result.raw_win_rate == pytest.approx(y.mean())
    assert result.controlled_win_rate == pytest.approx(1 / (1 + np.exp(-fit.x[0])), abs=1e-6)


def test_a_pure_length_effect_is_controlled_back_to_one_half() -> None:
    y, ft, base = simulate(3000, 0.0, 1.2, seed=8)
    result = length_bias(y, ft, base, n_boot=300, seed=2)
    assert result.raw_win_rate is not None and result.raw_win_rate > 0.65  # length alone wins
    assert result.raw_ci is not None and result.raw_ci.low > 0.5
    assert result.controlled_ci is not None and result.controlled_ci.covers(0.5)
    assert result.controlled_win_rate == pytest.approx(0.5, abs=0.03)
    assert result.slope_p is not None and result.slope_p < 1e-6


def test_bootstrap_resamples_questions_when_given() -> None:
    y, ft, base = simulate(60, 0.2, 0.5, seed=1)
    by_question = length_bias(y, ft, base, questions=[i // 3 for i in range(60)], n_boot=200)
    assert (by_question.n_units, by_question.n_verdicts) == (20, 60)
    assert by_question.controlled_ci is not None and by_question.raw_ci is not None


def test_undefined_fits_are_none() -> None:
    equal = length_bias([1.0, 0.0, 0.5], [10, 20, 30], [10, 20, 30], n_boot=50)
    assert equal.slope is None and equal.controlled_win_rate == pytest.approx(0.5) == equal.raw_win_rate
    always_longer = length_bias([1.0, 0.0], [19, 39], [9, 19], n_boot=50)  # (1 + len) doubled every time
    assert always_longer.controlled_win_rate is None and always_longer.raw_win_rate == 0.5
    all_wins = length_bias([1.0, 1.0, 1.0], [10, 50, 30], [20, 20, 20], n_boot=50)
    assert all_wins.slope is None and all_wins.controlled_win_rate is None and all_wins.raw_win_rate == 1.0


def test_bad_input_is_a_one_line_error() -> None:
    with pytest.raises(StatInputError, match="between 0 and 1"):
        length_bias([2.0], [1], [1])
    with pytest.raises(StatInputError, match="3 verdicts"):
        length_bias([1.0, 0.0, 1.0], [1, 2], [1, 2])
    with pytest.raises(StatInputError, match="lengths"):
        length_bias([1.0], [-1], [1])
