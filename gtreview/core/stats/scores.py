"""Pointwise score summaries: one model's (Q, K) matrix of totals.

Conventions shared by every function here (and by the rest of ``statistics``):

* a score matrix has one row per question and one column per repeat, floats;
* ``NaN`` marks an **unscored** sample (the judge broke its contract): it is left out of
  every mean and counted apart, never shown as 0;
* an **error** (generation failed after its retries) counts against the model: it must
  be 0 in the matrix. Callers that keep errors apart pass an ``errors`` mask, which
  writes 0 into those cells whatever they hold and counts them in ``n_errors``;
* the question is the unit: a model's score is the mean over questions of its
  per-question means, so a question with fewer scored repeats is not down-weighted,
  and bootstrap intervals resample questions, because the questions are what would
  change if the benchmark were drawn again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

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
    with_errors,
)


class ScoreSummary(StatModel):
    """A model's score over a set of questions, with its spread.

    ``sd`` is the spread across repeats: the sample sd (ddof 1) of the K per-repeat means
    (each the mean over the questions scored in that repeat), i.e. how much the headline
    number moves when the whole pass is run again. None when fewer than two repeats
    have a mean. ``ci`` is the percentile bootstrap interval of the mean resampling
    questions; None when fewer than two questions have a scored sample.
    """

    mean: float | None
    sd: float | None
    ci: Interval | None
    n_questions: int  # questions with at least one scored sample
    n_questions_excluded: int  # questions whose every sample is unscored
    n_repeats: int
    n_samples: int  # scored samples, errors included (they score 0)
    n_unscored: int
    n_errors: int


class RateSummary(StatModel):
    """A pass rate in [0, 1], summarised like a score (see ``ScoreSummary``)."""

    rate: float | None
    sd: float | None
    ci: Interval | None
    n_questions: int
    n_questions_excluded: int
    n_samples: int
    n_unscored: int
    n_errors: int


class QuestionStat(StatModel):
    """One question's repeats: how stable the model is on it."""

    index: int
    mean: float | None
    sd: float | None  # ddof 1; None below two scored samples
    min: float | None
    max: float | None
    n: int  # scored samples
    n_unscored: int


def score_matrix(
    totals: npt.ArrayLike, *, errors: npt.ArrayLike | None = None, unscored: npt.ArrayLike | None = None
) -> FloatArray:
    """Build the (Q, K) matrix from totals and two masks, for callers without NaN.

    Errors become 0 and unscored samples NaN; a cell cannot be both, because an answer
    that was never generated cannot have been judged.
    """
    matrix = as_matrix(totals, name="totals").copy()
    error_mask = np.zeros(matrix.shape, bool) if errors is None else np.asarray(errors, dtype=bool)
    unscored_mask = np.zeros(matrix.shape, bool) if unscored is None else np.asarray(unscored, dtype=bool)
    if error_mask.shape != matrix.shape or unscored_mask.shape != matrix.shape:
        raise ValueError("masks must have the shape of the totals")
    if (error_mask & unscored_mask).any():
        raise ValueError("a sample cannot be both a generation error and unscored")
    matrix[error_mask] = 0.0
    matrix[unscored_mask] = np.nan
    return matrix


def _summary_fields(matrix: FloatArray, n_errors: int, n_boot: int, seed: Seed) -> dict[str, object]:
    means, counts = row_means(matrix)
    included = counts > 0
    repeat_means, repeat_counts = row_means(matrix.T)
    return {
        "mean": opt(means[included].mean()) if included.any() else None,
        "sd": sample_sd(repeat_means[repeat_counts > 0]),
        "ci": bootstrap_mean(means[included], n_boot=n_boot, rng=rng_from(seed)),
        "n_questions": int(included.sum()),
        "n_questions_excluded": int((~included).sum()),
        "n_samples": int(counts.sum()),
        "n_unscored": int(matrix.size - counts.sum()),
        "n_errors": n_errors,
    }


