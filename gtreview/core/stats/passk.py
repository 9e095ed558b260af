"""How reliably a model passes the gate when asked again: flakiness, pass^k and pass@k.

A 70% pass rate can be 70% of questions always passed or every question passed 70%
of the time; a user who asks once cannot tell, one who relies on the answer can.
pass^k (all of k answers pass) is the reliability reading of tau-bench, pass@k (at
least one of k passes) the capability reading of the Codex paper. Both are estimated
per question without bias from its n answers, c of them passed, as the chance that k
answers drawn without replacement all pass / not all fail, then averaged over questions.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import comb

import numpy as np
import numpy.typing as npt

from gtreview.core.stats.base import (
    Interval,
    Seed,
    StatInputError,
    StatModel,
    as_matrix,
    bootstrap_mean,
    opt,
    rng_from,
)


class QuestionFlakiness(StatModel):
    """One question's gate over its answers.

    ``disagreement`` is the chance that two different answers disagree on the gate,
    2 c (n − c) / (n (n − 1)): 0 for a stable question, at most about 1/2. None below two answers.
    """

    index: int
    n: int  # answers with a gate verdict
    passed: int
    flaky: bool  # some answers passed and some failed
    disagreement: float | None


class PassK(StatModel):
    """pass^k and pass@k for one k, the mean over questions with at least k answers."""

    k: int
    pass_hat_k: float | None
    pass_hat_k_ci: Interval | None
    pass_at_k: float | None
    pass_at_k_ci: Interval | None
    n_questions: int


class GateReliability(StatModel):
    questions: list[QuestionFlakiness]
    share_flaky: float | None  # among questions with at least two answers
    mean_disagreement: float | None
    by_k: list[PassK]


def pass_hat_k(n: int, c: int, k: int) -> float | None:
    """Unbiased pass^k of one question: C(c, k) / C(n, k). Source: Yao et al. (2024), tau-bench, eq. 1."""
    _check_counts(n, c, k)
    return comb(c, k) / comb(n, k) if n >= k else None


def pass_at_k(n: int, c: int, k: int) -> float | None:
    """Unbiased pass@k of one question: 1 − C(n − c, k) / C(n, k). Source: Chen et al. (2021), Codex, eq. 1."""
    _check_counts(n, c, k)
    return 1.0 - comb(n - c, k) / comb(n, k) if n >= k else None


def _check_counts(n: int, c: int, k: int) -> None:
    if not 0 <= c <= n or k < 1:
        raise StatInputError(f"pass^k needs 0 <= passed <= answers and k >= 1, got n={n}, c={c}, k={k}")


def gate_reliability(
    gate_passed: npt.ArrayLike, *, ks: Sequence[int] | None = None, n_boot: int = 2000, seed: Seed = 0
) -> GateReliability:
    """Flakiness per question and pass^k / pass@k from (Q, K) 1/0/NaN gate verdicts.

    ``ks`` defaults to 1..K. A generation error fails the gate (enter it as 0). Intervals
    resample questions, with the same draws for both figures and every k.
    """
    matrix = as_matrix(gate_passed, name="gate_passed")
    known = ~np.isnan(matrix)
    if not np.isin(matrix[known], (0.0, 1.0)).all():
        raise StatInputError("gate_passed holds values other than 1, 0 and NaN")
    ns = known.sum(axis=1)
    cs = np.where(known, matrix, 0.0).sum(axis=1).astype(np.int64)
    questions = [
        QuestionFlakiness(
            index=i,
            n=int(n),
            passed=int(c),
            flaky=bool(0 < c < n),
            disagreement=2 * c * (n - c) / (n * (n - 1)) if n >= 2 else None,
        )
        for i, (n, c) in enumerate(zip(ns, cs, strict=True))
    ]
    rated = [q for q in questions if q.disagreement is not None]
    base_seed = int(seed.integers(2**63)) if isinstance(seed, np.random.Generator) else seed
    by_k = [_pass_k(ns, cs, k, n_boot, base_seed) for k in (range(1, matrix.shape[1] + 1) if ks is None else ks)]
    return GateReliability(
        questions=questions,
        share_flaky=float(np.mean([q.flaky for q in rated])) if rated else None,
        mean_disagreement=opt(np.mean([q.disagreement for q in rated])) if rated else None,
        by_k=by_k,
    )


def _pass_k(ns: npt.NDArray[np.int64], cs: npt.NDArray[np.int64], k: int, n_boot: int, seed: int) -> PassK:
    hat = np.array([pass_hat_k(int(n), int(c), k) for n, c in zip(ns, cs, strict=True)], dtype=np.float64)
    at = np.array([pass_at_k(int(n), int(c), k) for n, c in zip(ns, cs, strict=True)], dtype=np.float64)
    included = ns >= k
    return PassK(
        k=k,
        pass_hat_k=opt(hat[included].mean()) if included.any() else None,
        pass_hat_k_ci=bootstrap_mean(hat[included], n_boot=n_boot, rng=rng_from(seed)),
        pass_at_k=opt(at[included].mean()) if included.any() else None,
        pass_at_k_ci=bootstrap_mean(at[included], n_boot=n_boot, rng=rng_from(seed)),
        n_questions=int(included.sum()),
    )
