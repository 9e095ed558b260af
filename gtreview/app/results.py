"""What the results view shows: a pass's figures, its status line, the leaderboard."""

from __future__ import annotations

from pydantic import BaseModel
from sqlalchemy import Engine

from gtreview.app.adjudication import agreement_report
from gtreview.app.judge_gate import JudgeGate, judge_gate
from gtreview.app.question_calibration import latest_calibration
from gtreview.core.wording import plural
from gtreview.judging.calibration import standardisation_fixtures
from gtreview.results.analysis import RunAnalysis, analyse, fmt
from gtreview.results.figures import RunFigures, run_figures
from gtreview.results.loader import RunResults, load_run_results
from gtreview.results.membership_text import membership_of
from gtreview.results.reading import FineTuneReading, fine_tune_readings
from gtreview.runs.membership import MembershipReport
from gtreview.runs.record import read_run_config
from gtreview.runs.statuses import RunStatus
from gtreview.store import runs_repo
from gtreview.store.db import reading
from gtreview.store.runs_repo import RunSummary as RunSummary  # re-exported: the Runs view shows these


class ResultsBundle(BaseModel):
    results: RunResults
    analysis: RunAnalysis
    status: str
    gate: JudgeGate  # the line the PDF cover prints too
    leaderboard: list[tuple[RunResults, RunAnalysis]]
    readings: list[FineTuneReading] = []  # one per fine-tune, as the PDF's reading pages print them


class RunReadings(BaseModel):
    """What ``gtreview results`` prints: the figures, the judge gate and the readings."""

    figures: RunFigures
    gate: JudgeGate
    readings: list[FineTuneReading]
    membership: MembershipReport | None = None  # the membership tests kept with the pass, as the view shows them


def run_summaries(engine: Engine) -> list[runs_repo.RunSummary]:
    """Every run with the records it uses, as the Runs view lists them (the link table;
    tests check it against the loader's ``record_counts``)."""
    with reading(engine) as session:
        return runs_repo.list_runs(session)


def reportable_runs(engine: Engine) -> list[tuple[int, str]]:
    """Every run of the project: its own passes and imported harness runs alike."""
    with reading(engine) as session:
        return [(r.id, r.name) for r in runs_repo.list_runs(session)]


_STATUS_TEXT = {
    RunStatus.RUNNING: "Pass running: the figures are those stored so far.",
    RunStatus.IMPORTED: "Imported from harness files: recomputed by gtreview's rules.",
}
RESUME = "resume it with Resume selected pass in Runs, or gtreview run with the same settings"
INTERRUPTED_TEXT = f"Pass interrupted: its process was killed or crashed ({RESUME})."
UNKNOWN_STOP = "cancelled, stopped by drift or failed"  # a pass stopped before the reason was kept


def _finished_text(results: RunResults) -> str:
    """What a finished pass can say of its judge's drift: only the checks that ran passed."""
    if results.config.drift_every <= 0:
        return "Pass finished with drift checks off: the judge was not checked against the standardisation fixtures."
    if not standardisation_fixtures(results.every_question()):
        return "Pass finished: the set has no standardisation fixtures, so no drift check ran."
    return "Pass finished: every drift check passed."


def pass_status_text(results: RunResults, stopped_because: str = "") -> str:
    """The results view's first sentence, from the status every view shows (an owner
    process that is gone makes a running pass interrupted, as in the runs list)."""
    if results.interrupted:
        return INTERRUPTED_TEXT
    if results.status is RunStatus.FINISHED:
        return _finished_text(results)
    if results.status is RunStatus.STOPPED:
        return f"Pass not finished: {stopped_because or UNKNOWN_STOP} ({RESUME})."
    return _STATUS_TEXT[results.status]


