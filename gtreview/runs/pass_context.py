"""What the phases of a pass share: its context, its events and its result."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from pydantic import BaseModel
from sqlalchemy import Engine

from gtreview.core.activity import JobProgress
from gtreview.core.changes import OpChanges
from gtreview.core.errors import Cancelled
from gtreview.inference.backend import (
    CompletionBackend,
    CompletionRequest,
    CompletionResult,
    ModelUnreachable,
    ResultCallback,
    complete,
)
from gtreview.inference.cancel_scope import cancelling
from gtreview.runs.plan import PassConfig

BackendFactory = Callable[[str], CompletionBackend]

__all__ = [
    "CANCELLED",
    "BackendFactory",
    "ModelUnreachable",
    "PassCancelled",
    "PassContext",
    "PassEvent",
    "PassResult",
    "Progress",
    "Tally",
]


class PassCancelled(Cancelled, RuntimeError):
    """The pass was cancelled; everything finished so far is stored."""


CANCELLED = "the pass was cancelled; run it again to resume"


# What a pass reports as it goes: the one progress value of every long job (core.activity).
PassEvent = JobProgress


class PassResult(BaseModel):
    run_id: int
    generated: int = 0
    reused: int = 0
    generation_errors: int = 0
    retries: int = 0
    judged: int = 0
    unscored: int = 0
    pairs: int = 0
    model_calls: int = 0

    @property
    def changes(self) -> OpChanges:
        return OpChanges(runs=frozenset({self.run_id}))


Progress = Callable[[PassEvent], None]


class PassContext:
    """What every phase of one pass shares: the project, the config, the run, the
    backend factory, progress, cancel and the running counts."""

    def __init__(
        self,
        engine: Engine,
        config: PassConfig,
        run_id: int,
        open_backend: BackendFactory,
        progress: Progress | None,
        cancel: threading.Event | None,
    ) -> None:
        self.engine, self.config, self.run_id = engine, config, run_id
        self.open_backend, self.progress, self.cancel = open_backend, progress, cancel
        self.result = PassResult(run_id=run_id)
        self.steps: list[str] = []  # the pass's phases in order, each event says where it is
        self.step = 0

    def enter(self, step: str) -> None:
        """The pass is now at ``step`` (one of ``steps``)."""
        self.step = self.steps.index(step) + 1

    def check_cancel(self) -> None:
        if self.cancel is not None and self.cancel.is_set():
            raise PassCancelled(CANCELLED)

    def open(self, spec: str) -> CompletionBackend:
        """The backend ``spec`` names; a cancel during its load stops the load."""
        self.check_cancel()
        try:
            with cancelling(self.cancel):
                return self.open_backend(spec)
        except Exception as exc:  # the worker's GenerationCancelled, or a load cut short by it
            if self.cancel is not None and self.cancel.is_set():
                raise PassCancelled(CANCELLED) from exc
            raise

    def emit(
        self,
        phase: str,
        done: int,
        total: int,
        started: float,
        tokens: int = 0,
        message: str = "",
        unit: str = "",
    ) -> None:
        if self.progress is not None:
            self.progress(
                PassEvent(
                    phase=phase,
                    done=done,
                    total=total,
                    unit=unit,
                    tokens=tokens,
                    elapsed=time.monotonic() - started,
                    message=message,
                    step=self.step,
                    steps=len(self.steps),
                    later=self.steps[self.step :],
                )
            )

    def complete(
        self,
        backend: CompletionBackend,
        requests: list[CompletionRequest],
        on_result: ResultCallback | None = None,
    ) -> list[CompletionResult]:
        self.check_cancel()
        self.result.model_calls += len(requests)
        try:  # the worker-process backend takes the cancel event and can abandon a batch mid-way
            return complete(backend, requests, cancel=self.cancel, on_result=on_result)
        except Exception as exc:  # a worker's GenerationCancelled, or anything the backend raises
            if self.cancel is not None and self.cancel.is_set():
                raise PassCancelled(CANCELLED) from exc
            raise


class Tally:
    """A phase's progress over one or more calls, emitted as PassEvents counting ``unit``:
    each call reports (done, total, tokens) of its own, and earlier calls' counts are
    added. ``start()`` says the phase has begun (0 of N) before its first model call, so a
    phase whose first result takes minutes (a judge reading every answer at once) shows
    its own counter meanwhile, never the last phase's 100%."""

    def __init__(self, ctx: PassContext, phase: str, total: int, message: str, unit: str = "") -> None:
        self.ctx, self.phase, self.total, self.message, self.unit = ctx, phase, total, message, unit
        self.started = time.monotonic()
        self.done = self.tokens = 0  # what earlier calls finished and generated
        self._call_done = self._call_tokens = 0

    def start(self) -> Tally:
        self.started = time.monotonic()
        self._emit(0, 0)
        return self

    def __call__(self, done: int, total: int, tokens: int) -> None:
        self._call_done, self._call_tokens = done, tokens
        self._emit(self.done + done, self.tokens + tokens)

    def _emit(self, done: int, tokens: int) -> None:
        message = self.message.format(done=done, total=self.total)
        self.ctx.emit(self.phase, done, self.total, self.started, tokens, message, self.unit)

    def next_call(self) -> None:
        self.done += self._call_done
        self.tokens += self._call_tokens
        self._call_done = self._call_tokens = 0

    def restart(self) -> None:
        """Count afresh (a drift check: each one is its own short phase)."""
        self.started = time.monotonic()
        self.done = self.tokens = self._call_done = self._call_tokens = 0
