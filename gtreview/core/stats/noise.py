"""Judge noise apart from model noise: a nested variance decomposition of repeated verdicts.

Scores come as a (Q questions, K answers, J verdicts per answer) array, NaN where a
verdict is missing. The model is y_qkj = mu + a_q + b_qk + e_qkj with independent
question (a), answer-within-question (b, sampling noise: the model said something
different) and verdict-within-answer (e, judge noise: the judge said something
different about the same text) effects. The components are the ANOVA (method of
moments) estimators of the unbalanced two-stage nested design, truncated at 0.
Source: Sokal & Rohlf, Biometry (3rd ed.), Box 10.4; Searle, Casella & McCulloch,
Variance Components (1992), section 4.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from gtreview.core.stats.base import FloatArray, StatInputError, StatModel, opt


class NoiseSplit(StatModel):
    """Variance components of one model's scores, and what they do to its mean.

    ``se_*`` are standard errors of the model mean (the mean over questions of the
    per-question mean of answer means): ``se_sampling`` and ``se_judge`` are the parts
    from answers and from verdicts on this fixed question set, ``se_measurement`` both
    together, ``se_total`` adds question variance (a new draw of questions). None where
    a component is undefined (too few answers or verdicts to estimate it).
    """

    question_variance: float | None  # between questions (difficulty)
    sampling_variance: float | None  # between answers of one question
    judge_variance: float | None  # between verdicts on one answer
    se_sampling: float | None
    se_judge: float | None
    se_measurement: float | None
    se_total: float | None
    n_questions: int
    n_answers: int  # answers with at least one verdict
    n_verdicts: int


class QuestionNoise(StatModel):
    """One question's split: one-way random-effects ANOVA with answers as groups."""

    index: int
    mean: float | None
    sampling_variance: float | None
    judge_variance: float | None
    n_answers: int
    n_verdicts: int


def as_cube(scores: npt.ArrayLike, *, name: str = "scores") -> FloatArray:
    """A (Q, K, J) float array; infinity is refused (a missing verdict is NaN)."""
    cube = np.asarray(scores, dtype=np.float64)
    if cube.ndim != 3:
        raise StatInputError(f"{name} must be (questions, answers, verdicts), got shape {cube.shape}")
    if np.isinf(cube).any():
        raise StatInputError(f"{name} holds infinite values; a missing verdict is NaN")
    return cube


