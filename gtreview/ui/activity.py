"""The window's long jobs: what runs, n of N, ETA, Cancel, and asking before quitting.

Every long job of the window (a pass, a calibration, drafting, a report or a release
written) is begun on the window's ``ActivityBoard`` (``ActivityBoard.of(part)``), which
hands back a ``JobTicket``: the job reports ``JobProgress`` values through it from its
worker thread, and sees a cancel on its event. The board keeps one ``core.activity``
``Activity`` per running job and says when they change; the status bar's activity panel
shows them with a Cancel button each, and quitting asks about every one of them, cancels
them and waits for them to stop (their model workers with them) before the window goes.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable
from dataclasses import replace

import shiboken6
from PySide6.QtCore import QCoreApplication, QEventLoop, QObject, Qt, Signal, Slot
from PySide6.QtWidgets import QMessageBox, QWidget

from gtreview.core.activity import Activity, JobKind, JobProgress

STOP_WAIT_S = 60.0  # how long quitting waits for cancelled jobs to stop (a model still loading)


class JobTicket:
    """A running job's handle, safe to use from its worker thread."""

    def __init__(self, board: ActivityBoard, job_id: int, cancel: threading.Event | None) -> None:
        self.board, self.job_id = board, job_id
        self.cancel_event = cancel

    def report(self, progress: JobProgress) -> None:
        """Tell the window what the job is doing (any thread; shown on the GUI thread)."""
        _relay().reported.emit(self.board, self.job_id, progress)

    def end(self) -> None:
        """The job is over (on the GUI thread: a BackgroundJob ends its ticket before its handlers run)."""
        if shiboken6.isValid(self.board):
            self.board.end(self.job_id)


class _Relay(QObject):
    """Brings reports to the GUI thread; one for the application, so that no sender is
    deleted while a worker still reports through it (a window closed meanwhile hears nothing)."""

    reported = Signal(object, int, object)  # board, job id, JobProgress

    @Slot(object, int, object)
    def deliver(self, board: ActivityBoard, job_id: int, progress: JobProgress) -> None:
        if shiboken6.isValid(board):
            board._report(job_id, progress)


_the_relay: _Relay | None = None


def _relay() -> _Relay:
    global _the_relay
    if _the_relay is None or not shiboken6.isValid(_the_relay):
        _the_relay = _Relay(QCoreApplication.instance())  # made on the GUI thread by the first begin()
        _the_relay.reported.connect(_the_relay.deliver, Qt.ConnectionType.QueuedConnection)
    return _the_relay


class ActivityBoard(QObject):
    """The running jobs of one window."""

    changed = Signal()  # a job began, reported, is being cancelled or ended

    def __init__(self, parent: QObject | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(parent)
        self.clock = clock
        self._jobs: dict[int, Activity] = {}
        self._cancels: dict[int, threading.Event | None] = {}
        self._ids = itertools.count(1)

    @staticmethod
    def of(obj: QObject | None) -> ActivityBoard:
        from gtreview.ui.ops import OpHub  # the hub carries the window's board

        return OpHub.of(obj).activities

    def begin(self, kind: JobKind, title: str, cancel: threading.Event | None = None) -> JobTicket:
        """A job starts; ``cancel`` (None: it cannot be cancelled) is set by its Cancel button."""
        _relay()
        job_id = next(self._ids)
        self._jobs[job_id] = Activity(job_id, kind, title, self.clock(), cancellable=cancel is not None)
        self._cancels[job_id] = cancel
        self.changed.emit()
        return JobTicket(self, job_id, cancel)

    def _report(self, job_id: int, progress: JobProgress) -> None:
        job = self._jobs.get(job_id)
        if job is not None:
            self._jobs[job_id] = job.reporting(progress, self.clock())
            self.changed.emit()

    def end(self, job_id: int) -> None:
        if self._jobs.pop(job_id, None) is not None:
            self._cancels.pop(job_id, None)
            self.changed.emit()

    def jobs(self) -> list[Activity]:
        return list(self._jobs.values())

    def running(self, kind: JobKind | None = None) -> list[Activity]:
        return [job for job in self._jobs.values() if kind is None or job.kind is kind]

    def cancel(self, job_id: int) -> None:
        event = self._cancels.get(job_id)
        job = self._jobs.get(job_id)
        if event is None or job is None:
            return
        event.set()
        self._jobs[job_id] = replace(job, cancelling=True)
        self.changed.emit()

    def cancel_all(self) -> None:
        for job_id in list(self._jobs):
            self.cancel(job_id)

    def wait_until_stopped(self, timeout_s: float = STOP_WAIT_S) -> bool:
        """Let the jobs end (their handlers run, their workers are closed); False when some
        still run after ``timeout_s`` (their threads end with the process)."""
        deadline = time.monotonic() + timeout_s
        while self._jobs and time.monotonic() < deadline:
            QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.ExcludeUserInputEvents, 50)
            time.sleep(0.01)
        return not self._jobs


def ask_to_stop_jobs(parent: QWidget | None, jobs: list[Activity]) -> bool:
    """Quitting while jobs run: name every one of them; cancel them all (what finished is
    kept) or stay."""
    now = time.monotonic()
    listed = "\n".join(f"• {job.line(now)}" for job in jobs)
    answer = QMessageBox.question(
        parent,
        "Jobs are running",
        f"{len(jobs)} job(s) running:\n{listed}\n\nCancel them and quit?\n\n"
        "Every answer, verdict and calibration finished so far is stored; Resume in the Runs view carries a pass on.",
        QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
        QMessageBox.StandardButton.No,
    )
    return answer == QMessageBox.StandardButton.Yes


# Asks the user whether to stop the running jobs it names (True: stop them).
AskToStop = Callable[[QWidget, list[Activity]], bool]


def stop_every_job(parent: QWidget, board: ActivityBoard, ask: AskToStop) -> bool:
    """Before the window closes: ask to stop the running jobs (each named); on yes cancel
    them all and wait until they and their model workers have stopped (what a pass, a
    calibration or a draft finished is stored). False: the user keeps them running."""
    if board.jobs() and not ask(parent, board.jobs()):
        return False
    board.cancel_all()
    board.wait_until_stopped()
    return True


__all__ = ["ActivityBoard", "AskToStop", "JobTicket", "ask_to_stop_jobs", "stop_every_job"]
