"""Running a benchmark pass from the app: in a worker thread, with progress and cancel."""

from __future__ import annotations

import threading
from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

from gtreview.app.passes import PassCancelled, run_benchmark_pass
from gtreview.inference.backend import CompletionBackend
from gtreview.inference.factory import open_backend
from gtreview.runs.execute import PassEvent, PassResult
from gtreview.runs.plan import PassConfig
from gtreview.store.project import Project
from gtreview.ui.ops import BackgroundJob, OpChanges, OpResult, failure_message


class RunController(QObject):
    progressed = Signal(object)  # PassEvent, delivered on the GUI thread (not ``event``: that is QObject.event)
    finished = Signal(str)  # a one-line outcome

    def __init__(self, project: Project, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.project = project
        self.open_backend: Callable[[str], CompletionBackend] = open_backend
        self._cancel: threading.Event | None = None

    @property
    def running(self) -> bool:
        return self._cancel is not None

    def start(self, config: PassConfig, set_id: int, runtime: dict[str, int] | None = None) -> bool:
        """Start a pass; ``runtime`` (GPU layers, threads) fills what local model specs leave out."""
        if self.running:
            return False
        engine, opener, cancel = self.project.engine, self.open_backend, threading.Event()

        def work() -> OpResult[PassResult]:
            result = run_benchmark_pass(
                engine,
                config,
                set_id=set_id,
                runtime=runtime,
                open_backend=opener,
                progress=self.progressed.emit,
                cancel=cancel,
            )
            return OpResult(result, OpChanges(runs=frozenset({result.run_id})))

        def done(outcome: OpResult[PassResult]) -> None:
            self._cancel = None
            result = outcome.value
            self.finished.emit(
                f"Run {result.run_id} finished: {result.generated} answers, {result.generation_errors} errors, "
                f"{result.judged} judged, {result.unscored} unscored, {result.pairs} pairs."
            )

        def failed(error: BaseException) -> None:
            self._cancel = None
            if isinstance(error, PassCancelled):
                self.finished.emit("Pass cancelled; everything finished so far is stored. Run it again to resume.")
            else:
                self.finished.emit(f"Pass stopped: {failure_message(error)}")

        self._cancel = cancel
        BackgroundJob(self, op=work, success=done).failure(failed).run_in_background()
        return True

    def cancel(self) -> None:
        if self._cancel is not None:
            self._cancel.set()


__all__ = ["PassEvent", "RunController"]