def status_line(
    engine: Engine,
    results: RunResults,
    set_id: int | None,
    analysis: RunAnalysis | None = None,
    *,
    judge_gated: bool | None = None,
) -> str:
    with reading(engine) as session:
        stopped_because = read_run_config(session, results.run_id).stopped_because
    parts = [pass_status_text(results, stopped_because)]
    agreement = agreement_report(engine, results.run_id, results=results)
    if agreement.n_graded and agreement.totals is not None:
        gate = agreement.gate.kappa if agreement.gate is not None else None
        parts.append(
            f"Judge vs expert on {agreement.n_graded} hand-graded answers: gate kappa {fmt(gate)}, "
            f"total alpha {fmt(agreement.totals.alpha.alpha)}, mean abs. difference {fmt(agreement.totals.mad)}."
        )
    if results.familiarity_probes:
        parts.append(probe_readings(results, analysis, judge_gated=judge_gated))
    adjudicated = sum(1 for s in results.samples if s.adjudicated)
    if adjudicated:
        parts.append(f"{plural(adjudicated, 'score')} settled by an expert.")
    if set_id is not None:
        checked = [latest_calibration(engine, set_id, q.id) for q in results.questions]
        done = [c for c in checked if c is not None]
        reproduced = sum(1 for c in done if c[1].reproduced)
        judges = sorted({c[0] for c in done})
        parts.append(
            f"Calibration of the current versions: {reproduced} of {len(results.questions)} questions reproduced"
            + (f" (judge {', '.join(judges)})" if judges else " (not calibrated)")
            + "."
        )
    return " ".join(parts)


def load_results(engine: Engine, run_id: int, set_id: int | None, *, seed: int = 0) -> ResultsBundle:
    results = load_run_results(engine, run_id)
    analysis = analyse(results, seed=seed)
    board = [(results, analysis)]
    for other_id, _ in reportable_runs(engine):
        if other_id != run_id:
            other = load_run_results(engine, other_id)
            board.append((other, analyse(other, seed=seed, n_boot=500, n_perm=2000)))
    gate = judge_gate(engine, run_id, results=results, seed=seed)
    return ResultsBundle(
        results=results,
        analysis=analysis,
        status=status_line(engine, results, set_id, analysis, judge_gated=gate.gated),
        gate=gate,
        leaderboard=board,
        readings=readings_of(results, analysis, gate),
    )


def readings_of(results: RunResults, analysis: RunAnalysis, gate: JudgeGate) -> list[FineTuneReading]:
    """The fine-tunes' readings as the view, the PDF and the CLI show them, under this pass's
    judge gate: every caller reads them here, so none can show a reading the others do not."""
    return fine_tune_readings(results, analysis, judge_gated=gate.gated, judge_line=gate.line)


def run_readings_of(engine: Engine, run_id: int, *, seed: int = 0) -> RunReadings:
    """The run's figures, judge gate and readings from one load and one analysis."""
    results = load_run_results(engine, run_id)
    analysis = analyse(results, seed=seed)
    gate = judge_gate(engine, run_id, results=results, seed=seed)
    return RunReadings(
        figures=run_figures(results, analysis),
        gate=gate,
        readings=readings_of(results, analysis, gate),
        membership=membership_of(results),
    )


def run_figures_of(engine: Engine, run_id: int, *, seed: int = 0) -> RunFigures:
    """The run's figures as the results view shows them (same loader, same analysis, same seed)."""
    results = load_run_results(engine, run_id)
    return run_figures(results, analyse(results, seed=seed))


def probe_readings(results: RunResults, analysis: RunAnalysis | None = None, *, judge_gated: bool | None = None) -> str:
    """The learned-or-recited reading of the memorisation probes kept with the pass. The
    judge's reasoning points take part only when it is gated: a judge that may be noise
    would otherwise read a fine-tune that recites as one that "reasons better"."""
    from gtreview.runs.probe_reading import reading, told_apart_of
    from gtreview.runs.probes import FamiliarityReport, RecallReport

    assert results.probes is not None
    analysis = analysis or analyse(results, n_boot=300, n_perm=500)
    readings = reading(
        FamiliarityReport.model_validate(results.probes["familiarity"]),
        RecallReport.model_validate(results.probes["recall"]),
        {f.label: f.kind_differences for f in analysis.finetunes} if judge_gated is True else None,
        told_apart_of(results.probes),
    )
    return "Probes: " + "; ".join(f"{r.label}: {r.text}" for r in readings) + "."
