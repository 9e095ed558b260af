"""Long jobs in the window: each shows in the status bar's activity panel (what runs, its
phase, n of N, ETA, Cancel), a report is never queued behind them, and quitting names
every one of them, cancels them and closes their models before the window goes."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QThreadPool

from gtreview.core.errors import Cancelled
from gtreview.inference.backend import CompletionRequest, CompletionResult, ResultCallback
from gtreview.store import sets
from gtreview.store.db import reading, unit_of_work
from gtreview.store.settings_repo import JUDGE_SPEC, set_setting
from tests.judging.scripted import ScriptedBackend
from tests.ui.test_runs_ui import CONFIG, gated_open, scripted_open
from tests.ui.waiting import settle

JUDGE = "openai:http://judge#j"


class GatedJudge(ScriptedBackend):
    """Hands back each verdict as it is final; after the first ``after`` it waits for
    ``gate``, and a cancel stops the wait as a model worker does (a ``Cancelled``)."""

    def __init__(self, inner: ScriptedBackend, gate: threading.Event, after: int) -> None:
        super().__init__(inner.respond, spec=inner.spec)
        self.gate, self.after, self.served = gate, after, 0
        self.closed = False

    def complete_batch(
        self,
        requests: Sequence[CompletionRequest],
        on_result: ResultCallback | None = None,
        cancel: threading.Event | None = None,
    ) -> list[CompletionResult]:
        out = []
        for index, request in enumerate(requests):
            self.served += 1
            while self.served > self.after and not self.gate.wait(0.02):
                if cancel is not None and cancel.is_set():
                    raise Cancelled("generation cancelled")
            (result,) = super().complete_batch([request])
            out.append(result)
            if on_result is not None:
                on_result(index, result)
        return out

    def close(self) -> None:
        self.closed = True


def gated_judge(window, gate: threading.Event, after: int) -> GatedJudge:  # type: ignore[no-untyped-def]
    return GatedJudge(scripted_open(window)(JUDGE), gate, after)


def fixture_count(window) -> int:  # type: ignore[no-untyped-def]
    with reading(window.project.engine) as session:
        questions = sets.export_rubric(session, window.set_id).questions
    return sum(len(q.calibration) for q in questions)


def start_calibration(qtbot, window, judge: GatedJudge) -> None:  # type: ignore[no-untyped-def]
    with unit_of_work(window.project.engine) as tx:
        set_setting(tx, JUDGE_SPEC, JUDGE)
    window.controller.open_backend = lambda _spec: judge
    window.menu_actions["calibrate_set"].trigger()
    qtbot.waitUntil(lambda: any(" · calibrate: " in line for line in window.activity_panel.lines()), timeout=20000)


def test_before_the_first_verdict_the_panel_is_busy_and_says_what_it_does(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    """A small judge may take minutes over its first fixture: the row says it is judging
    fixture 1, how long it has run, and its bar is busy rather than empty."""
    window = sample_window
    gate = threading.Event()
    judge = gated_judge(window, gate, after=0)
    try:
        start_calibration(qtbot, window, judge)
        total = fixture_count(window)
        qtbot.waitUntil(
            lambda: f"calibrate: judging fixture 1 of {total} · running " in window.activity_panel.lines()[0],
            timeout=20000,
        )
        (row,) = window.activity_panel.rows.values()
        assert (row.bar.minimum(), row.bar.maximum()) == (0, 0)  # busy
        gate.set()
        qtbot.waitUntil(lambda: not window.activity_panel.rows, timeout=20000)
    finally:
        gate.set()
    settle(qtbot, window)


def test_the_judge_phase_shows_its_own_counter_while_the_judge_reads(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    """After generation the judge reads every answer before its first verdict: the Runs
    view and the activity panel say "judge: 0 of 40 verdicts", never "20 of 20 answers"."""
    window = sample_window
    gate = threading.Event()
    inner = scripted_open(window)
    judges: list[GatedJudge] = []

    def opener(spec: str) -> ScriptedBackend:
        if spec != JUDGE:
            return inner(spec)
        judges.append(GatedJudge(inner(spec), gate, after=0))  # no verdict until the gate opens
        return judges[-1]

    window.run_controller.open_backend = opener
    window.start_configured_pass(CONFIG.model_copy(update={"pairwise": False}))
    try:
        qtbot.waitUntil(lambda: window.runs_view.phase.text().startswith("phase 5 of 5: judge: "), timeout=20000)
        assert window.runs_view.phase.text() == "phase 5 of 5: judge: pointwise verdicts 0 of 40"
        (line,) = window.activity_panel.lines()
        # what it does, before a verdict, and where the pass is
        assert line.startswith('Pass "ui pass" · phase 5 of 5: judge: pointwise verdicts 0 of 40 · running ')
        (row,) = window.activity_panel.rows.values()
        assert row.bar.maximum() == 0 and row.cancel_button.isEnabled()  # busy: no verdict yet
        with qtbot.waitSignal(window.run_controller.finished, timeout=20000) as outcome:
            row.cancel_button.click()  # the panel's Cancel stops the pass
        assert "cancelled" in outcome.args[0] and judges[-1].closed
    finally:
        gate.set()
    settle(qtbot, window)
    assert window.activity_panel.lines() == [] and not window.activity_panel.isVisible()


def test_calibrate_set_shows_n_of_n_disables_itself_and_cancels(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    gate = threading.Event()
    judge = gated_judge(window, gate, after=2)
    try:
        start_calibration(qtbot, window, judge)
        total = fixture_count(window)
        qtbot.waitUntil(lambda: f"calibrate: fixtures 2 of {total}" in window.activity_panel.lines()[0], timeout=20000)
        assert window.activity_panel.lines()[0].startswith(f"Calibrating the active questions with {JUDGE} · ")
        # one calibration at a time: both actions wait for this one
        assert not window.menu_actions["calibrate_set"].isEnabled()
        assert not window.menu_actions["calibrate"].isEnabled()
        (row,) = window.activity_panel.rows.values()
        row.cancel_button.click()
        qtbot.waitUntil(lambda: not window.activity_panel.rows, timeout=20000)
    finally:
        gate.set()
    settle(qtbot, window)
    assert "Calibration cancelled" in window.statusBar().currentMessage() and judge.closed
    assert window.menu_actions["calibrate_set"].isEnabled() and window.menu_actions["calibrate"].isEnabled()


def test_a_report_is_written_while_a_pass_and_a_calibration_run(qtbot, sample_window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Jobs once shared Qt's global pool (as many threads as cores): on two cores a pass
    and a calibration held it, and File > Export report waited, unsaid, for the pass."""
    window = sample_window
    pool = QThreadPool.globalInstance()
    threads = pool.maxThreadCount()
    pool.setMaxThreadCount(2)  # a two-core machine
    window.run_controller.open_backend = scripted_open(window)
    with qtbot.waitSignal(window.run_controller.finished, timeout=30000):
        window.start_configured_pass(CONFIG.model_copy(update={"name": "done", "repeats": 1, "pairwise": False}))
    settle(qtbot, window)
    window.show_results(1)
    qtbot.waitUntil(lambda: window.results_run_id == 1 and window.results_view.results is not None, timeout=30000)
    settle(qtbot, window)
    gate = threading.Event()
    try:
        window.open_set(window.set_id)  # Calibrate set acts on the question page's set
        settle(qtbot, window)
        start_calibration(qtbot, window, gated_judge(window, gate, after=1))
        window.run_controller.open_backend = gated_open(window, gate)
        window.start_configured_pass(CONFIG)
        assert len(window.ops.activities.jobs()) == 2
        report = tmp_path / "run-1.pdf"
        window.export_report(report)
        qtbot.waitUntil(report.exists, timeout=60000)
        qtbot.waitUntil(lambda: len(window.ops.activities.jobs()) == 2, timeout=10000)  # the report's row went
        assert {job.kind.value for job in window.ops.activities.jobs()} == {"pass", "calibration"}
    finally:
        gate.set()
        pool.setMaxThreadCount(threads)
    settle(qtbot, window, timeout=60000)


def test_quitting_during_a_calibration_names_it_cancels_it_and_closes_its_judge(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    gate = threading.Event()
    judge = gated_judge(window, gate, after=1)
    asked: list[list[str]] = []
    try:
        start_calibration(qtbot, window, judge)
        # the judge is open and has judged one fixture (cancelled before, it would never be opened)
        qtbot.waitUntil(lambda: " · calibrate: fixtures 1 of " in window.activity_panel.lines()[0], timeout=20000)
        window.ask_stop_jobs = lambda _parent, jobs: asked.append([job.title for job in jobs]) or True
        window.menu_actions["quit"].trigger()
        assert not window.isVisible()
        assert asked == [[f"Calibrating the active questions with {JUDGE}"]]
        assert window.ops.activities.jobs() == [] and judge.closed  # stopped, its judge closed, before the window went
    finally:
        gate.set()
