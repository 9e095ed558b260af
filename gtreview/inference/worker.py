"""Any backend in a child process, so a crash in native code never takes the caller down.

llama.cpp is C++: a failed assertion, a segfault in a kernel or the OOM killer ends the
whole process. In the GUI that would lose the window and every unsaved edit; in a
benchmark pass it would stop the run. :class:`WorkerBackend` opens the backend that
``open_in_process(spec)`` names inside a child started with the ``spawn`` method (never
``fork``: a forked Qt or CUDA process is unsafe) and talks to it over a
``multiprocessing`` pipe with small dict messages of plain data:

    parent -> child   {"op": "complete", "requests": [...], "stream": bool}  {"op": "describe"}  {"op": "close"}
                      {"op": "score", "texts": [...], "prefix_tokens": N}
                      {"op": "continue", "prompts": [text or [token ids]], "max_tokens": N}
                      {"op": "count", "requests": [...]}
    child -> parent   {"op": "ready", "pid": N}  {"op": "open_failed", "type": ..., "message": ...}
                      {"op": "result", "index": N, "result": {...}}  (streamed: one per request, as it ends)
                      {"op": "results", "results": [...]}  {"op": "describe", "describe": {...}}
                      {"op": "scores", "scores": [{"text_tokens": [...], "start": N, "logprobs": [...],
                                                   "expected_logprobs": [...] or None, "logprob_variances": [...] or None}]}
                      {"op": "continuations", "continuations": [[token ids], ...]}
                      {"op": "counts", "tokens": [N, ...] or None, "context": N}
                      {"op": "failed", "type": ..., "message": ...}

``gtreview.inference.factory.open_backend`` opens every local model this way. The
scoring messages serve the memorisation probes (:class:`ScoringBackend`): floats go
through the pipe as pickled doubles, so the numbers are exactly the child's. The
``count`` message tokenizes chat prompts with the model's own template, so a use case can
check that every prompt fits the context before the first call
(:mod:`gtreview.inference.context_fit`); a backend that cannot count answers ``None``.

While it waits for a reply the parent watches the child's process sentinel and the
caller's cancel event, so it never hangs on a dead child:

* the child dies (signal, ``os._exit``, OOM kill): every request of the batch comes back
  as an error result, ``"model worker died (signal SIGSEGV)"`` or ``"... (exit code N)"``,
  plus llama.cpp's last error line when it printed one, and the next call starts a fresh
  child. Generation failures are results (ARCHITECTURE.md), so this is not an exception;
  a scoring call has no results to carry it and raises :class:`WorkerDied` with that line;
* the cancel event is set: the child is terminated (killed after a short grace) and
  :class:`GenerationCancelled` is raised; nothing of the batch is returned;
* no answer comes back within ``answer_timeout_s`` (a generation that never ends, a chat
  template that loops): the child is killed and the requests still unanswered come back
  as error results, ``"no answer within N s ..."`` (those that did answer are kept); the
  next call starts a fresh child. The clock restarts with every streamed answer, and a
  batch that does not stream has that long per request;
* the child grows its memory more than its headroom above what it held once the model
  was loaded (a chat template that loops while it writes): the child is killed and the
  requests still unanswered come back as error results saying so (``worker_memory``);
* ``restart()`` drops the child so the next call starts a fresh one: runs retry a failed
  generation "in a fresh worker".

Opening errors: the constructor starts the child and waits until the backend is open,
so a bad spec (:class:`~gtreview.inference.specs.ModelSpecError`, raised before any
process starts), a missing file (:class:`~gtreview.inference.specs.BackendOpenError`) or
a corrupt GGUF (:class:`~gtreview.inference.gguf_check.ModelFileError`) raise there, as
one line and of the same class the in-process backend raises. When a later restart
cannot open the backend (the file was deleted meanwhile), that batch's requests come
back as error results carrying the same line.

A load stops at the opener's cancel (:mod:`.cancel_scope`); native output goes to a log (unless verbose).

``opener`` replaces ``open_in_process`` in the child: any importable callable taking
``(spec, **overrides)`` and returning a backend. The tests put a backend there that
crashes its process on purpose; production code always uses the default.

``spawn`` starts a fresh interpreter that re-imports the caller's main module, as all
spawn-based multiprocessing does: a script that creates a WorkerBackend needs the
``if __name__ == "__main__":`` guard (``python -m gtreview``, the ``gtreview`` entry point
and pytest are fine), and a frozen (PyInstaller) GUI must call
``multiprocessing.freeze_support()`` first thing in main.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import signal
import sys
import tempfile
import threading
import time
import weakref
from collections.abc import Callable, Mapping, Sequence
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any, BinaryIO

from gtreview.core.errors import Cancelled
from gtreview.core.redaction import redact
from gtreview.inference.amx_guard import AmxVerdict, amx_verdict, deny_tile_permission, likely_cause
from gtreview.inference.backend import CompletionRequest, CompletionResult, ResultCallback, TokenScores, complete
from gtreview.inference.cancel_scope import current_cancel
from gtreview.inference.context_fit import PromptCounts
from gtreview.inference.gguf_check import ModelFileError
from gtreview.inference.parent_watch import end_with_parent
from gtreview.inference.pooled import one_line
from gtreview.inference.specs import BackendOpenError, ModelSpec, ModelSpecError, parse_model_spec
from gtreview.inference.worker_memory import MemoryBound, anon_rss_bytes
from gtreview.inference.worker_scores import scores_from_plain, scores_to_plain

_POLL_S = 0.05  # how often a waiting parent looks at the cancel event
_TERMINATE_GRACE_S = 2.0
_CLOSE_TIMEOUT_S = 10.0
# "terminate called": a C++ exception that escaped llama.cpp (std::out_of_range ...).
_ERROR_WORDS = ("ggml_assert", "error", "failed", "abort", "out of memory", "terminate called")

# Exceptions the child may report that the parent re-raises as the same class.
_OPEN_ERRORS: dict[str, type[Exception]] = {
    "ModelSpecError": ModelSpecError,
    "BackendOpenError": BackendOpenError,
    "ModelFileError": ModelFileError,
}


class GenerationCancelled(Cancelled):
    """The caller's cancel event stopped a batch mid-way; nothing of it was kept."""


