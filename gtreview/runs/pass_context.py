"""What the phases of a pass share: its context, its events and its result."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from pydantic import BaseModel
from sqlalchemy import Engine

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


class PassEvent(BaseModel):
    phase: str
    done: int
    total: int
    tokens: int = 0
    elapsed: float = 0.0
    message: str = ""

    @property
    def tokens_per_second(self) -> float:
        return self.tokens / self.elapsed if self.elapsed > 0 else 0.0

    @property
    def eta_seconds(self) -> float | None:
        if self.done <= 0 or self.done >= self.total:
            return None
        return self.elapsed / self.done * (self.total - self.done)

    def describe(self) -> str:
        """What the phase is doing (its message names the unit: fixtures, answers,
        pairs), its tokens/s and ETA: the one wording the CLI and the Runs view show."""
        parts = [self.message or f"{self.done}/{self.total}"]
        if self.tokens:
            parts.append(f"{self.tokens_per_second:.1f} tok/s")
        eta = self.eta_seconds
        if eta is not None:
            parts.append(f"ETA {int(eta // 60)}m{int(eta % 60):02d}s")
        return " · ".join(parts)


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

    def check_cancel(self) -> None:
        if self.cancel is not None and self.cancel.is_set():
            raise PassCancelled(CANCELLED)

    def emit(self, phase: str, done: int, total: int, started: float, tokens: int = 0, message: str = "") -> None:
        if self.progress is not None:
            self.progress(
                PassEvent(
                    phase=phase,
                    done=done,
                    total=total,
                    tokens=tokens,
                    elapsed=time.monotonic() - started,
                    message=message,
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
    """A phase's progress over one or more calls, emitted as PassEvents: each call
    reports (done, total, tokens) of its own, and earlier calls' counts are added."""

    def __init__(self, ctx: PassContext, phase: str, total: int, message: str) -> None:
        self.ctx, self.phase, self.total, self.message = ctx, phase, total, message
        self.started = time.monotonic()
        self.done = self.tokens = 0  # what earlier calls finished and generated
        self._call_done = self._call_tokens = 0

    def __call__(self, done: int, total: int, tokens: int) -> None:
        self._call_done, self._call_tokens = done, tokens
        done_all = self.done + done
        self.ctx.emit(
            self.phase,
            done_all,
            self.total,
            self.started,
            self.tokens + tokens,
            self.message.format(done=done_all, total=self.total),
        )

    def next_call(self) -> None:
        self.done += self._call_done
        self.tokens += self._call_tokens
        self._call_done = self._call_tokens = 0

    def restart(self) -> None:
        """Count afresh (a drift check: each one is its own short phase)."""
        self.started = time.monotonic()
        self.done = self.tokens = self._call_done = self._call_tokens = 0
