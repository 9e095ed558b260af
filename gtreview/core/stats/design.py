"""Paired inference that respects the design: documents as clusters, McNemar on the gate.

Questions drafted from one source report share its vocabulary, its difficulty and
whatever the fine-tune memorised of it, so they are not independent evidence. The
clustered bootstrap resamples documents and takes all their questions, which widens
the interval by as much as the questions of one report move together. Source:
Field & Welsh (2007), "Bootstrapping clustered data", JRSS B 69(3) (the cluster
bootstrap, resampling at the top level only).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from math import comb

import numpy as np
import numpy.typing as npt

from gtreview.core.stats.base import (
    FloatArray,
    Interval,
    Seed,
    StatInputError,
    StatModel,
    as_matrix,
    bootstrap_weights,
    opt,
    percentile_interval,
    rng_from,
    row_means,
)
from gtreview.core.stats.paired import Verdict, verdict_for


class ClusteredDifference(StatModel):
    """Fine-tune minus base, with an interval that resamples source documents.

    ``mean_difference`` is the mean over questions of the per-question difference of
    means. ``ci`` is None below two documents: one document resampled is always itself.
    """

    mean_difference: float | None
    ci: Interval | None
    n_clusters: int  # documents with at least one question scored by both models
    n_questions: int
    n_questions_excluded: int
    verdict: Verdict


class McNemarResult(StatModel):
    """McNemar's exact test on paired pass/fail outcomes (one pair per question).

    Under "no difference" each discordant pair is as likely to favour either model, so
    the count of fine-tune-only passes is Binomial(b + c, 1/2); ``p_value`` is the
    two-sided exact binomial p (twice the smaller tail, at most 1). None without any
    discordant pair (nothing to test).
    """

    finetune_only: int  # b: the fine-tune passes, the base fails
    base_only: int  # c: the base passes, the fine-tune fails
    both: int
    neither: int
    p_value: float | None
    rate_difference: float | None  # (b - c) / n: fine-tune pass rate minus base pass rate
    n_pairs: int
    n_excluded: int  # pairs with a missing outcome


def cluster_codes(documents: Sequence[object]) -> npt.NDArray[np.int64]:
    """Integer code per question for its document, in order of first appearance."""
    index: dict[object, int] = {}
    return np.array([index.setdefault(document, len(index)) for document in documents], dtype=np.int64)


def cluster_replicates(differences: FloatArray, clusters: npt.NDArray[np.int64], weights: FloatArray) -> FloatArray:
    """Mean difference of each replicate: (drawn documents' difference sums) / (their questions).

    ``weights`` (n_boot, n_clusters) are how often each document is drawn; a document
    drawn twice brings all its questions twice.
    """
    n_clusters = int(clusters.max()) + 1 if clusters.size else 0
    sums = np.bincount(clusters, weights=differences, minlength=n_clusters)
    counts = np.bincount(clusters, minlength=n_clusters).astype(np.float64)
    return np.asarray((weights @ sums) / (weights @ counts), dtype=np.float64)


def clustered_paired_difference(
    finetune: npt.ArrayLike,
    base: npt.ArrayLike,
    documents: Sequence[object],
    *,
    n_boot: int = 2000,
    seed: Seed = 0,
) -> ClusteredDifference:
    """Fine-tune minus base from two (Q, K) matrices, resampling the source documents.

    ``documents`` names each question's source document (any hashable label). A
    question either model has no scored sample for is left out and counted.
    """
    ft, bs = as_matrix(finetune, name="finetune"), as_matrix(base, name="base")
    if ft.shape[0] != bs.shape[0] or len(documents) != ft.shape[0]:
        raise StatInputError(
            f"fine-tune has {ft.shape[0]} questions, base {bs.shape[0]}, and {len(documents)} document labels were given"
        )
    d = row_means(ft)[0] - row_means(bs)[0]
    common = ~np.isnan(d)
    clusters = cluster_codes([doc for doc, keep in zip(documents, common, strict=True) if keep])
    d = d[common]
    n_clusters = int(clusters.max()) + 1 if clusters.size else 0
    ci = None
    if n_clusters >= 2 and n_boot >= 1:
        weights = bootstrap_weights(n_clusters, n_boot=n_boot, rng=rng_from(seed))
        ci = percentile_interval(cluster_replicates(d, clusters, weights))
    return ClusteredDifference(
        mean_difference=opt(d.mean()) if d.size else None,
        ci=ci,
        n_clusters=n_clusters,
        n_questions=int(d.size),
        n_questions_excluded=int(common.size - d.size),
        verdict=verdict_for(ci),
    )


def binomial_two_sided(successes: int, trials: int) -> float:
    """Exact two-sided binomial p at probability 1/2, in exact arithmetic (no overflow)."""
    low = min(successes, trials - successes)
    tail = Fraction(sum(comb(trials, i) for i in range(low + 1)), 2**trials)
    return float(min(Fraction(1), 2 * tail))


def _binary(values: npt.ArrayLike, name: str) -> FloatArray:
    array = np.asarray(values, dtype=np.float64).ravel()
    known = array[~np.isnan(array)]
    if not np.isin(known, (0.0, 1.0)).all():
        raise StatInputError(f"{name} holds values other than 1, 0 and NaN")
    return array


def majority_pass(gate_passed: npt.ArrayLike) -> FloatArray:
    """One outcome per question from (Q, K) gate verdicts: 1 when most answers pass.

    NaN for a question with no verdict or an exact tie, which McNemar then leaves out:
    repeats of one question are not independent pairs, so they are not tested as such.
    """
    matrix = as_matrix(gate_passed, name="gate_passed")
    _binary(matrix, "gate_passed")
    shares, counts = row_means(matrix)
    return np.where((counts == 0) | (shares == 0.5), np.nan, (shares > 0.5).astype(np.float64))


def mcnemar_exact(finetune_passed: npt.ArrayLike, base_passed: npt.ArrayLike) -> McNemarResult:
    """McNemar's exact test of the gate pass rates of two models on the same questions.

    One 1/0/NaN outcome per question and model (see :func:`majority_pass`). Source:
    McNemar (1947), Psychometrika 12(2); the exact form as in Fagerland, Lydersen &
    Laake (2013), BMC Med Res Methodol 13:91.
    """
    ft, bs = _binary(finetune_passed, "finetune_passed"), _binary(base_passed, "base_passed")
    if ft.shape != bs.shape:
        raise StatInputError(f"{ft.size} fine-tune outcomes against {bs.size} base outcomes")
    known = ~np.isnan(ft) & ~np.isnan(bs)
    ft_pass: npt.NDArray[np.bool_] = ft[known] == 1.0
    bs_pass: npt.NDArray[np.bool_] = bs[known] == 1.0
    b, c = int((ft_pass & ~bs_pass).sum()), int((~ft_pass & bs_pass).sum())
    return McNemarResult(
        finetune_only=b,
        base_only=c,
        both=int((ft_pass & bs_pass).sum()),
        neither=int((~ft_pass & ~bs_pass).sum()),
        p_value=binomial_two_sided(b, b + c) if b + c else None,
        rate_difference=(b - c) / ft_pass.size if ft_pass.size else None,
        n_pairs=int(ft_pass.size),
        n_excluded=int(known.size - ft_pass.size),
    )
