"""Exports of a run: a Groundtruth leaderboard submission and a per-question CSV.

How samples count (the same everywhere, so the two exports agree with each other and
with the app): a sample is one of a model's K answers to a question.

- **scored**: its latest judgement is a contract-valid grader record (its total counts);
- **error**: the generation failed (empty, reasoning-only, truncated after retries);
  it counts as a score of 0 with the gate failed, because a failure is a result;
- **unscored**: the judge broke the contract after its re-asks, or it was never
  judged; it is left out of every mean and listed, never counted as 0.

The leaderboard wants one number per question, so with K repeats ``score_b`` is the
mean over the scored and error samples rounded to 2 decimals (an integer when it is
whole), while ``score_b_gate_passed`` and ``score_b_components`` are the first such
sample's (lowest sample index): a submission cannot carry K component lists, and an
average of components is not a grader record. ``score_b_adjudication_required`` is
true when any sample asked for adjudication, so a flag is never averaged away.
A question with no scored or error sample is excluded from ``scores.json`` and listed.
"""

from __future__ import annotations

import csv
import json
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field
from sqlalchemy import Engine

from gtreview.core.jsonformat import dumps_harness_json
from gtreview.core.pairwise import PairLabel
from gtreview.core.rubric import Rubric
from gtreview.store import runs_repo, sets_repo, tables

WINS = frozenset({PairLabel.A_BETTER.value, PairLabel.A_MUCH_BETTER.value})
LOSSES = frozenset({PairLabel.B_BETTER.value, PairLabel.B_MUCH_BETTER.value})
CSV_COLUMNS = (
    "question_id",
    "model",
    "base",
    "samples",
    "n_scored",
    "n_errors",
    "n_unscored",
    "mean",
    "sd",
    "gate_pass_rate",
    "wins",
    "ties",
    "losses",
    "unknown",
)


class ExportError(ValueError):
    """An export that cannot be made (one line for the user)."""


@dataclass
class Sample:
    index: int
    kind: str  # scored | error | unscored
    total: int = 0
    gate_passed: bool = False
    components: list[dict[str, Any]] = field(default_factory=list)
    adjudication_required: bool = False

    @property
    def counts(self) -> bool:
        return self.kind != "unscored"


class LeaderboardEntry(BaseModel):
    id: str
    question: str
    score_b: int | float
    score_b_gate_passed: bool
    score_b_components: list[dict[str, Any]]
    score_b_adjudication_required: bool


class LeaderboardExport(BaseModel):
    scores: list[LeaderboardEntry]
    meta: dict[str, str]
    unscored: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)


class QuestionRow(BaseModel):
    question_id: str
    model: str
    base: str | None
    samples: int
    n_scored: int
    n_errors: int
    n_unscored: int
    mean: float | None
    sd: float | None
    gate_pass_rate: float | None
    wins: int | None = None
    ties: int | None = None
    losses: int | None = None
    unknown: int | None = None


@dataclass
class RunData:
    """Everything the exports read from one run, gathered once."""

    run: runs_repo.RunSummary
    config: dict[str, Any]
    rubric: Rubric | None
    samples: dict[tuple[str, str], list[Sample]]
    pairs: list[tables.PairJudgement]
    rubric_key: str
    warnings: list[str] = field(default_factory=list)

    def models(self) -> list[str]:
        configured = [m.get("label") for m in (self.config.get("pass") or {}).get("models") or []]
        labels = [str(label) for label in configured + list(self.config.get("labels") or []) if label]
        seen = [label for label, _ in self.samples]
        return [m for m in dict.fromkeys(labels + seen) if any(k[0] == m for k in self.samples)]

    def question_ids(self) -> list[str]:
        seen = [qid for _, qid in self.samples]
        ordered = [q.id for q in self.rubric.questions] if self.rubric else []
        return [q for q in dict.fromkeys(ordered + seen) if q in set(seen)]

    def base(self) -> str | None:
        """The model the others were compared with: the pass's first model, or the harness's side A."""
        models = (self.config.get("pass") or {}).get("models") or []
        if models and isinstance(models[0], dict) and models[0].get("label"):
            return str(models[0]["label"])
        labels = self.config.get("labels") or []
        return str(labels[0]) if labels else None