def _answer_sums(cube: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Verdict counts, sums and within-answer sums of squares per (question, answer)."""
    present = ~np.isnan(cube)
    counts = present.sum(axis=2).astype(np.float64)
    sums = np.where(present, cube, 0.0).sum(axis=2)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(counts > 0, sums / np.maximum(counts, 1), 0.0)
    squares = np.where(present, (cube - means[:, :, None]) ** 2, 0.0).sum(axis=2)
    return counts, sums, squares


def _ratio(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator > 0 else float("nan")


def _truncated(value: float) -> float:
    """A variance estimate clipped at 0 (the ANOVA estimator can go negative); NaN stays NaN."""
    return value if np.isnan(value) else max(0.0, value)


def noise_split(scores: npt.ArrayLike) -> NoiseSplit:
    """Split one model's score variance into question, sampling and judge components.

    Expected mean squares of the unbalanced nested design (Sokal & Rohlf, Box 10.4):
    E[MS_within] = s2_e, E[MS_B(A)] = s2_e + k1 s2_b, E[MS_A] = s2_e + k2 s2_b + k3 s2_a.
    """
    counts, sums, squares = _answer_sums(as_cube(scores))
    answered = counts > 0
    n_qk = counts[answered.any(axis=1)]  # questions with at least one verdict
    s_qk = sums[answered.any(axis=1)]
    a, n_answers = n_qk.shape[0], int((n_qk > 0).sum())
    n_q, total = n_qk.sum(axis=1), float(n_qk.sum())
    ms_within = _ratio(float(squares.sum()), total - n_answers)
    with np.errstate(invalid="ignore", divide="ignore"):
        answer_means = np.where(n_qk > 0, s_qk / np.maximum(n_qk, 1), 0.0)
        question_means = s_qk.sum(axis=1) / np.maximum(n_q, 1)
    grand = float(s_qk.sum()) / total if total else float("nan")
    ss_between = float((n_qk * (answer_means - question_means[:, None]) ** 2).sum())
    ss_questions = float((n_q * (question_means - grand) ** 2).sum())
    squares_over_q = float(((n_qk**2).sum(axis=1) / np.maximum(n_q, 1)).sum())
    k1 = _ratio(total - squares_over_q, n_answers - a)
    k2 = _ratio(squares_over_q - float((n_qk**2).sum()) / total, a - 1) if total else float("nan")
    k3 = _ratio(total - float((n_q**2).sum()) / total, a - 1) if total else float("nan")
    ms_between = _ratio(ss_between, n_answers - a)
    ms_questions = _ratio(ss_questions, a - 1)
    judge = ms_within
    raw_sampling = (ms_between - judge) / k1  # untruncated in the next line keeps it unbiased
    question = _truncated((ms_questions - judge - k2 * raw_sampling) / k3)
    sampling = _truncated(raw_sampling)
    if not np.isfinite(judge):  # one verdict per answer: judge and sampling noise are confounded
        sampling = question = float("nan")
    return _with_errors(question, sampling, judge, n_qk, n_answers, int(total))


def _with_errors(
    question: float, sampling: float, judge: float, n_qk: FloatArray, n_answers: int, n_verdicts: int
) -> NoiseSplit:
    """Var of the mean of Q question means, each the mean of K_q answer means.

    Answer k's mean has variance s2_b + s2_e / n_qk, so question q's has
    s2_b / K_q + s2_e * sum_k(1 / n_qk) / K_q**2, and the model mean the average of those over Q.
    """
    q = n_qk.shape[0]
    k_q = (n_qk > 0).sum(axis=1)
    with np.errstate(divide="ignore"):
        inverse = np.where(n_qk > 0, 1.0 / np.maximum(n_qk, 1), 0.0).sum(axis=1)
    var_sampling = sampling * float((1.0 / k_q).sum()) / q**2 if q else float("nan")
    var_judge = judge * float((inverse / k_q**2).sum()) / q**2 if q else float("nan")
    var_total = var_sampling + var_judge + question / q if q else float("nan")
    return NoiseSplit(
        question_variance=opt(question),
        sampling_variance=opt(sampling),
        judge_variance=opt(judge),
        se_sampling=opt(np.sqrt(var_sampling)),
        se_judge=opt(np.sqrt(var_judge)),
        se_measurement=opt(np.sqrt(var_sampling + var_judge)),
        se_total=opt(np.sqrt(var_total)),
        n_questions=q,
        n_answers=n_answers,
        n_verdicts=n_verdicts,
    )


def noise_per_question(scores: npt.ArrayLike) -> list[QuestionNoise]:
    """Each question's sampling and judge variance (one-way ANOVA, unbalanced n0).

    s2_judge = MS_within; s2_sampling = max(0, (MS_between - MS_within) / n0) with
    n0 = (N - sum n_k**2 / N) / (K - 1) (Searle et al. 1992, section 3.6).
    """
    counts, sums, squares = _answer_sums(as_cube(scores))
    result = []
    for index in range(counts.shape[0]):
        n_k, s_k = counts[index][counts[index] > 0], sums[index][counts[index] > 0]
        k, total = n_k.size, float(n_k.sum())
        judge = _ratio(float(squares[index].sum()), total - k)
        mean = float(s_k.sum()) / total if total else float("nan")
        ms_between = _ratio(float((n_k * (s_k / np.maximum(n_k, 1) - mean) ** 2).sum()), k - 1)
        n0 = _ratio(total - float((n_k**2).sum()) / total, k - 1) if total else float("nan")
        sampling = _truncated((ms_between - judge) / n0)
        result.append(
            QuestionNoise(
                index=index,
                mean=opt((s_k / n_k).mean()) if k else None,  # answers weigh alike, as in the model mean
                sampling_variance=opt(sampling),
                judge_variance=opt(judge),
                n_answers=k,
                n_verdicts=int(total),
            )
        )
    return result
