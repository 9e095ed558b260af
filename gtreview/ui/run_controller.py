"""Running a benchmark pass from the app: in a worker thread, with progress and cancel."""

from __future__ import annotations

import threading
from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

from gtreview.core.jsonmodel import canonical_hash
from gtreview.inference.backend import CompletionBackend
from gtreview.inference.factory import open_backend
from gtreview.inference.specs import with_runtime_defaults
from gtreview.runs.execute import PassCancelled, PassEvent, PassResult, run_pass
from gtreview.runs.plan import PassConfig
from gtreview.store import sets_repo
from gtreview.store.project import Project
from gtreview.ui.workers import Worker
from gtreview.ui.workers import start as start_worker


class RunController(QObject):
    event = Signal(object)  # PassEvent, delivered on the GUI thread
    finished = Signal(str)  # a one-line outcome

    def __init__(self, project: Project, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.project = project
        self.open_backend: Callable[[str], CompletionBackend] = open_backend
        self._cancel: threading.Event | None = None
        self._worker: Worker | None = None

    @property
    def running(self) -> bool:
        return self._cancel is not None

    def start(self, config: PassConfig, set_id: int, runtime: dict[str, int] | None = None) -> bool:
        """Start a pass; ``runtime`` (GPU layers, threads) fills what local model specs leave out."""
        if self.running:
            return False
        if runtime:
            config = config.model_copy(
                update={
                    "models": [
                        m.model_copy(update={"spec": with_runtime_defaults(m.spec, **runtime)}) for m in config.models
                    ],
                    "judge": with_runtime_defaults(config.judge, **runtime),
                }
            )
        engine, opener, cancel = self.project.engine, self.open_backend, threading.Event()
        rubric = sets_repo.export_rubric(engine, set_id)
        retired = {
            s.qid for s in sets_repo.list_questions(engine, set_id) if s.review_status == sets_repo.ReviewStatus.RETIRED
        }
        questions = [q for q in rubric.questions if q.id not in retired]

        def work() -> PassResult:
            return run_pass(
                engine,
                config,
                questions,
                rubric_hash=canonical_hash(rubric.to_json_dict()),
                open_backend=opener,
                set_id=set_id,
                global_variants=rubric.global_variants,
                progress=self.event.emit,
                cancel=cancel,
            )

        def done(result: PassResult) -> None:
            self._cancel = None
            self.finished.emit(
                f"Run {result.run_id} finished: {result.generated} answers, {result.generation_errors} errors, "
                f"{result.judged} judged, {result.unscored} unscored, {result.pairs} pairs."
            )

        def failed(reason: str) -> None:
            self._cancel = None
            if PassCancelled.__name__ in reason:
                self.finished.emit("Pass cancelled; everything finished so far is stored. Run it again to resume.")
            else:
                self.finished.emit(f"Pass stopped: {reason}")

        self._cancel = cancel
        self._worker = start_worker(work, done, failed)
        return True

    def cancel(self) -> None:
        if self._cancel is not None:
            self._cancel.set()


__all__ = ["PassEvent", "RunController"]
