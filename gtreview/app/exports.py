"""Exporting a run's figures: the per-question CSV and a leaderboard submission.

Both read the run through the one results loader, so an expert's override, reused
answers, extended repeats and imported runs come out as the app shows them.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field
from sqlalchemy import Engine

from gtreview.app.harness_import import rubric_key_of
from gtreview.core.errors import UserError
from gtreview.core.rubric import Rubric
from gtreview.interop.harness_files import read_rubric_registry, registry_key
from gtreview.report.exports import write_leaderboard, write_results_csv
from gtreview.results.loader import RunResults, load_run_results
from gtreview.results.rows import LeaderboardExport, leaderboard_entries, question_figures
from gtreview.runs.record import read_run_config
from gtreview.store import sets
from gtreview.store.db import reading


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


class SubmissionMeta(BaseModel):
    """``meta.json``'s optional fields the harness's leaderboard reads (None: left out)."""

    model_name: str | None = None
    candidate_model_id: str | None = None
    harness_name: str | None = None
    harness_repo: str | None = None
    submitter: str | None = None
    contact_or_repo: str = ""
    date: str | None = None


def rubric_key_for(
    engine: Engine,
    results: RunResults,
    *,
    rubric: Rubric | None = None,
    rubric_file: str | None = None,
    rubrics_registry: Path | None = None,
) -> tuple[str, list[str]]:
    """The key the harness's leaderboard knows the run's rubric by, and any warning.

    In order: what the import was told or found (its ``harness`` block), the rubric's own
    ``benchmark`` block (``key`` or ``rubric_key``), the entry of the harness's
    ``configs/rubrics.json`` that lists the rubric's file; failing those, the set's file
    name without its suffix, with a warning (the leaderboard ranks only registry keys).
    """
    with reading(engine) as session:
        stored = read_run_config(session, results.run_id)
        if stored.harness is not None and stored.harness.rubric_key:
            return stored.harness.rubric_key, []
        source = ""
        if results.set_id is not None:
            source = next((s.source_name for s in sets.list_sets(session) if s.id == results.set_id), "")
            rubric = rubric or Rubric.model_validate({**sets.set_header(session, results.set_id), "questions": []})
    names = [n for n in (rubric_file, stored.harness.rubric_file if stored.harness else None, source) if n]
    if rubric is not None and (key := rubric_key_of(rubric)):
        return key, []
    if rubrics_registry is not None:
        entries = read_rubric_registry(rubrics_registry)
        for name in names:
            if key := registry_key(entries, name):
                return key, []
        listed = ", ".join(names) or "the run's rubric (its file name is not known: give --rubric)"
        raise ExportError(f"{rubrics_registry}: no entry's file is {listed}; give --rubric-key")
    if Path(source).stem:
        return Path(source).stem, [
            f"rubric_key {Path(source).stem!r} is the set's file name; the harness's leaderboard ranks only the keys "
            "of its configs/rubrics.json (give --rubric-key or --rubrics-config)"
        ]
    raise ExportError(
        f"run {results.run_id}: no rubric key for meta.json; give --rubric-key, or --rubrics-config with the "
        "harness's configs/rubrics.json"
    )


def leaderboard_export(
    engine: Engine,
    run_id: int,
    model: str,
    *,
    rubric: Rubric | None = None,
    rubric_key: str | None = None,
    candidate_model_id: str | None = None,
    contact: str = "",
    meta: SubmissionMeta | None = None,
    rubric_file: str | None = None,
    rubrics_registry: Path | None = None,
    results: RunResults | None = None,
) -> LeaderboardExport:
    results = results or load_run_results(engine, run_id)
    if model not in results.models:
        raise ExportError(f"run {run_id} has no model {model!r} (it has {', '.join(results.models) or 'none'})")
    warnings = _with_rubric_texts(results, rubric)
    if rubric_key is None:
        rubric_key, found = rubric_key_for(
            engine, results, rubric=rubric, rubric_file=rubric_file, rubrics_registry=rubrics_registry
        )
        warnings += found
    entries, left_out = leaderboard_entries(results, model)
    averaged = [e.id for e in entries if e.score_b_components is None]
    if averaged:
        warnings.append(
            f"no component list for {', '.join(averaged)}: their score is a mean of samples whose totals differ"
        )
    given = (meta or SubmissionMeta()).model_copy()
    given.candidate_model_id = candidate_model_id or given.candidate_model_id or model
    given.contact_or_repo = contact or given.contact_or_repo
    fields = given.model_dump()
    order = ("model_name", "candidate_model_id", "harness_name", "harness_repo", "submitter", "contact_or_repo", "date")
    written = {"rubric_key": rubric_key, **{k: fields[k] for k in order if fields[k] is not None}}
    return LeaderboardExport(scores=entries, meta=written, unscored=left_out, warnings=warnings)


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
    meta: SubmissionMeta | None = None,
    rubric_file: str | None = None,
    rubrics_registry: Path | None = None,
) -> ExportResult:
    export = leaderboard_export(
        engine,
        run_id,
        model,
        rubric=rubric,
        rubric_key=rubric_key,
        candidate_model_id=candidate_model_id,
        contact=contact,
        meta=meta,
        rubric_file=rubric_file,
        rubrics_registry=rubrics_registry,
    )
    return ExportResult(
        files=write_leaderboard(export, out_dir),
        rows=len(export.scores),
        left_out=export.unscored,
        meta=export.meta,
        warnings=export.warnings,
    )
