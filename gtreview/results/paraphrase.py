"""Paraphrase invariance: how much of a model's score survives a rewording of the question.

A model that learned the geology keeps its score when a question is asked in other words;
one that memorised the source's wording loses it. A paraphrase is a question of its own
(``Question.paraphrase_of`` names the one it rewords, with the same rubric), answered K
times and judged like any other, and kept apart from the originals by the loader.

Per original question with a scored paraphrase, drop = the mean of the original's answers
minus the mean of all its paraphrases' answers (pooled); a model's drop is the mean over
those questions, and a fine-tune's extra drop is its drop minus the base's, paired by
original question. Intervals resample source documents (the design's clusters), with the
cluster bootstrap of ``gtreview.core.stats.design``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from pydantic import BaseModel, Field

from gtreview.core.paraphrases import rubric_differs
from gtreview.core.rubric import Question
from gtreview.core.stats import (
    LEVEL,
    ClusteredDifference,
    FloatArray,
    Interval,
    clustered_paired_difference,
    opt,
    row_means,
)
from gtreview.results.documents import cluster_labels
from gtreview.results.loader import KINDS, RunResults
from gtreview.results.paraphrase_text import paraphrase_readings

# Beside the total: the gate pass rate (0..1) and the share of the fact and reasoning points.
KIND_DROPS = ("gate", "binary", "reasoning")


class KindDrop(BaseModel):
    """The drop of one component kind: the gate's pass rate, or a kind's share of its points (0..1)."""

    kind: str
    drop: float | None
    ci: Interval | None
    n_pairs: int


class PairedDrop(BaseModel):
    """A fine-tune's drop minus the base's, paired by original question."""

    difference: float | None
    ci: Interval | None
    n_pairs: int  # original questions both models have a drop for
    n_clusters: int


class ModelParaphrase(BaseModel):
    label: str
    is_base: bool
    drop: float | None  # points /10 lost under paraphrase (negative: gained)
    ci: Interval | None
    n_pairs: int  # original questions with a scored answer to them and to a paraphrase
    n_clusters: int  # source documents (or uncited questions) those questions come from
    kinds: dict[str, KindDrop]
    versus_base: PairedDrop | None = None  # fine-tunes only


class QuestionDrop(BaseModel):
    """One original question: the paraphrases that reword it and each model's drop on it."""

    qid: str
    title: str
    paraphrases: list[str]
    drops: dict[str, float | None]  # model -> its answers' mean less its paraphrases' (None: not both scored)


class LeftOut(BaseModel):
    """A paraphrase the pass ran that is paired with no original, and why."""

    qid: str
    reason: str


class ParaphraseReport(BaseModel):
    interval_level: float = LEVEL
    base: str
    n_paraphrases: int  # paraphrased variants in the pass
    n_originals: int  # original questions at least one of them rewords
    models: list[ModelParaphrase]
    questions: list[QuestionDrop] = Field(default_factory=list)  # the originals that are reworded, in set order
    left_out: list[LeftOut] = Field(default_factory=list)  # paraphrases paired with no original, and why
    readings: list[str]  # the plain reading, one line per fine-tune (per model without one)

    @property
    def measured(self) -> bool:
        return any(m.n_pairs for m in self.models)

    def for_model(self, label: str) -> ModelParaphrase | None:
        return next((m for m in self.models if m.label == label), None)


def pooled_paraphrases(results: RunResults, matrix: Callable[[RunResults], FloatArray]) -> FloatArray:
    """(originals, every paraphrase answer): row i holds the answers to all the paraphrases of
    original i side by side, NaN-padded, so a row mean is the mean over its paraphrases' answers."""
    variants = results.paraphrase_results()
    values = matrix(variants) if variants.questions else np.zeros((0, results.repeats))
    rows: dict[str, list[FloatArray]] = {}
    for question, row in zip(variants.questions, values, strict=True):
        rows.setdefault(question.paraphrase_of or "", []).append(row)
    pooled = [np.concatenate(rows[q.id]) if q.id in rows else np.zeros(0) for q in results.questions]
    width = max((len(r) for r in pooled), default=0) or 1
    out = np.full((len(results.questions), width), np.nan)
    for index, row in enumerate(pooled):
        out[index, : len(row)] = row
    return out


def _variants(results: RunResults, qid: str) -> list[str]:
    return [q.id for q in results.paraphrases if q.paraphrase_of == qid]