def _components(record: dict[str, Any]) -> tuple[list[dict[str, Any]], bool]:
    """Component awards and the adjudication flag of a stored judgement (own pass or harness import)."""
    contract = record.get("contract")
    if isinstance(contract, dict):
        return list(contract.get("components") or []), bool(contract.get("adjudication_required"))
    file = record.get("file")
    if not isinstance(file, dict):
        return [], False
    components = next((v for k, v in file.items() if k.endswith("_components") and isinstance(v, list)), [])
    flag = next((bool(v) for k, v in file.items() if k.endswith("_adjudication_required")), False)
    return list(components), flag


def _gather_samples(engine: Engine, run_id: int, rubric: Rubric | None) -> dict[tuple[str, str], list[Sample]]:
    judgements = {(j.model_label, j.qid, j.sample_index): j for j in runs_repo.run_judgements(engine, run_id)}
    generations = {(g.model_label, g.qid, g.sample_index): g for g in runs_repo.run_generations(engine, run_id)}
    samples: dict[tuple[str, str], list[Sample]] = {}
    for key in sorted(set(judgements) | set(generations), key=lambda k: k[2]):
        judgement, generation = judgements.get(key), generations.get(key)
        if judgement is not None and judgement.status == "scored" and judgement.total is not None:
            components, flag = _components(json.loads(judgement.record_json))
            sample = Sample(key[2], "scored", judgement.total, judgement.gate_passed is True, components, flag)
        elif generation is not None and generation.status == "error":
            question = rubric.question_by_id(key[1]) if rubric else None
            reason = f"generation failed: {generation.error}"
            zeros = [
                {"id": c.id, "awarded": 0, "maximum": c.points, "reason": reason}
                for c in (question.components if question else [])
            ]
            sample = Sample(key[2], "error", 0, False, zeros)
        else:
            sample = Sample(key[2], "unscored")
        samples.setdefault((key[0], key[1]), []).append(sample)
    return samples


def load_run(engine: Engine, run_id: int, *, rubric: Rubric | None = None) -> RunData:
    """The run's samples and pairs; question texts from ``rubric``, else the run's set as it is now.

    The default rubric key (``meta.json``) is the set's source file name without its
    suffix, which is how the harness names a grading key; else the run's name.
    """
    run = next((r for r in runs_repo.list_runs(engine) if r.id == run_id), None)
    if run is None:
        raise ExportError(f"the project has no run {run_id}")
    warnings = []
    rubric_key = run.name
    if run.set_id is not None:
        source = next((s.source_name for s in sets_repo.list_sets(engine) if s.id == run.set_id), "")
        rubric_key = Path(source).stem or rubric_key
        if rubric is None:
            rubric = sets_repo.export_rubric(engine, run.set_id)
    if rubric is None:
        warnings.append(f"run {run_id} has no benchmark set; question texts are empty (give the rubric)")
    return RunData(
        run=run,
        config=runs_repo.run_config(engine, run_id),
        rubric=rubric,
        samples=_gather_samples(engine, run_id, rubric),
        pairs=runs_repo.run_pairs(engine, run_id),
        rubric_key=rubric_key,
        warnings=warnings,
    )


def _score(value: float) -> int | float:
    rounded = round(value, 2)
    return int(rounded) if rounded == int(rounded) else rounded