class WorkerDied(RuntimeError):
    """The child ended while the parent waited for it (a native crash, a kill); the
    message is one line. Completion batches turn it into error results; scoring calls
    raise it, and the next call starts a fresh child."""


class WorkerTimedOut(WorkerDied):
    """The child gave no answer in time (a runaway generation) and was killed."""


class WorkerOutgrewMemory(WorkerDied):
    """The child grew past its memory bound (a runaway generation) and was killed."""


Opener = Callable[..., Any]  # (spec: ModelSpec, **overrides) -> backend, run in the child


class _Child:
    """One child process, its end of the pipe and its log file; reaped once.

    The log is held open for reading and its name is removed once the child has
    redirected into it, so not even a killed parent leaves a file behind.
    """

    def __init__(self, proc: BaseProcess, conn: Connection, log_path: Path | None, model: str, amx: AmxVerdict) -> None:
        self.proc = proc
        self.model = model
        self.amx = amx
        self.conn = conn
        self.log_path = log_path
        self.log = log_path.open("rb") if log_path is not None else None
        self.pid: int | None = proc.pid
        self.bound: MemoryBound | None = None  # set once the model is loaded (worker_memory)
        # Kills the child if its owner is garbage-collected or the interpreter exits unclosed.
        self._finalizer = weakref.finalize(self, _reap, proc, conn, self.log, log_path, 0.0)

    def unlink_log(self) -> None:
        """Remove the log's name (the child writes, and the parent reads, by open handles)."""
        if self.log_path is not None:
            with contextlib.suppress(OSError):
                self.log_path.unlink()

    def stop(self, grace_s: float) -> None:
        """Ask the child to exit (it is waiting for a message), then terminate and kill."""
        if self._finalizer.alive:
            with contextlib.suppress(OSError, ValueError):
                self.conn.send({"op": "close"})
            self._finalizer.detach()
            _reap(self.proc, self.conn, self.log, self.log_path, grace_s)

    def kill(self) -> None:
        """Terminate at once (the child may be busy in native code), kill after a grace."""
        if self._finalizer.alive:
            self._finalizer.detach()
            _reap(self.proc, self.conn, self.log, self.log_path, 0.0)

    def death_message(self) -> str:
        """Why the child ended, in one line, for the error results of the lost batch: the
        signal or exit code, llama.cpp's last error line, the model, and on a signal the
        likely cause and its fix when one is known."""
        self.proc.join(_TERMINATE_GRACE_S)
        code = self.proc.exitcode
        cause = likely_cause(-code, self.amx) if code is not None and code < 0 else None
        if code is None:
            reason = "model worker stopped answering"
        elif code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = str(-code)
            reason = f"model worker died (signal {name})"
        elif code > 0:
            reason = f"model worker died (exit code {code})"
        else:
            reason = "model worker exited unexpectedly"
        if code is not None and code != 0:
            reason += f" running {self.model}"
        native = _last_error_line(self.log)
        self.kill()
        message = f"{reason}: {native}" if native else reason
        return f"{message}; {cause}" if cause else message


