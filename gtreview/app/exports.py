"""Exporting a run's figures: the per-question CSV and a leaderboard submission.

Both read the run through the one results loader, so an expert's override, reused
answers, extended repeats and imported runs come out as the app shows them.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field
from sqlalchemy import Engine

from gtreview.core.errors import UserError
from gtreview.core.rubric import Rubric
from gtreview.report.exports import write_leaderboard, write_results_csv
from gtreview.results.loader import RunResults, load_run_results
from gtreview.results.rows import LeaderboardExport, leaderboard_entries, question_figures
from gtreview.store import sets_repo


class ExportError(UserError):
    """An export that cannot be made (one line for the user)."""


class ExportResult(BaseModel):
    files: list[Path]
    rows: int
    left_out: list[str] = Field(default_factory=list)
    meta: dict[str, str] = Field(default_factory=dict)
    warnings: list[str] = Field(default_factory=list)


def _with_rubric_texts(results: RunResults, rubric: Rubric | None) -> list[str]:
    """Question texts from a rubric file where the run has none (an old import); returns warnings."""
    if rubric is not None:
        texts = {q.id: q for q in rubric.questions}
        results.questions = [texts[q.id] if q.id in texts and not q.question else q for q in results.questions]
    if any(not q.question for q in results.questions):
        return [f"run {results.run_id} keeps no question texts for some questions (give the rubric)"]
    return []


def export_csv(
    engine: Engine, run_id: int, out: Path, *, rubric: Rubric | None = None, results: RunResults | None = None
) -> ExportResult:
    results = results or load_run_results(engine, run_id)
    warnings = _with_rubric_texts(results, rubric)
    rows = question_figures(results)
    return ExportResult(files=[write_results_csv(rows, out)], rows=len(rows), warnings=warnings)


def default_rubric_key(engine: Engine, results: RunResults) -> str:
    """The set's source file name without its suffix (how the harness names a grading key), else the run's name."""
    if results.set_id is not None:
        source = next((s.source_name for s in sets_repo.list_sets(engine) if s.id == results.set_id), "")
        if Path(source).stem:
            return Path(source).stem
    return results.name


def leaderboard_export(
    engine: Engine,
    run_id: int,
    model: str,
    *,
    rubric: Rubric | None = None,
    rubric_key: str | None = None,
    candidate_model_id: str | None = None,
    contact: str = "",
    results: RunResults | None = None,
) -> LeaderboardExport:
    results = results or load_run_results(engine, run_id)
    if model not in results.models:
        raise ExportError(f"run {run_id} has no model {model!r} (it has {', '.join(results.models) or 'none'})")
    warnings = _with_rubric_texts(results, rubric)
    entries, left_out = leaderboard_entries(results, model)
    meta = {
        "rubric_key": rubric_key or default_rubric_key(engine, results),
        "candidate_model_id": candidate_model_id or model,
        "contact_or_repo": contact,
    }
    return LeaderboardExport(scores=entries, meta=meta, unscored=left_out, warnings=warnings)


def export_leaderboard(
    engine: Engine,
    run_id: int,
    model: str,
    out_dir: Path,
    *,
    rubric: Rubric | None = None,
    rubric_key: str | None = None,
    candidate_model_id: str | None = None,
    contact: str = "",
) -> ExportResult:
    export = leaderboard_export(
        engine,
        run_id,
        model,
        rubric=rubric,
        rubric_key=rubric_key,
        candidate_model_id=candidate_model_id,
        contact=contact,
    )
    return ExportResult(
        files=write_leaderboard(export, out_dir),
        rows=len(export.scores),
        left_out=export.unscored,
        meta=export.meta,
        warnings=export.warnings,
    )
