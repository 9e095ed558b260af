"""The judge's test-retest agreement: J verdicts on the same answer, compared.

A judge that gives one answer two different scores is noise the model did not make.
Totals are read with the one-way intraclass correlation (answers as targets, the
verdicts as interchangeable ratings), the gate with raw agreement and Fleiss' kappa
(and Cohen's kappa when every answer has exactly two verdicts, where the order of
the two is a real rater identity: first run against rerun).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from gtreview.core.stats.base import FloatArray, StatInputError, StatModel, opt
from gtreview.core.stats.noise import as_cube
from gtreview.core.stats.raters import KappaResult, cohens_kappa


class IccResult(StatModel):
    """ICC(1,1) of Shrout & Fleiss (1979): reliability of one verdict on an answer.

    ``icc`` = (MSB − MSW) / (MSB + (n0 − 1) MSW), n0 the unbalanced mean group size
    (N − Σ n_i² / N) / (g − 1). None with fewer than two answers rated twice or more,
    or when every verdict is equal (nothing varied). Can be below 0 (the estimator is
    not truncated: a negative value says the verdicts on one answer disagree more than
    answers do).
    """

    icc: float | None
    ms_between: float | None
    ms_within: float | None
    n_answers: int  # answers with at least two verdicts
    n_verdicts: int


class GateRetest(StatModel):
    """Whether the judge's J gate verdicts on the same answer agree."""

    agreement_rate: float | None  # share of answers whose verdicts are all the same
    fleiss_kappa: float | None
    cohen: KappaResult | None  # only when every rated answer has exactly two verdicts
    n_answers: int  # answers with at least two verdicts


def _answers(cube: FloatArray, min_verdicts: int) -> list[FloatArray]:
    """The verdicts of each answer that has at least ``min_verdicts`` of them."""
    flat = cube.reshape(-1, cube.shape[2])
    rows = (row[~np.isnan(row)] for row in flat)
    return [row for row in rows if row.size >= min_verdicts]


def verdict_icc(scores: npt.ArrayLike) -> IccResult:
    """Test-retest reliability of the judge's totals over (Q, K, J) verdicts.

    Answers with a single verdict carry no retest and are left out. Source: Shrout &
    Fleiss (1979), Psychological Bulletin 86(2), ICC(1,1); n0 as in Donner (1986).
    """
    groups = _answers(as_cube(scores), 2)
    g = len(groups)
    sizes = np.array([group.size for group in groups], dtype=np.float64)
    total = float(sizes.sum())
    if g < 2:
        return IccResult(icc=None, ms_between=None, ms_within=None, n_answers=g, n_verdicts=int(total))
    means = np.array([group.mean() for group in groups])
    grand = float(sum(group.sum() for group in groups)) / total
    ms_between = float((sizes * (means - grand) ** 2).sum()) / (g - 1)
    ms_within = float(sum(((group - group.mean()) ** 2).sum() for group in groups)) / (total - g)
    n0 = (total - float((sizes**2).sum()) / total) / (g - 1)
    denominator = ms_between + (n0 - 1) * ms_within
    icc = (ms_between - ms_within) / denominator if denominator > 0 else None
    return IccResult(icc=opt(icc), ms_between=ms_between, ms_within=ms_within, n_answers=g, n_verdicts=int(total))


def fleiss_kappa(counts: npt.ArrayLike) -> float | None:
    """Fleiss' kappa from a (subjects, categories) table of how many ratings fell where.

    Subjects may have different numbers of ratings (two or more): P_i is each subject's
    share of agreeing rating pairs, P_e the chance agreement from the pooled category
    shares. None when P_e is 1 (one category only). Source: Fleiss (1971), Psychological
    Bulletin 76(5); variable raters as in Fleiss, Levin & Paik (2003), section 18.1.
    """
    table = np.asarray(counts, dtype=np.float64)
    if table.ndim != 2 or (table < 0).any():
        raise StatInputError(f"counts must be a (subjects, categories) table of counts, got shape {table.shape}")
    n_i = table.sum(axis=1)
    table = table[n_i >= 2]
    n_i = n_i[n_i >= 2]
    if n_i.size == 0:
        return None
    p_i = ((table**2).sum(axis=1) - n_i) / (n_i * (n_i - 1))
    shares = table.sum(axis=0) / n_i.sum()
    p_e = float((shares**2).sum())
    return opt((p_i.mean() - p_e) / (1 - p_e)) if p_e < 1 - 1e-12 else None


def gate_retest(gate_passed: npt.ArrayLike) -> GateRetest:
    """Agreement of the judge with itself on the gate, from (Q, K, J) 1/0/NaN verdicts."""
    cube = as_cube(gate_passed, name="gate_passed")
    known = cube[~np.isnan(cube)]
    if not np.isin(known, (0.0, 1.0)).all():
        raise StatInputError("gate_passed holds values other than 1, 0 and NaN")
    groups = _answers(cube, 2)
    if not groups:
        return GateRetest(agreement_rate=None, fleiss_kappa=None, cohen=None, n_answers=0)
    passes = np.array([group.sum() for group in groups])
    sizes = np.array([group.size for group in groups], dtype=np.float64)
    agreeing = (passes == 0) | (passes == sizes)
    cohen = None
    if (sizes == 2).all():
        first, second = zip(*((bool(group[0]), bool(group[1])) for group in groups), strict=True)
        cohen = cohens_kappa(list(first), list(second))
    return GateRetest(
        agreement_rate=float(agreeing.mean()),
        fleiss_kappa=fleiss_kappa(np.column_stack([passes, sizes - passes])),
        cohen=cohen,
        n_answers=len(groups),
    )