def leaderboard_submission(
    data: RunData,
    model: str,
    *,
    rubric_key: str | None = None,
    candidate_model_id: str | None = None,
    contact: str = "",
) -> LeaderboardExport:
    """The ``scores.json`` entries and ``meta.json`` of one model of the run (rules in the module doc)."""
    if model not in data.models():
        raise ExportError(f"run {data.run.id} has no model {model!r} (it has {', '.join(data.models()) or 'none'})")
    scores, unscored = [], []
    for qid in data.question_ids():
        counted = [s for s in data.samples.get((model, qid), []) if s.counts]
        if not counted:
            if (model, qid) in data.samples:
                unscored.append(qid)
            continue
        first = counted[0]
        question = data.rubric.question_by_id(qid) if data.rubric else None
        scores.append(
            LeaderboardEntry(
                id=qid,
                question=(question.question or "") if question else "",
                score_b=_score(statistics.fmean(s.total for s in counted)),
                score_b_gate_passed=first.gate_passed,
                score_b_components=first.components,
                score_b_adjudication_required=any(s.adjudication_required for s in counted),
            )
        )
    meta = {
        "rubric_key": rubric_key or data.rubric_key,
        "candidate_model_id": candidate_model_id or model,
        "contact_or_repo": contact,
    }
    return LeaderboardExport(scores=scores, meta=meta, unscored=unscored, warnings=list(data.warnings))


def write_leaderboard(export: LeaderboardExport, out_dir: Path) -> list[Path]:
    """``scores.json`` and ``meta.json``, in the harness's JSON layout; nothing else is written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    scores, meta = out_dir / "scores.json", out_dir / "meta.json"
    scores.write_text(dumps_harness_json([e.model_dump() for e in export.scores]), encoding="utf-8")
    meta.write_text(dumps_harness_json(export.meta), encoding="utf-8")
    return [scores, meta]


def _pair_counts(data: RunData, qid: str, model: str, base: str) -> tuple[int, int, int, int]:
    """Wins, ties, losses and unknowns of ``model`` against ``base`` (either stored order)."""
    latest: dict[tuple[int, str, str], tables.PairJudgement] = {}
    for pair in data.pairs:
        if pair.qid == qid and {pair.model_a, pair.model_b} == {model, base}:
            latest[(pair.sample_index, pair.model_a, pair.model_b)] = pair
    wins = ties = losses = unknown = 0
    for pair in latest.values():
        label = pair.label
        if pair.model_a != model:  # stored as base-vs-model: turn it round
            label = {"A>B": "B>A", "A>>B": "B>>A", "B>A": "A>B", "B>>A": "A>>B"}.get(label, label)
        wins += label in WINS
        losses += label in LOSSES
        ties += label == PairLabel.TIE.value
        unknown += label not in WINS | LOSSES | {PairLabel.TIE.value}
    return wins, ties, losses, unknown


def question_results(data: RunData, *, base: str | None = None) -> list[QuestionRow]:
    """One row per question and model: spread over the counted samples, pairs against the base."""
    base = base or data.base()
    rows = []
    for qid in data.question_ids():
        for model in data.models():
            samples = data.samples.get((model, qid), [])
            counted = [s.total for s in samples if s.counts]
            passes = [s.gate_passed for s in samples if s.counts]
            row = QuestionRow(
                question_id=qid,
                model=model,
                base=base,
                samples=len(samples),
                n_scored=sum(s.kind == "scored" for s in samples),
                n_errors=sum(s.kind == "error" for s in samples),
                n_unscored=sum(s.kind == "unscored" for s in samples),
                mean=round(statistics.fmean(counted), 4) if counted else None,
                sd=round(statistics.stdev(counted), 4) if len(counted) > 1 else None,
                gate_pass_rate=round(sum(passes) / len(passes), 4) if passes else None,
            )
            if base is not None and model != base:
                row.wins, row.ties, row.losses, row.unknown = _pair_counts(data, qid, model, base)
            rows.append(row)
    return rows


def write_results_csv(rows: list[QuestionRow], path: Path) -> Path:
    """A plain CSV for spreadsheets: empty cells where a figure does not exist (no samples, K=1 sd, the base's pairs)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(CSV_COLUMNS)
        for row in rows:
            values = row.model_dump()
            writer.writerow(["" if values[c] is None else values[c] for c in CSV_COLUMNS])
    return path
