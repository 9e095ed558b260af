"""The rows every table of a run shows, from the one results loader.

The CSV export, the leaderboard submission, ``gtreview results --json``, the results
view and the PDF all read a run through ``load_run_results`` (settled scores applied),
and the per-question figures here are the ones the analysis computes, so a number is
the same wherever it is read.

How samples count: a sample is one of a model's K answers to a question, counted by the
names of ``gtreview.results.counts`` (scored, errors, unscored, unjudged, missing,
settled), here as ``n_`` + the name. An error counts as 0 with the gate failed (a failure
is a result); unscored, unjudged and missing samples are left out of every mean.

The leaderboard wants one number per question, so with K repeats ``score_b`` is the
mean over the scored and error samples rounded to 2 decimals (an integer when it is
whole). Each entry must read as a valid grader record, so it never states a total its
components contradict: ``score_b_components`` are the first counted sample's settled
awards (lowest sample index) and are given only when they sum to ``score_b`` (always
with one sample; with K a mean of differing totals has no component list, and the
export says so); ``score_b_gate_passed`` is true when some counted sample passed the
gate, which is exactly when ``score_b`` is above 0 (a failed gate scores 0, a passed
one at least its points). ``score_b_adjudication_required`` is true when any sample
asked for adjudication. A question with no scored or error sample is left out of
``scores.json`` and listed.
"""

from __future__ import annotations

import statistics
from typing import Any

import numpy as np
from pydantic import BaseModel, Field

from gtreview.core.pairwise import PairLabel
from gtreview.core.rubric import Question
from gtreview.results.counts import sample_counts
from gtreview.results.loader import RunResults, SampleResult, SampleStatus

WINS = frozenset({PairLabel.A_BETTER.value, PairLabel.A_MUCH_BETTER.value})
LOSSES = frozenset({PairLabel.B_BETTER.value, PairLabel.B_MUCH_BETTER.value})
COUNTED = (SampleStatus.SCORED, SampleStatus.ERROR)


def nanmean(row: np.ndarray) -> float | None:
    """Mean over the counted samples (errors are 0 in the matrix; unscored and missing are NaN)."""
    return float(np.nanmean(row)) if np.isfinite(row).any() else None


def nansd(row: np.ndarray) -> float | None:
    finite = row[np.isfinite(row)]
    return float(np.std(finite, ddof=1)) if finite.size > 1 else None


class PairCounts(BaseModel):
    wins: int = 0
    ties: int = 0
    losses: int = 0
    unknown: int = 0
    inconsistent: int = 0
    settled: int = 0


class QuestionFigures(BaseModel):
    """One question and model: its K samples counted, their mean and spread, pairs against the base."""

    question_id: str
    model: str
    base: str | None
    samples: int
    n_scored: int
    n_errors: int
    n_unscored: int
    n_unjudged: int  # an answer stored, no verdict yet
    n_missing: int  # never generated
    n_settled: int
    mean: float | None
    sd: float | None
    gate_pass_rate: float | None
    pairs: PairCounts | None = None  # None for the base itself


def pair_counts(results: RunResults, finetune: str, qid: str | None = None) -> PairCounts:
    """Wins, ties, losses and unknowns of a fine-tune against the base (settled verdicts); pairs
    not judged yet are not counted."""
    counts = PairCounts()
    for pair in results.pairs_of(finetune):
        if (qid is not None and pair.qid != qid) or pair.label is None:
            continue
        counts.wins += pair.label in WINS
        counts.losses += pair.label in LOSSES
        counts.ties += pair.label == PairLabel.TIE.value
        counts.unknown += pair.label not in WINS | LOSSES | {PairLabel.TIE.value}
        counts.inconsistent += pair.inconsistent
        counts.settled += pair.adjudicated
    return counts


def question_figures(results: RunResults) -> list[QuestionFigures]:
    """Every question and model, in the run's question and model order."""
    by_key: dict[tuple[str, str], list[SampleResult]] = {}
    for sample in results.samples:
        by_key.setdefault((sample.model, sample.qid), []).append(sample)
    matrices = {m: results.score_matrix(m) for m in results.models}
    gates = {m: results.gate_matrix(m) for m in results.models}
    rows = []
    for index, question in enumerate(results.questions):
        for model in results.models:
            samples = by_key.get((model, question.id), [])
            counts = sample_counts(samples)
            gate = gates[model][index]
            rows.append(
                QuestionFigures(
                    question_id=question.id,
                    model=model,
                    base=results.base,
                    samples=len(samples),
                    n_scored=counts.scored,
                    n_errors=counts.errors,
                    n_unscored=counts.unscored,
                    n_unjudged=counts.unjudged,
                    n_missing=counts.missing,
                    n_settled=counts.settled,
                    mean=nanmean(matrices[model][index]),
                    sd=nansd(matrices[model][index]),
                    gate_pass_rate=nanmean(gate),
                    pairs=None if model == results.base else pair_counts(results, model, question.id),
                )
            )
    return rows


class LeaderboardEntry(BaseModel):
    id: str
    question: str
    score_b: int | float
    score_b_gate_passed: bool
    score_b_components: list[dict[str, Any]] | None = None  # None: a mean no one record can carry
    score_b_adjudication_required: bool

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(exclude_none=True)


class LeaderboardExport(BaseModel):
    scores: list[LeaderboardEntry]
    meta: dict[str, str]
    unscored: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)


def _score(value: float) -> int | float:
    rounded = round(value, 2)
    return int(rounded) if rounded == int(rounded) else rounded


def _components(question: Question, sample: SampleResult) -> list[dict[str, Any]]:
    """The sample's settled awards as grader-record components (an error scores 0 on each)."""
    reason = f"generation failed: {sample.error}" if sample.status is SampleStatus.ERROR else ""
    return [
        {
            "id": c.id,
            "awarded": 0 if sample.status is SampleStatus.ERROR else int(sample.awards.get(c.id, 0)),
            "maximum": c.points,
            "reason": reason or sample.reasons.get(c.id, ""),
        }
        for c in question.components
    ]


def leaderboard_entries(results: RunResults, model: str) -> tuple[list[LeaderboardEntry], list[str]]:
    """The ``scores.json`` entries of one model and the questions left out (no counted sample).
    An entry whose mean no single sample's components sum to carries no component list."""
    by_key: dict[str, list[SampleResult]] = {}
    for sample in sorted(results.samples, key=lambda s: s.sample_index):
        if sample.model == model:
            by_key.setdefault(sample.qid, []).append(sample)
    entries, left_out = [], []
    for question in results.questions:
        counted = [s for s in by_key.get(question.id, []) if s.status in COUNTED and s.total is not None]
        if not counted:
            if question.id in by_key:
                left_out.append(question.id)
            continue
        first = counted[0]
        score = _score(statistics.fmean(float(s.total or 0.0) for s in counted))
        components = _components(question, first)
        entries.append(
            LeaderboardEntry(
                id=question.id,
                question=question.question or "",
                score_b=score,
                score_b_gate_passed=any(s.status is SampleStatus.SCORED and bool(s.gate_passed) for s in counted),
                score_b_components=components if sum(int(c["awarded"]) for c in components) == score else None,
                score_b_adjudication_required=any(s.adjudication_required for s in counted),
            )
        )
    return entries, left_out


__all__ = [
    "COUNTED",
    "LeaderboardEntry",
    "LeaderboardExport",
    "PairCounts",
    "QuestionFigures",
    "leaderboard_entries",
    "nanmean",
    "nansd",
    "pair_counts",
    "question_figures",
]