def _reap(proc: BaseProcess, conn: Connection, log: BinaryIO | None, log_path: Path | None, grace_s: float) -> None:
    """Join, terminate, kill and clean up; safe to call on a process that already ended."""
    try:
        if proc.pid is not None:
            proc.join(grace_s)
            if proc.exitcode is None:
                proc.terminate()
                proc.join(_TERMINATE_GRACE_S)
            if proc.exitcode is None:
                proc.kill()
                proc.join(_TERMINATE_GRACE_S)
        with contextlib.suppress(ValueError):
            proc.close()
    finally:
        conn.close()
        if log is not None:
            log.close()
        if log_path is not None:
            with contextlib.suppress(OSError):
                log_path.unlink()


def _last_error_line(log: BinaryIO | None) -> str | None:
    """The last line of the child's log that looks like an error (GGML_ASSERT, OOM ...)."""
    if log is None:
        return None
    try:
        log.seek(max(0, log.seek(0, os.SEEK_END) - 16384))
        tail = log.read().decode("utf-8", errors="replace")
    except (OSError, ValueError):
        return None
    for line in reversed(tail.splitlines()):
        if any(word in line.lower() for word in _ERROR_WORDS):
            return one_line(line, 200)
    return None


class WorkerBackend:
    """A CompletionBackend whose model lives in a child process (see the module doc)."""

    def __init__(
        self,
        spec: str | ModelSpec,
        *,
        overrides: Mapping[str, Any] | None = None,
        env: Mapping[str, str] | None = None,
        verbose: bool = False,
        opener: Opener | None = None,
        answer_timeout_s: float | None = None,
        load_timeout_s: float | None = None,
        memory_headroom_bytes: int | None = None,
    ) -> None:
        """Start the child and open the backend in it; raise its one-line error if it cannot.

        ``answer_timeout_s`` (default: the spec's ``timeout`` option) bounds how long a
        completion batch may go without an answer before the child is killed, and each
        other call (scoring, continuations, counting) per item; ``load_timeout_s``
        (default: the same) bounds starting the child and loading the model;
        ``memory_headroom_bytes`` (default: ``worker_memory``'s) bounds how much more
        memory the child may hold once the model is loaded.

        ``overrides`` go to the opener in the child, so they must pickle (no HTTP
        clients). ``env`` is added to the child's environment before anything loads.
        ``opener`` (default ``open_in_process``) must be importable by name in a fresh
        interpreter (a module-level function or a ``functools.partial`` of one): it is
        pickled by reference into the child.
        """
        self._spec = spec if isinstance(spec, ModelSpec) else parse_model_spec(spec)
        self.spec = self._spec.raw
        self._overrides = dict(overrides or {})
        if verbose and self._spec.kind in ("llama", "hf"):
            self._overrides.setdefault("verbose", True)
        self._env = dict(env or {})
        self._verbose = verbose
        self._opener = opener
        self._answer_timeout_s = answer_timeout_s if answer_timeout_s is not None else self._spec.answer_timeout_s
        self._load_timeout_s = load_timeout_s if load_timeout_s is not None else self._answer_timeout_s
        self._memory_headroom = memory_headroom_bytes
        self._ctx = multiprocessing.get_context("spawn")
        self._lock = threading.Lock()  # one batch at a time
        self._closing = threading.Event()  # close() while a batch waits: stop waiting
        self._child: _Child | None = None
        self._describe: dict[str, Any] | None = None
        self._closed = False
        with self._lock:
            self._child = self._start(current_cancel())  # the opener's Cancel stops the load

    # -- the child's lifetime --------------------------------------------------------

    @property
    def pid(self) -> int | None:
        """The running child's process id; None before a restart has started one."""
        return self._child.pid if self._child is not None else None

    def _start(self, cancel: threading.Event | None) -> _Child:
        """A child with the backend open, or the child's own open error raised here."""
        log_path: Path | None = None
        if not self._verbose:
            fd, name = tempfile.mkstemp(prefix="gtreview-worker-", suffix=".log")
            os.close(fd)
            log_path = Path(name)
        parent_conn, child_conn = self._ctx.Pipe(duplex=True)
        amx = amx_verdict()  # probed once per process, only where the CPU advertises AMX
        proc = self._ctx.Process(
            target=_child_main,
            args=(child_conn, self._spec, self._overrides, self._env, log_path, self._opener, amx.deny, os.getpid()),
            name=f"gtreview-model-worker {self.spec}",
            daemon=True,
        )
        try:
            proc.start()
        except BaseException:
            child_conn.close()
            parent_conn.close()
            if log_path is not None:
                log_path.unlink(missing_ok=True)
            raise
        child_conn.close()  # the child holds its own copy; EOF then means "child gone"
        child = _Child(proc, parent_conn, log_path, model_label(self._spec), amx)
        try:  # a load that never ends (a stalled network disk) is bounded like any call
            reply = self._await(child, cancel, None, self._load_timeout_s, "the model did not finish loading")
        except WorkerDied as exc:
            raise BackendOpenError(f"cannot open {self.spec}: {exc}") from None
        except BaseException:
            child.kill()
            raise
        child.unlink_log()  # the child has redirected into it by now (or is gone)
        if reply.get("op") == "ready":
            loaded = anon_rss_bytes(child.pid)
            child.bound = MemoryBound.above(loaded, self._memory_headroom) if loaded is not None else None
            return child
        child.stop(_TERMINATE_GRACE_S)
        message = str(reply.get("message") or "the model worker could not open the backend")
        error = _OPEN_ERRORS.get(str(reply.get("type")))
        if error is None:
            raise BackendOpenError(f"cannot open {self.spec}: {message}")
        raise error(message)

    def _await(
        self,
        child: _Child,
        cancel: threading.Event | None,
        on_partial: Callable[[dict[str, Any]], None] | None = None,
        timeout_s: float | None = None,
        stuck: str = "a generation that never ends, or a chat template that loops",
    ) -> dict[str, Any]:
        """The child's next message; raise WorkerDied when it ends first and
        GenerationCancelled (after killing it) when ``cancel`` or close() comes first.
        ``{"op": "result"}`` messages (one request of a streamed batch) go to
        ``on_partial`` and the wait goes on. With ``timeout_s``, a wait that long for
        any message kills the child and raises WorkerTimedOut."""
        conn, sentinel = child.conn, child.proc.sentinel
        deadline = time.monotonic() + timeout_s if timeout_s is not None else None
        while True:
            if conn.poll(0):  # a finished reply wins over a late cancel: nothing is lost
                try:
                    reply = conn.recv()
                except (EOFError, OSError):
                    raise WorkerDied(child.death_message()) from None
                if reply.get("op") == "result":
                    if on_partial is not None:
                        on_partial(reply)
                    if deadline is not None and timeout_s is not None:
                        deadline = time.monotonic() + timeout_s  # an answer came: the model is not stuck
                    continue
                return dict(reply)
            if deadline is not None and time.monotonic() >= deadline:
                child.kill()
                raise WorkerTimedOut(f"no answer within {timeout_s:g} s ({stuck}); the model worker was stopped")
            outgrown = child.bound.exceeded(child.pid) if child.bound is not None else None
            if outgrown is not None:
                child.kill()
                raise WorkerOutgrewMemory(outgrown)
            if (cancel is not None and cancel.is_set()) or self._closing.is_set():
                child.kill()
                raise GenerationCancelled(
                    "the model worker was closed" if self._closing.is_set() else "generation cancelled"
                )
            ready = wait([conn, sentinel], timeout=_POLL_S)
            if sentinel in ready and not conn.poll(0):
                raise WorkerDied(child.death_message())

    def _call(
        self,
        message: dict[str, Any],
        cancel: threading.Event | None,
        on_partial: Callable[[dict[str, Any]], None] | None = None,
        timeout_s: float | None = None,
        stuck: str = "a generation that never ends, or a chat template that loops",
    ) -> dict[str, Any]:
        """Send one message to a live child (starting one if needed) and return its reply."""
        if self._closed:
            raise RuntimeError("the model worker is closed")
        if self._child is not None and not self._child.proc.is_alive():
            self._child.kill()  # died between calls (OOM-killed while idle): no request was lost
            self._child = None
        if self._child is None:
            self._child = self._start(cancel)
        child = self._child
        try:
            try:
                child.conn.send(message)
            except (BrokenPipeError, ConnectionResetError):
                raise WorkerDied(child.death_message()) from None
            return self._await(child, cancel, on_partial, timeout_s, stuck)
        except (WorkerDied, GenerationCancelled):
            self._child = None  # already reaped
            raise
        except BaseException:  # the caller's on_partial failed mid-batch: the child is still busy
            child.kill()
            self._child = None
            raise

    # -- CompletionBackend --------------------------------------------------------------

    def complete_batch(
        self,
        requests: Sequence[CompletionRequest],
        cancel: threading.Event | None = None,
        on_result: ResultCallback | None = None,
    ) -> list[CompletionResult]:
        """One result per request, in order. A dead child gives error results (and a fresh
        child next time); ``cancel`` raises GenerationCancelled, even while waiting.
        ``on_result(index, result)`` is called as each request finishes in the child (when
        its backend streams; otherwise not at all: see ``backend.complete``)."""
        if cancel is not None and cancel.is_set():
            raise GenerationCancelled("generation cancelled")
        if not requests:
            return []
        payload = {
            "op": "complete",
            "requests": [r.model_dump(mode="json") for r in requests],
            "stream": on_result is not None,
        }
        on_partial = None
        answered: dict[int, CompletionResult] = {}  # streamed answers, kept when the child dies later
        if on_result is not None:
            callback = on_result

            def on_partial(message: dict[str, Any]) -> None:
                index = int(message["index"])
                if 0 <= index < len(requests):
                    answered[index] = result = CompletionResult.model_validate(message["result"])
                    callback(index, result)

        # Streamed, the clock restarts with each answer; otherwise the batch has that long per request.
        timeout_s = self._answer_timeout_s * (1 if on_result is not None else len(requests))
        with self._lock:
            try:
                reply = self._call(payload, cancel, on_partial, timeout_s)
            except WorkerDied as exc:
                self._drop_child()
                lost = _errors(len(requests), str(exc))
                return [answered.get(index, error) for index, error in enumerate(lost)]
            except (BackendOpenError, ModelFileError, ModelSpecError) as exc:
                return _errors(len(requests), str(exc))
            except GenerationCancelled:
                self._drop_child()
                raise
        if reply.get("op") == "results":
            results = [CompletionResult.model_validate(r) for r in reply["results"]]
            if len(results) == len(requests):
                return results
            return _errors(len(requests), f"the model worker returned {len(results)} results for {len(requests)}")
        return _errors(len(requests), str(reply.get("message") or "the model worker failed"))

    # -- ScoringBackend (the memorisation probes) --------------------------------------

    def score_texts(
        self, texts: Sequence[str], *, prefix_tokens: int = 0, cancel: threading.Event | None = None
    ) -> list[TokenScores]:
        """Per-token log-likelihoods of each raw text, computed in the child (see
        ``BatchedLlamaEngine.score_texts``). A dead child raises :class:`WorkerDied`
        (the next call starts a fresh one); a ValueError there (a text too long for a
        sequence) is raised here as a ValueError with the same message."""
        if not texts:
            return []
        reply = self._request(
            {"op": "score", "texts": [str(t) for t in texts], "prefix_tokens": int(prefix_tokens)},
            "scores",
            cancel,
            items=len(texts),
        )
        scores = [scores_from_plain(s) for s in reply["scores"]]
        if len(scores) != len(texts):
            raise RuntimeError(f"the model worker returned {len(scores)} scores for {len(texts)} texts")
        return scores

    def greedy_continuations(
        self, prompts: Sequence[str | Sequence[int]], max_tokens: int, cancel: threading.Event | None = None
    ) -> list[list[int]]:
        """Greedy raw-text continuations computed in the child (see
        ``BatchedLlamaEngine.greedy_continuations``); errors as :meth:`score_texts`."""
        if not prompts:
            return []
        plain = [p if isinstance(p, str) else [int(t) for t in p] for p in prompts]
        reply = self._request(
            {"op": "continue", "prompts": plain, "max_tokens": int(max_tokens)},
            "continuations",
            cancel,
            items=len(plain),
        )
        continuations = [[int(t) for t in c] for c in reply["continuations"]]
        if len(continuations) != len(prompts):
            raise RuntimeError(
                f"the model worker returned {len(continuations)} continuations for {len(prompts)} prompts"
            )
        return continuations

    def count_prompt_tokens(self, requests: Sequence[CompletionRequest]) -> PromptCounts | None:
        """Each request's prompt tokens (chat template applied) and a sequence's context,
        counted in the child; None when its backend cannot count. Errors as
        :meth:`score_texts`: a dead child raises :class:`WorkerDied`."""
        if not requests:
            return None
        reply = self._request(
            {"op": "count", "requests": [r.model_dump(mode="json") for r in requests]}, "counts", None
        )
        if reply.get("tokens") is None:
            return None
        tokens = tuple(int(t) for t in reply["tokens"])
        if len(tokens) != len(requests):
            raise RuntimeError(f"the model worker counted {len(tokens)} prompts for {len(requests)}")
        return PromptCounts(tokens=tokens, context=int(reply["context"]))

    def _request(
        self, message: dict[str, Any], expected: str, cancel: threading.Event | None, *, items: int = 1
    ) -> dict[str, Any]:
        """One call whose failures are exceptions (there are no results to carry them),
        bounded like answers: the spec's time limit for each of its ``items``."""
        if cancel is not None and cancel.is_set():
            raise GenerationCancelled("generation cancelled")
        with self._lock:
            try:
                reply = self._call(
                    message, cancel, None, self._answer_timeout_s * max(1, items), f"a {message['op']} that never ends"
                )
            except (WorkerDied, GenerationCancelled):
                self._drop_child()
                raise
        if reply.get("op") == expected:
            return reply
        text = str(reply.get("message") or "the model worker failed")
        if reply.get("type") == "ValueError":
            raise ValueError(text)
        raise RuntimeError(f"model worker: {reply.get('type') or 'error'}: {text}")

    def describe(self) -> dict[str, Any]:
        """The child backend's provenance (fetched once: it hashes the model file) plus the
        worker's kind and current pid."""
        if self._describe is None:
            with self._lock:
                if self._describe is None:
                    try:
                        reply = self._call(
                            {"op": "describe"}, None, None, self._answer_timeout_s, "a describe that never ends"
                        )
                    except WorkerDied as exc:
                        self._drop_child()
                        raise BackendOpenError(f"cannot describe {self.spec}: {exc}") from None
                    if reply.get("op") != "describe":
                        raise BackendOpenError(f"cannot describe {self.spec}: {reply.get('message')}")
                    self._describe = dict(reply["describe"])
        return {**self._describe, "worker": "process", "pid": self.pid}

    def restart(self) -> None:
        """Drop the current child; the next call starts a fresh one (and opens the model
        again). Lazy, so a retry loop never raises here: an open failure becomes the
        next batch's error results."""
        with self._lock:
            if self._closed:
                raise RuntimeError("the model worker is closed")
            if self._child is not None:
                self._child.stop(_TERMINATE_GRACE_S)
                self._child = None

    def close(self) -> None:
        """Shut the child down cleanly (idempotent). A batch waiting in another thread
        stops waiting and raises GenerationCancelled."""
        self._closing.set()
        with self._lock:
            self._closed = True
            if self._child is not None:
                self._child.stop(_CLOSE_TIMEOUT_S)
                self._child = None

    def __enter__(self) -> WorkerBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _drop_child(self) -> None:
        if self._child is not None:
            self._child.kill()
            self._child = None


