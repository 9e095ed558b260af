"""Inference that respects how a pass was built, computed once for the results view and the PDF.

Questions from one source report are not independent (the difference is resampled by
document), repeats of one question are not independent either (the gate is tested
with McNemar on each question's majority), a pass rate hides how often a question's
answers disagree (flakiness, pass^k), several fine-tunes compare on one scale
(Bradley-Terry), and a judge that likes long answers inflates a talkative fine-tune's
win rate (the length-controlled win rate). The formulas live in ``gtreview.core``.
"""

from __future__ import annotations

import numpy as np
from pydantic import BaseModel

from gtreview.core.stats import (
    LEVEL,
    BradleyTerry,
    ClusteredDifference,
    GateReliability,
    LengthBias,
    McNemarResult,
    bradley_terry,
    clustered_paired_difference,
    gate_reliability,
    length_bias,
    majority_pass,
    mcnemar_exact,
)
from gtreview.results.design_text import (
    clustered_reading,
    length_reading,
    mcnemar_reading,
    reliability_reading,
    strengths_reading,
)
from gtreview.results.documents import cluster_labels
from gtreview.results.loader import PairResult, RunResults, SampleResult

# The fine-tune's share of a reconciled pair (both orders already averaged into the label).
WIN_SHARE = {"A>>B": 1.0, "A>B": 1.0, "A=B": 0.5, "B>A": 0.0, "B>>A": 0.0}


class FinetuneDesign(BaseModel):
    label: str
    base: str
    clustered: ClusteredDifference
    n_uncited: int  # of the questions compared, those citing no corpus document (a cluster each)
    mcnemar: McNemarResult
    length: LengthBias | None  # None without a known pairwise verdict
    readings: list[str]  # one plain line each: the clustered difference, the gate, the length effect


class ModelReliability(BaseModel):
    label: str
    gate: GateReliability
    reading: str


class DesignFigures(BaseModel):
    interval_level: float = LEVEL
    repeats: int
    finetunes: list[FinetuneDesign]
    reliability: list[ModelReliability]
    strengths: BradleyTerry | None = None  # only when more than two models were compared pairwise
    strengths_reading: str = ""


def answer_words(sample: SampleResult | None) -> int:
    """An answer's length in words (whitespace-separated), the same count for every model;
    a failed generation has no answer: 0 words."""
    return 0 if sample is None else len((sample.answer_clean or sample.answer_raw).split())


def known_pairs(results: RunResults, finetune: str) -> list[PairResult]:
    return [p for p in results.pairs_of(finetune) if p.label in WIN_SHARE]


def _length(results: RunResults, finetune: str, *, n_boot: int, seed: int) -> LengthBias | None:
    pairs = known_pairs(results, finetune)
    if not pairs:
        return None
    index = {(s.model, s.qid, s.sample_index): s for s in results.samples}
    return length_bias(
        [WIN_SHARE[p.label or ""] for p in pairs],
        [answer_words(index.get((p.finetune, p.qid, p.sample_index))) for p in pairs],
        [answer_words(index.get((p.base, p.qid, p.sample_index))) for p in pairs],
        questions=[p.qid for p in pairs],
        n_boot=n_boot,
        seed=seed,
    )


def _strengths(results: RunResults, *, n_boot: int, seed: int) -> BradleyTerry | None:
    """Every model on one scale from the pairwise verdicts, when there are more than two."""
    pairs = [p for label in results.models[1:] for p in known_pairs(results, label)]
    if len(results.models) <= 2 or not pairs:
        return None
    return bradley_terry(
        [p.finetune for p in pairs],
        [p.base for p in pairs],
        [WIN_SHARE[p.label or ""] for p in pairs],
        questions=[p.qid for p in pairs],
        n_boot=n_boot,
        seed=seed,
    )


def design_figures(results: RunResults, *, seed: int = 0, n_boot: int = 2000) -> DesignFigures:
    qids = [q.id for q in results.questions]
    clusters = cluster_labels(qids, results.documents)
    scores = {m: results.score_matrix(m) for m in results.models}
    gates = {m: results.gate_matrix(m) for m in results.models}
    base = results.base
    finetunes = []
    for label in results.models[1:]:
        clustered = clustered_paired_difference(scores[label], scores[base], clusters, n_boot=n_boot, seed=seed)
        compared = [  # the questions the clustered difference uses: both models have a counted sample
            qid
            for qid, ft, bs in zip(qids, scores[label], scores[base], strict=True)
            if np.isfinite(ft).any() and np.isfinite(bs).any()
        ]
        mcnemar = mcnemar_exact(majority_pass(gates[label]), majority_pass(gates[base]))
        length = _length(results, label, n_boot=n_boot, seed=seed)
        uncited = sum(qid not in results.documents for qid in compared)
        finetunes.append(
            FinetuneDesign(
                label=label,
                base=base,
                clustered=clustered,
                n_uncited=uncited,
                mcnemar=mcnemar,
                length=length,
                readings=[
                    clustered_reading(clustered, uncited),
                    mcnemar_reading(mcnemar, results.repeats),
                    length_reading(length),
                ],
            )
        )
    reliability = []
    for label in results.models:
        gate = gate_reliability(gates[label], n_boot=n_boot, seed=seed)
        reliability.append(
            ModelReliability(label=label, gate=gate, reading=reliability_reading(label, gate, results.repeats))
        )
    strengths = _strengths(results, n_boot=n_boot, seed=seed)
    return DesignFigures(
        repeats=results.repeats,
        finetunes=finetunes,
        reliability=reliability,
        strengths=strengths,
        strengths_reading=strengths_reading(strengths) if strengths is not None else "",
    )
