"""Fine-tune minus base, question by question.

The two models answered the same questions, so the comparison is paired: the unit is
the per-question difference of means, which removes the (large) spread in question
difficulty from the noise. The interval resamples those differences; the p-value
comes from a sign-flip permutation test, which assumes only that under "no effect"
each difference is as likely to be negative as positive (no normality, unlike a
paired t-test on a handful of questions).
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import numpy.typing as npt

from gtreview.core.stats.base import (
    FloatArray,
    Interval,
    Seed,
    StatModel,
    as_matrix,
    bootstrap_mean,
    opt,
    rng_from,
    row_means,
    sample_sd,
)

Verdict = Literal["fine-tune better", "base better", "within noise", "no variation", "insufficient data"]

EXACT_MAX_QUESTIONS = 16
"""Up to this many questions every one of the 2**n sign patterns is enumerated."""

_CHUNK_CELLS = 1 << 20  # random sign patterns are drawn in blocks of about 1M bytes to bound memory


class Difference(StatModel):
    """Fine-tune minus base over the questions both have a scored sample for.

    ``verdict`` reads the interval: "within noise" when it covers 0, otherwise the side
    it lies on; "insufficient data" below two common questions (no interval then); "no
    variation" when the interval is 0 with no width (every difference 0, as when both
    models score 0 everywhere), which says nothing either way.
    ``cohens_dz`` is the mean difference over the sd of the differences (ddof 1): the
    effect in units of its own question-to-question spread; None when that sd is 0.
    """

    mean_finetune: float | None
    mean_base: float | None
    mean_difference: float | None
    sd_difference: float | None
    ci: Interval | None
    p_value: float | None
    p_exact: bool  # every sign pattern enumerated (else Monte Carlo, (hits + 1) / (draws + 1))
    cohens_dz: float | None
    n_questions: int
    n_questions_excluded: int
    verdict: Verdict


def verdict_for(interval: Interval | None) -> Verdict:
    """Which side of zero the paired interval lies on, if either."""
    if interval is None:
        return "insufficient data"
    if interval.no_variation_at(0.0):
        return "no variation"
    if interval.low > 0:
        return "fine-tune better"
    if interval.high < 0:
        return "base better"
    return "within noise"


def _hits(stats: FloatArray, observed: float) -> int:
    """Sign patterns at least as extreme as the observed mean (two-sided).

    The tolerance keeps patterns whose mean equals the observed one up to summation
    rounding (common with whole-number scores) on the extreme side, as scipy does.
    """
    tolerance = 1e-12 * max(1.0, abs(observed))
    return int((np.abs(stats) >= abs(observed) - tolerance).sum())


def sign_flip_p_value(differences: FloatArray, *, n_perm: int, rng: np.random.Generator) -> tuple[float | None, bool]:
    """Two-sided paired permutation p-value of the mean difference, and whether exact.

    Exact for up to ``EXACT_MAX_QUESTIONS`` differences (all 2**n sign patterns, the
    observed one included, so p >= 2**-n). Beyond that ``n_perm`` random patterns give
    (hits + 1) / (n_perm + 1), which is never 0 and is a valid p-value (Phipson & Smyth).
    """
    d = differences[~np.isnan(differences)]
    n = d.size
    if n == 0:
        return None, False
    observed = float(d.mean())
    if n <= EXACT_MAX_QUESTIONS:
        patterns = np.arange(1 << n, dtype=np.int64)[:, None]
        signs = 1.0 - 2.0 * ((patterns >> np.arange(n)) & 1)
        return _hits(signs @ d / n, observed) / (1 << n), True
    if n_perm < 1:
        return None, False
    # Random sign patterns as random bytes: each byte flips 8 differences at once, and a
    # (256, bytes) table of the flipped sums turns a pattern into one lookup per byte.
    n_bytes = -(-n // 8)
    padded = np.zeros(n_bytes * 8)
    padded[:n] = d
    byte_bits = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1).astype(np.float64)
    table = byte_bits @ padded.reshape(n_bytes, 8).T  # table[b, j]: sum flipped by byte value b at j
    hits, total, columns = 0, float(d.sum()), np.arange(n_bytes)
    rows = max(1, _CHUNK_CELLS // n_bytes)
    for start in range(0, n_perm, rows):
        count = min(rows, n_perm - start)
        drawn = np.frombuffer(rng.bytes(count * n_bytes), dtype=np.uint8).reshape(count, n_bytes)
        flipped = table[drawn, columns].sum(axis=1)
        hits += _hits((total - 2.0 * flipped) / n, observed)
    return (hits + 1) / (n_perm + 1), False


def paired_difference_of_means(
    finetune_means: npt.ArrayLike,
    base_means: npt.ArrayLike,
    *,
    n_boot: int = 2000,
    n_perm: int = 10000,
    seed: Seed = 0,
) -> Difference:
    """The paired comparison from per-question values (NaN where a model has none).

    Used directly for quantities that are already one number per question, such as the
    share of reasoning points earned.
    """
    ft = np.asarray(finetune_means, dtype=np.float64).ravel()
    base = np.asarray(base_means, dtype=np.float64).ravel()
    if ft.shape != base.shape:
        raise ValueError(f"{ft.size} fine-tune questions against {base.size} base questions")
    common = ~np.isnan(ft) & ~np.isnan(base)
    d = ft[common] - base[common]
    boot_rng, perm_rng = rng_from(seed).spawn(2)
    ci = bootstrap_mean(d, n_boot=n_boot, rng=boot_rng)
    p_value, exact = sign_flip_p_value(d, n_perm=n_perm, rng=perm_rng)
    sd = sample_sd(d)
    mean = float(d.mean()) if d.size else None
    return Difference(
        mean_finetune=opt(ft[common].mean()) if d.size else None,
        mean_base=opt(base[common].mean()) if d.size else None,
        mean_difference=mean,
        sd_difference=sd,
        ci=ci,
        p_value=p_value,
        p_exact=exact,
        cohens_dz=mean / sd if mean is not None and sd else None,
        n_questions=int(d.size),
        n_questions_excluded=int(ft.size - d.size),
        verdict=verdict_for(ci),
    )


def paired_difference(
    finetune: npt.ArrayLike,
    base: npt.ArrayLike,
    *,
    n_boot: int = 2000,
    n_perm: int = 10000,
    seed: Seed = 0,
) -> Difference:
    """Fine-tune minus base from two (Q, K) score matrices over the same questions.

    Each matrix is reduced to per-question means first (the two may have different K);
    a question that either model has no scored sample for is left out and counted.
    Errors must already be 0 in both matrices, unscored samples NaN.
    """
    ft, bs = as_matrix(finetune, name="finetune"), as_matrix(base, name="base")
    if ft.shape[0] != bs.shape[0]:
        raise ValueError(f"fine-tune has {ft.shape[0]} questions, base has {bs.shape[0]}")
    return paired_difference_of_means(row_means(ft)[0], row_means(bs)[0], n_boot=n_boot, n_perm=n_perm, seed=seed)