def model_label(spec: ModelSpec) -> str:
    """The model file (and adapter) a crash message names; the spec, redacted, otherwise."""
    name = spec.path.name if spec.path is not None else spec.filename
    if not name:
        return redact(spec.raw)
    return f"{name} + {Path(spec.lora).name}" if spec.lora else name


def _errors(n: int, message: str) -> list[CompletionResult]:
    return [CompletionResult(finish_reason="error", error=message) for _ in range(n)]


# -- the child ------------------------------------------------------------------------


def _child_main(
    conn: Connection,
    spec: ModelSpec,
    overrides: dict[str, Any],
    env: dict[str, str],
    log_path: Path | None,
    opener: Opener | None,
    deny_amx: bool = False,
    parent_pid: int | None = None,
) -> None:
    """Open the backend once, then serve messages until "close" or the parent is gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    if parent_pid is not None:
        end_with_parent(parent_pid)
    os.environ.update(env)
    if log_path is not None:
        os.environ.setdefault("GGML_NO_BACKTRACE", "1")  # no gdb attach on a failed assert
        _redirect_output(log_path)
    if deny_amx:  # before llama.cpp loads: its AMX kernels fault on this CPU (amx_guard)
        try:
            deny_tile_permission()
        except OSError as exc:
            print(f"gtreview: cannot keep llama.cpp off AMX: {exc}", file=sys.stderr, flush=True)
    if opener is None:
        from gtreview.inference.specs import open_in_process

        opener = open_in_process

    try:
        backend = opener(spec, **overrides)
    except BaseException as exc:  # noqa: BLE001 - every open failure goes back as one line
        conn.send({"op": "open_failed", "type": type(exc).__name__, "message": one_line(str(exc) or repr(exc))})
        conn.close()
        return
    conn.send({"op": "ready", "pid": os.getpid()})
    try:
        while True:
            try:
                message = conn.recv()
            except (EOFError, OSError):
                break  # the parent is gone
            op = message.get("op")
            if op == "close":
                break
            try:
                conn.send(_serve(backend, message, conn))
            except (BrokenPipeError, OSError):
                break
    finally:
        backend.close()
        conn.close()


def _serve(backend: Any, message: dict[str, Any], conn: Connection) -> dict[str, Any]:
    op = message.get("op")
    try:
        if op == "describe":
            # Through JSON: what is recorded must be plain data, and it always pickles.
            return {"op": "describe", "describe": json.loads(json.dumps(backend.describe(), default=str))}
        if op == "score":
            scores = _scorer(backend).score_texts(message["texts"], prefix_tokens=message["prefix_tokens"])
            return {"op": "scores", "scores": [scores_to_plain(s) for s in scores]}
        if op == "continue":
            outputs = _scorer(backend).greedy_continuations(message["prompts"], message["max_tokens"])
            return {"op": "continuations", "continuations": [[int(t) for t in out] for out in outputs]}
        if op == "count":
            return _count(backend, message["requests"])
        requests = [CompletionRequest.model_validate(r) for r in message["requests"]]
        if message.get("stream"):

            def send(index: int, result: CompletionResult) -> None:
                conn.send({"op": "result", "index": index, "result": result.model_dump(mode="json")})

            results = complete(backend, requests, on_result=send)
        else:
            results = backend.complete_batch(requests)
        return {"op": "results", "results": [r.model_dump(mode="json") for r in results]}
    except Exception as exc:  # noqa: BLE001 - a Python error in the backend fails this call only
        if op in ("score", "continue", "count"):  # the caller re-raises it: keep the message as it was
            return {"op": "failed", "type": type(exc).__name__, "message": one_line(str(exc) or repr(exc))}
        return {
            "op": "failed",
            "type": type(exc).__name__,
            "message": one_line(f"model worker: {type(exc).__name__}: {exc}"),
        }


def _count(backend: Any, requests: list[dict[str, Any]]) -> dict[str, Any]:
    counter = getattr(backend, "count_prompt_tokens", None)
    if not callable(counter):
        return {"op": "counts", "tokens": None, "context": 0}
    counts = counter([CompletionRequest.model_validate(r) for r in requests])
    if counts is None:
        return {"op": "counts", "tokens": None, "context": 0}
    return {"op": "counts", "tokens": [int(t) for t in counts.tokens], "context": int(counts.context)}


def _scorer(backend: Any) -> Any:
    if not callable(getattr(backend, "score_texts", None)):
        raise TypeError(f"{backend.spec} cannot score texts: per-token log-likelihoods need a local llama.cpp model")
    return backend


def _redirect_output(log_path: Path) -> None:
    """Point fds 1 and 2 (native writes, Python's stderr) at the log file."""
    fd = os.open(log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    for target in (1, 2):
        with contextlib.suppress(OSError):
            os.dup2(fd, target)
    os.close(fd)
