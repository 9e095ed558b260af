"""The PDF report of a run: one use case, so the app and the CLI print the same cover."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel
from sqlalchemy import Engine

from gtreview.app.adjudication import agreement_report
from gtreview.app.judge_gate import JudgeGate, judge_gate
from gtreview.app.results import readings_of
from gtreview.core.jsonmodel import canonical_hash
from gtreview.report.run_report import write_run_report
from gtreview.results.analysis import RunAnalysis, analyse
from gtreview.results.loader import RunResults, load_run_results
from gtreview.store import sets
from gtreview.store.db import reading
from gtreview.store.sets import signoffs


class ReportCover(BaseModel):
    set_name: str = ""
    signoff: str = ""


class ReportResult(BaseModel):
    path: Path
    cover: ReportCover
    gate: JudgeGate  # what the cover says of the judge


def report_cover(engine: Engine, results: RunResults) -> ReportCover:
    """The set the run answered and the sign-off that froze exactly that version, if any."""
    set_id = results.set_id
    if set_id is None:
        set_id = _set_signed_as(engine, results.rubric_hash) or _set_now_as(engine, results.rubric_hash)
    if set_id is None:
        return ReportCover()
    with reading(engine) as session:
        set_name = next((s.name for s in sets.list_sets(session) if s.id == set_id), "")
    with reading(engine) as session:
        matching = [s for s in signoffs(session, set_id) if s.content_hash == results.rubric_hash]
    signoff = (
        f"sign-off #{matching[-1].number} by {matching[-1].reviewer}, {matching[-1].signed_at:%Y-%m-%d}"
        if matching
        else "draft: no sign-off matches this version of the set"
    )
    return ReportCover(set_name=set_name, signoff=signoff)


def _set_signed_as(engine: Engine, rubric_hash: str) -> int | None:
    """The set one of whose sign-offs froze exactly this rubric (a run made from a released
    rubric file names no set, but its content hash says which one it was)."""
    if not rubric_hash:
        return None
    with reading(engine) as session:
        for summary in sets.list_sets(session):
            if any(s.content_hash == rubric_hash for s in signoffs(session, summary.id)):
                return summary.id
    return None


def _set_now_as(engine: Engine, rubric_hash: str) -> int | None:
    """The set whose current content is exactly this rubric (an import of a draft's rubric
    file: no sign-off froze it, but the project holds the same questions)."""
    if not rubric_hash:
        return None
    with reading(engine) as session:
        for summary in sets.list_sets(session):
            with reading(engine) as session:
                if canonical_hash(sets.export_rubric(session, summary.id).to_json_dict()) == rubric_hash:
                    return summary.id
    return None


def write_report(
    engine: Engine,
    run_id: int,
    out: Path,
    *,
    seed: int = 0,
    results: RunResults | None = None,
    analysis: RunAnalysis | None = None,
) -> ReportResult:
    """Analyse (unless given) and write the report; ``results``/``analysis`` let a view reuse what it shows."""
    results = results or load_run_results(engine, run_id)
    analysis = analysis or analyse(results, seed=seed)
    cover = report_cover(engine, results)
    agreement = agreement_report(engine, run_id, seed=seed, results=results)
    gate = judge_gate(engine, run_id, results=results, seed=seed)
    path = write_run_report(
        results,
        analysis,
        out,
        set_name=cover.set_name,
        signoff=cover.signoff,
        agreement=agreement,
        gate_line=gate.line,
        gated=gate.gated,
        readings=readings_of(results, analysis, gate),
        gate_details=gate.details,
    )
    return ReportResult(path=path, cover=cover, gate=gate)
