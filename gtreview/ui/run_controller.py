"""Running a benchmark pass from the app: in a worker thread, with progress and cancel
(on the window's activity board, so the status bar shows it and quitting stops it), and
resuming a stopped pass from its stored configuration."""

from __future__ import annotations

import threading

from PySide6.QtCore import QObject, Signal

from gtreview.app.backends import OpenBackend, open_model
from gtreview.app.passes import (
    PassCancelled,
    PassEvent,
    PassResult,
    PassSetupError,
    ResumablePass,
    SameModelError,
    resumable_pass,
    run_benchmark_pass,
)
from gtreview.app.projects import Project
from gtreview.core.activity import JobKind, JobProgress
from gtreview.runs.plan import PassConfig
from gtreview.ui.activity import ActivityBoard
from gtreview.ui.ops import BackgroundJob, QueryOp, failure_kind, failure_message, notify


class RunController(QObject):
    progressed = Signal(object)  # PassEvent, delivered on the GUI thread (not ``event``: that is QObject.event)
    finished = Signal(str)  # a one-line outcome
    started = Signal(str)  # the pass's name, once it is handed to a worker

    def __init__(self, project: Project, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.project = project
        self.open_backend: OpenBackend = open_model
        self._cancel: threading.Event | None = None

    @property
    def running(self) -> bool:
        return self._cancel is not None

    def start(self, config: PassConfig, set_id: int, runtime: dict[str, int] | None = None) -> bool:
        """Start a pass; ``runtime`` (GPU layers, threads) fills what local model specs leave out."""
        if self.running:
            return False
        engine, opener, cancel = self.project.engine, self.open_backend, threading.Event()
        ticket = ActivityBoard.of(self).begin(JobKind.PASS, f'Pass "{config.name}"', cancel)

        def progress(event: JobProgress) -> None:
            self.progressed.emit(event)
            ticket.report(event)

        def waiting(reason: str) -> None:  # the same pass runs elsewhere: say what this one waits for
            progress(JobProgress(phase="waiting", waiting_for=reason))

        def work() -> PassResult:
            return run_benchmark_pass(
                engine,
                config,
                set_id=set_id,
                runtime=runtime,
                open_backend=opener,
                progress=progress,
                cancel=cancel,
                on_busy=waiting,
            )

        def done(result: PassResult) -> None:
            self._cancel = None
            said = (
                f"Run {result.run_id} finished: {result.generated} answers, {result.generation_errors} errors, "
                f"{result.judged} judged, {result.unscored} unscored, {result.pairs} pairs."
            )
            notify(self, said, "success")
            self.finished.emit(said)

        def failed(error: BaseException) -> None:
            self._cancel = None
            if isinstance(error, PassCancelled):
                said = "Pass cancelled; everything finished so far is stored. Resume it from Runs."
            elif isinstance(error, PassSetupError | SameModelError):  # refused before its run existed
                said = f"Pass not started: {failure_message(error)}"
            else:
                said = f"Pass stopped: {failure_message(error)}"  # a failed drift check too
            notify(self, said, failure_kind(error))
            self.finished.emit(said)

        self._cancel = cancel
        BackgroundJob(self, op=work, success=done, ticket=ticket).failure(failed).run_in_background()
        self.started.emit(config.name)
        return True

    def resume(self, run_id: int) -> None:
        """Run a stopped (or interrupted) pass again as it was stored: it carries on where it stopped."""
        if self.running:
            notify(self, "One pass runs at a time: cancel the running one first.", "warning")
            return
        engine = self.project.engine

        def go(found: ResumablePass) -> None:
            if not self.start(found.config, found.set_id):  # as stored: no runtime defaults added again
                notify(self, "One pass runs at a time: cancel the running one first.", "warning")

        QueryOp(self, op=lambda: resumable_pass(engine, run_id), success=go).failure(
            lambda error: notify(self, f"Cannot resume run {run_id}: {failure_message(error)}", "warning")
        ).run_in_background()

    def cancel(self) -> None:
        if self._cancel is not None:
            self._cancel.set()


__all__ = ["PassEvent", "RunController"]
