"""Running long work off the GUI thread: a QRunnable whose outcome arrives as signals."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal


class WorkerSignals(QObject):
    finished = Signal(object)
    failed = Signal(str)


class Worker(QRunnable):
    """Runs ``work()`` in the global thread pool; ``failed`` carries a one-line reason."""

    def __init__(self, work: Callable[[], Any]) -> None:
        super().__init__()
        self.work = work
        self.signals = WorkerSignals()

    def run(self) -> None:
        try:
            result = self.work()
        except Exception as exc:  # noqa: BLE001 - reported to the user, never lost
            self.signals.failed.emit(f"{type(exc).__name__}: {exc}".splitlines()[0])
            return
        self.signals.finished.emit(result)


def start(work: Callable[[], Any], on_done: Callable[[Any], None], on_error: Callable[[str], None]) -> Worker:
    worker = Worker(work)
    worker.signals.finished.connect(on_done)
    worker.signals.failed.connect(on_error)
    QThreadPool.globalInstance().start(worker)
    return worker