def _values(kind: str, label: str) -> Callable[[RunResults], FloatArray]:
    """One model's (questions, repeats) totals, gate verdicts (1/0) or share of a kind's points."""
    if kind == "total":
        return lambda r: r.score_matrix(label)
    if kind == "gate":
        return lambda r: r.gate_matrix(label)
    index = [k.value for k in KINDS].index(kind)
    return lambda r: r.kind_share(label)[:, :, index]


def _drop(
    results: RunResults, kind: str, label: str, clusters: list[tuple[str, str]], *, n_boot: int, seed: int
) -> tuple[ClusteredDifference, FloatArray]:
    """The clustered original-minus-paraphrase difference, and the per-question drops (NaN: none)."""
    values = _values(kind, label)
    original, variants = values(results), pooled_paraphrases(results, values)
    per_question = row_means(original)[0] - row_means(variants)[0]
    figure = clustered_paired_difference(original, variants, clusters, n_boot=n_boot, seed=seed)
    return figure, per_question


def paired_paraphrases(results: RunResults) -> tuple[list[Question], list[LeftOut]]:
    """The paraphrases a drop may be read from: their original was in the pass with the very
    rubric they carry. A paraphrase whose original was edited after it (a stale rubric) would
    compare two different rubrics, not two wordings of one question, so it is left out."""
    originals = {q.id: q for q in results.questions}
    kept: list[Question] = []
    left: list[LeftOut] = []
    for paraphrase in results.paraphrases:
        original = originals.get(paraphrase.paraphrase_of or "")
        if original is None:
            left.append(LeftOut(qid=paraphrase.id, reason=f"{paraphrase.paraphrase_of} was not in the pass"))
            continue
        differs = rubric_differs(paraphrase.to_json_dict(), original.to_json_dict())
        if differs:
            fields = ", ".join(field.replace("_", " ") for field in differs)
            left.append(LeftOut(qid=paraphrase.id, reason=f"its rubric differs from {original.id}'s ({fields})"))
            continue
        kept.append(paraphrase)
    return kept, left


def paraphrase_report(results: RunResults, *, seed: int = 0, n_boot: int = 2000) -> ParaphraseReport:
    """Every model's drop under paraphrase, per component kind, and each fine-tune's extra drop,
    from the paraphrases that reword their original with its own rubric (the rest are listed)."""
    n_paraphrases = len(results.paraphrases)
    kept, left_out = paired_paraphrases(results)
    results = results.model_copy(update={"paraphrases": kept})
    clusters = cluster_labels([q.id for q in results.questions], results.documents)
    models, drops = [], {}
    for label in results.models:
        total, drops[label] = _drop(results, "total", label, clusters, n_boot=n_boot, seed=seed)
        kinds = {}
        for kind in KIND_DROPS:
            figure, _ = _drop(results, kind, label, clusters, n_boot=n_boot, seed=seed)
            kinds[kind] = KindDrop(kind=kind, drop=figure.mean_difference, ci=figure.ci, n_pairs=figure.n_questions)
        models.append(
            ModelParaphrase(
                label=label,
                is_base=label == results.base,
                drop=total.mean_difference,
                ci=total.ci,
                n_pairs=total.n_questions,
                n_clusters=total.n_clusters,
                kinds=kinds,
            )
        )
    for model in models:
        if not model.is_base:
            extra = clustered_paired_difference(
                drops[model.label], drops[results.base], clusters, n_boot=n_boot, seed=seed
            )
            model.versus_base = PairedDrop(
                difference=extra.mean_difference, ci=extra.ci, n_pairs=extra.n_questions, n_clusters=extra.n_clusters
            )
    reworded = [(index, q) for index, q in enumerate(results.questions) if _variants(results, q.id)]
    report = ParaphraseReport(
        base=results.base,
        n_paraphrases=n_paraphrases,
        left_out=left_out,
        n_originals=len(reworded),
        models=models,
        questions=[
            QuestionDrop(
                qid=question.id,
                title=question.title or "",
                paraphrases=_variants(results, question.id),
                drops={label: opt(drops[label][index]) for label in results.models},
            )
            for index, question in reworded
        ],
        readings=[],
    )
    report.readings = paraphrase_readings(report)
    return report


__all__ = [
    "KindDrop",
    "LeftOut",
    "ModelParaphrase",
    "PairedDrop",
    "ParaphraseReport",
    "QuestionDrop",
    "paraphrase_report",
]
