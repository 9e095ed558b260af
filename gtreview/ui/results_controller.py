"""The results page: a pass's figures read and analysed in a worker, and read again when
the expert's decisions or the passes change (once the page is in view, not per click)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QObject, Signal
from sqlalchemy import Engine

from gtreview.app.project_settings import GATE_SETTING_KEYS
from gtreview.app.results import ResultsBundle, RunSummary, load_results, reportable_runs
from gtreview.ui.ops import LatestQuery, OpChanges, failure_kind, failure_message, notify
from gtreview.ui.widgets.results_html import leaderboard_rows
from gtreview.ui.widgets.results_view import ResultsView


@dataclass(frozen=True)
class _Shown:
    run_id: int
    bundle: ResultsBundle
    runs: list[tuple[int, str]]
    leaderboard: list[list[str]]


class ResultsController(QObject):
    message = Signal(str)
    opened = Signal(int)  # a run the user asked for is shown: the window turns to the page

    def __init__(
        self, engine: Engine, view: ResultsView, set_id: Callable[[], int | None], parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.engine, self.view, self.set_id = engine, view, set_id
        self.run_id: int | None = None
        self.shown_status = ""  # the shown run's status as its figures were read
        self.stale = False
        self._load = LatestQuery(self)
        view.run_selected.connect(self.show_results)
        view.became_visible.connect(self._visible)

    def show_results(self, run_id: int, *, turn: bool = True) -> None:
        """Analyse ``run_id`` in a worker and show it; ``turn`` turns to the page once shown."""
        engine, set_id = self.engine, self.set_id()
        if turn:
            self.message.emit(f"Analysing run {run_id}…")

        def read() -> _Shown:
            bundle = load_results(engine, run_id, set_id)
            return _Shown(run_id, bundle, reportable_runs(engine), leaderboard_rows(bundle.leaderboard))

        def show(shown: _Shown) -> None:
            self.run_id, self.stale = shown.run_id, False
            bundle = shown.bundle
            self.shown_status = bundle.results.shown_status
            self.view.set_runs(shown.runs, shown.run_id)
            self.view.show_results(bundle.results, bundle.analysis, bundle.status)
            self.view.set_judge_gate(bundle.gate.line, bundle.gate.gated, bundle.gate.details)
            self.view.reading.show_readings(bundle.readings)
            self.view.set_leaderboard(shown.leaderboard)
            if turn:
                self.opened.emit(shown.run_id)
                self.message.emit(f"Run {shown.run_id} analysed.")

        def failed(error: BaseException) -> None:
            notify(self, f"Cannot show run {run_id}: {failure_message(error)}", failure_kind(error))

        self._load.run(read, show, failed)

    def on_changes(self, changes: OpChanges, _initiator: object = None) -> None:
        """Decisions on the shown pass change its figures; any pass changes the leaderboard;
        the judge gate's settings change its gate line."""
        gate_settings = bool(changes.settings & GATE_SETTING_KEYS)
        if self.run_id is None or not (self.run_id in changes.adjudications or changes.runs or gate_settings):
            return
        self._reread()

    def runs_read(self, runs: list[RunSummary]) -> None:
        """The runs as just read: a shown pass whose status changed (cancelled, finished,
        its process gone) is read again, or its page keeps saying "Pass running"."""
        shown = next((r for r in runs if r.id == self.run_id), None)
        if shown is None or not self.shown_status or shown.shown_status == self.shown_status:
            return
        self.shown_status = shown.shown_status  # asked once per change
        self._reread()

    def _reread(self) -> None:
        """The shown pass again, now if the page is seen, else when it is turned to."""
        if self.run_id is None:
            return
        if self.view.isVisible():
            self.show_results(self.run_id, turn=False)
        else:
            self.stale = True

    def _visible(self) -> None:
        if self.stale and self.run_id is not None and not self._load.pending:
            self.stale = False
            self.show_results(self.run_id, turn=False)
