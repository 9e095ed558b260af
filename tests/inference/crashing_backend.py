"""A backend that crashes its process the way native code does, for the worker's tests.

It wraps the real in-process backend of a spec and, before each call, looks for a
marker in what the call carries (message texts, texts to score, prompts to continue):

    WorkerBackend(spec, opener=crashing_backend.open_crashing)

runs it in the worker child, where a marker kills the child as llama.cpp would.
``crash_always=MARKER`` (an override the opener takes for itself) behaves as if every
call carried that marker, for pipelines whose prompts a test cannot reach into.
Outside such a child the markers are never looked at: production opens
``gtreview.inference.specs.open_in_process``, where a marker is plain text.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Sequence
from typing import Any

from gtreview.inference.backend import CompletionBackend, CompletionRequest, CompletionResult, TokenScores
from gtreview.inference.specs import ModelSpec

ABORT_MARKER = "<<gtreview-test:abort>>"  # os.abort(): SIGABRT, as a failed GGML_ASSERT
SEGV_MARKER = "<<gtreview-test:segv>>"  # read address 0: SIGSEGV, as a bad kernel
EXIT_MARKER = "<<gtreview-test:exit="  # <<gtreview-test:exit=N>> : os._exit(N), as an OOM-killer-free death
ASSERT_MARKER = "<<gtreview-test:assert>>"  # print a GGML_ASSERT line, then abort
SLEEP_MARKER = "<<gtreview-test:sleep>>"  # hang in the child, as a generation that never ends
_EXIT_RE = re.compile(re.escape(EXIT_MARKER) + r"(\d+)>>")


def crash_if_asked(text: str) -> None:
    """Crash like native code would when ``text`` carries a marker."""
    if ASSERT_MARKER in text:
        os.write(2, b"ggml/src/ggml.c:1234: GGML_ASSERT(test hook) failed\n")
    if ABORT_MARKER in text or ASSERT_MARKER in text:
        os.abort()
    if SEGV_MARKER in text:
        import ctypes

        ctypes.string_at(0)
    found = _EXIT_RE.search(text)
    if found:
        os._exit(int(found.group(1)))
    if SLEEP_MARKER in text:
        time.sleep(3600)


class CrashingBackend:
    """The real backend of a spec, with :func:`crash_if_asked` before every call."""

    def __init__(self, inner: Any, always: str = "") -> None:
        self.inner = inner
        self.spec: str = inner.spec
        self.always = always

    def describe(self) -> dict[str, Any]:
        return dict(self.inner.describe())

    def complete_batch(self, requests: Sequence[CompletionRequest]) -> list[CompletionResult]:
        crash_if_asked(self.always + "".join(m.content for r in requests for m in r.messages))
        return list(self.inner.complete_batch(requests))

    def score_texts(self, texts: Sequence[str], *, prefix_tokens: int = 0) -> list[TokenScores]:
        crash_if_asked(self.always + "".join(texts))
        return list(self.inner.score_texts(texts, prefix_tokens=prefix_tokens))

    def greedy_continuations(self, prompts: Sequence[str | Sequence[int]], max_tokens: int) -> list[list[int]]:
        crash_if_asked(self.always + "".join(p for p in prompts if isinstance(p, str)))
        return list(self.inner.greedy_continuations(prompts, max_tokens))

    def close(self) -> None:
        self.inner.close()


def open_crashing(spec: str | ModelSpec, *, crash_always: str = "", **overrides: Any) -> CompletionBackend:
    """The WorkerBackend opener: the spec's in-process backend, wrapped."""
    from gtreview.inference.specs import open_in_process

    return CrashingBackend(open_in_process(spec, **overrides), crash_always)


RUNAWAY_MARKER = "<<gtreview-test:runaway>>"  # a generation that never ends (a looping chat template)


class RunawayBackend:
    """Streams an answer to every request, then never ends the ones carrying
    RUNAWAY_MARKER: what a model whose chat template loops does to a batch."""

    def __init__(self, spec: ModelSpec) -> None:
        self.spec = spec.raw

    def describe(self) -> dict[str, Any]:
        return {"spec": self.spec, "kind": "runaway"}

    def complete_batch(self, requests: Sequence[CompletionRequest], on_result: Any = None) -> list[CompletionResult]:
        results = []
        for index, request in enumerate(requests):
            if all(RUNAWAY_MARKER not in m.content for m in request.messages):
                results.append(CompletionResult(text=f"An answer (seed {request.sampling.seed}).", completion_tokens=4))
                if on_result is not None:
                    on_result(index, results[-1])
        if len(results) < len(requests):
            time.sleep(3600)
        return results

    def close(self) -> None:
        pass


def open_runaway(spec: ModelSpec, **overrides: Any) -> CompletionBackend:
    """The WorkerBackend opener of :class:`RunawayBackend`."""
    return RunawayBackend(spec)


class StuckBackend(RunawayBackend):
    """Scores and continues forever: a probe call that never ends."""

    def score_texts(self, texts: Sequence[str], *, prefix_tokens: int = 0) -> list[Any]:
        time.sleep(3600)
        return []

    def greedy_continuations(self, prompts: Sequence[Any], max_tokens: int) -> list[list[int]]:
        time.sleep(3600)
        return []


def open_stuck(spec: ModelSpec, **overrides: Any) -> CompletionBackend:
    """The WorkerBackend opener of :class:`StuckBackend`."""
    return StuckBackend(spec)


def open_never_loading(spec: ModelSpec, **overrides: Any) -> CompletionBackend:
    """A model whose load never ends (a stalled network disk)."""
    time.sleep(3600)
    raise AssertionError("unreachable")