def summarize_scores(
    scores: npt.ArrayLike, *, errors: npt.ArrayLike | None = None, n_boot: int = 2000, seed: Seed = 0
) -> ScoreSummary:
    """The headline figure for one model: mean, spread across repeats, and interval.

    ``scores`` is (Q, K) with NaN for unscored samples (a 1-D input is K = 1). Pass
    ``errors`` (a (Q, K) bool mask) to have failed generations entered as 0 and counted.
    """
    matrix, n_errors = with_errors(as_matrix(scores), errors)
    fields = _summary_fields(matrix, n_errors, n_boot, seed)
    return ScoreSummary.model_validate({**fields, "n_repeats": matrix.shape[1]})


def gate_pass_rate(
    gate_passed: npt.ArrayLike, *, errors: npt.ArrayLike | None = None, n_boot: int = 2000, seed: Seed = 0
) -> RateSummary:
    """Share of samples that pass the gate: the question-level mean of 1/0 outcomes.

    NaN marks an unscored sample. A generation error fails the gate (enter it as 0 or
    pass the ``errors`` mask). The rate is a mean of per-question pass shares, so it is
    summarised exactly like a score: spread across repeats, bootstrap over questions.
    """
    matrix, n_errors = with_errors(as_matrix(gate_passed, name="gate_passed"), errors)
    known = matrix[~np.isnan(matrix)]
    if not np.isin(known, (0.0, 1.0)).all():
        raise ValueError("gate_passed holds values other than 1, 0 and NaN")
    fields = _summary_fields(matrix, n_errors, n_boot, seed)
    return RateSummary.model_validate({**fields, "rate": fields.pop("mean")})


def per_question(scores: npt.ArrayLike, *, errors: npt.ArrayLike | None = None) -> list[QuestionStat]:
    """Mean, sd, range and count of each question's scored repeats, in row order.

    This is where an unstable question shows itself: a high sd means the model's
    answer (or the judge's verdict) changes from one repeat to the next.
    """
    matrix, _ = with_errors(as_matrix(scores), errors)
    means, counts = row_means(matrix)
    scored = ~np.isnan(matrix)
    lows = np.where(scored, matrix, np.inf).min(axis=1)
    highs = np.where(scored, matrix, -np.inf).max(axis=1)
    squares = np.where(scored, (matrix - means[:, None]) ** 2, 0.0).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        sds = np.where(counts > 1, np.sqrt(squares / np.maximum(counts - 1, 1)), np.nan)
    return [
        QuestionStat(
            index=i,
            mean=opt(means[i]),
            sd=opt(sds[i]),
            min=opt(lows[i]),
            max=opt(highs[i]),
            n=int(counts[i]),
            n_unscored=int(matrix.shape[1] - counts[i]),
        )
        for i in range(matrix.shape[0])
    ]


def group_rows(scores: npt.ArrayLike, groups: Sequence[str]) -> dict[str, FloatArray]:
    """Split a (Q, K) matrix into one matrix per label (section, difficulty, ...).

    Groups keep the order in which their labels first appear.
    """
    matrix = as_matrix(scores)
    if len(groups) != matrix.shape[0]:
        raise ValueError(f"{len(groups)} group labels for {matrix.shape[0]} questions")
    labels = np.asarray(list(groups), dtype=object)
    order = dict.fromkeys(groups)
    return {label: matrix[labels == label] for label in order}


def breakdown(
    scores_by_group: Mapping[str, npt.ArrayLike], *, n_boot: int = 2000, seed: Seed = 0
) -> dict[str, ScoreSummary]:
    """One ``ScoreSummary`` per group of questions (by section, by difficulty).

    Every group is resampled from the same ``seed``, so a group's interval does not
    depend on which other groups are shown or in what order. Errors must already be 0.
    """
    base = int(seed.integers(2**63)) if isinstance(seed, np.random.Generator) else seed
    return {name: summarize_scores(matrix, n_boot=n_boot, seed=base) for name, matrix in scores_by_group.items()}
