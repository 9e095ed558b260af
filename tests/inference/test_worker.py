"""The model worker process: same results as in-process, and crashes, cancels and bad
files that never take the caller down or hang it.

One worker is shared by most tests (a spawned child starts in about half a second on
the tiny model, but every crash and cancel costs a fresh one). The crash hook is
switched on only in that worker's child, through its ``env``.
"""

from __future__ import annotations

import multiprocessing
import os
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gtreview.inference.backend import ChatMessage, CompletionBackend, CompletionRequest, Sampling
from gtreview.inference.gguf_check import ModelFileError
from gtreview.inference.specs import BackendOpenError, ModelSpecError, open_backend
from gtreview.inference.worker import (
    ABORT_MARKER,
    ASSERT_MARKER,
    CRASH_HOOK_ENV,
    EXIT_MARKER,
    SEGV_MARKER,
    SLEEP_MARKER,
    GenerationCancelled,
    WorkerBackend,
)

VERDICT_SCHEMA = {
    "type": "object",
    "properties": {"gate_passed": {"type": "boolean"}, "awarded": {"enum": [0, 1, 2, 3]}},
    "required": ["gate_passed", "awarded"],
}


def ask(text: str, **sampling: Any) -> CompletionRequest:
    return CompletionRequest(
        messages=[
            ChatMessage(role="system", content="Mark the answer against the marking scheme. " * 4),
            ChatMessage(role="user", content=text),
        ],
        sampling=Sampling(**{"max_tokens": 16, **sampling}),
    )


def spec_of(model: Path) -> str:
    return f"llama:{model}?ctx=2048&seq=4&threads=2"


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.fixture(scope="module")
def worker(tiny_gguf: Path) -> Iterator[WorkerBackend]:
    backend = WorkerBackend(spec_of(tiny_gguf), env={CRASH_HOOK_ENV: "1"})
    try:
        yield backend
    finally:
        backend.close()


def test_results_equal_the_in_process_backend(worker: WorkerBackend, tiny_gguf: Path) -> None:
    requests = [ask(f"Answer: {a}") for a in ("gold in quartz", "a shear zone", "pyrite", "no idea", "basalt dyke")]
    requests.append(CompletionRequest(messages=requests[0].messages, json_schema=VERDICT_SCHEMA))
    requests.append(ask("Answer: ore", temperature=0.8, seed=3))
    in_process = open_backend(spec_of(tiny_gguf))
    try:
        expected = in_process.complete_batch(requests)
    finally:
        in_process.close()
    got = worker.complete_batch(requests)
    assert [r.model_dump() for r in got] == [r.model_dump() for r in expected]
    assert all(r.ok for r in got) and len({r.text for r in got}) > 1
    assert worker.complete_batch([]) == []


def test_describe_is_the_child_backends_plus_the_worker(worker: WorkerBackend, tiny_gguf: Path) -> None:
    assert isinstance(worker, CompletionBackend)
    info = worker.describe()
    assert info["worker"] == "process" and info["pid"] == worker.pid != os.getpid()
    assert info["spec"] == worker.spec == spec_of(tiny_gguf)
    assert info["backend"] == "llama.cpp" and info["n_seq_max"] == 4 and len(info["model_sha256"]) == 64


@pytest.mark.parametrize(
    ("marker", "error"),
    [
        (ABORT_MARKER, "model worker died (signal SIGABRT)"),
        (SEGV_MARKER, "model worker died (signal SIGSEGV)"),
        (f"{EXIT_MARKER}3>>", "model worker died (exit code 3)"),
        # llama.cpp's last error line, when it printed one, says why
        (ASSERT_MARKER, "model worker died (signal SIGABRT): ggml/src/ggml.c:1234: GGML_ASSERT(test hook) failed"),
    ],
)
def test_a_crash_gives_error_results_and_a_fresh_worker(
    worker: WorkerBackend, marker: str, error: str, capfd: pytest.CaptureFixture[str]
) -> None:
    worker.complete_batch([ask("warm")])
    before = worker.pid
    assert before is not None
    started = time.monotonic()
    results = worker.complete_batch([ask("fine"), ask(f"crash here {marker}"), ask("fine too")])
    assert time.monotonic() - started < 10
    assert [r.finish_reason for r in results] == ["error"] * 3
    assert {r.error for r in results} == {error}
    assert not alive(before)

    again = worker.complete_batch([ask("fine")])
    assert again[0].ok and again[0].completion_tokens == 16
    assert worker.pid not in (None, before)
    assert capfd.readouterr().err == ""  # the child's stderr stays out of the caller's


def test_cancel_from_another_thread_stops_a_long_generation(worker: WorkerBackend) -> None:
    worker.complete_batch([ask("warm")])
    before = worker.pid
    assert before is not None
    # ~400 x 500 tokens on 4 sequences: many seconds of real decoding.
    long = [ask(f"Answer {i}: the gold", max_tokens=500, temperature=1.0, seed=i) for i in range(400)]
    cancel = threading.Event()
    timer = threading.Timer(0.3, cancel.set)
    timer.start()
    started = time.monotonic()
    with pytest.raises(GenerationCancelled):
        worker.complete_batch(long, cancel=cancel)
    elapsed = time.monotonic() - started
    timer.join()
    assert elapsed < 5.0, f"cancel took {elapsed:.1f} s"  # the whole batch takes far longer
    assert not alive(before) and worker.pid is None

    assert worker.complete_batch([ask("fine")])[0].ok
    fresh = worker.pid
    assert fresh not in (None, before)
    with pytest.raises(GenerationCancelled):  # already set: nothing is started or killed
        worker.complete_batch([ask("fine")], cancel=cancel)
    assert worker.pid == fresh


def test_restart_starts_a_fresh_process_on_the_next_call(worker: WorkerBackend) -> None:
    worker.complete_batch([ask("warm")])
    before = worker.pid
    assert before is not None
    worker.restart()
    assert worker.pid is None and not alive(before)
    assert worker.complete_batch([ask("fine")])[0].ok
    assert worker.pid not in (None, before)
    assert worker.describe()["pid"] == worker.pid


def children() -> set[int | None]:
    return {p.pid for p in multiprocessing.active_children()}


def test_open_errors_are_one_line(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    before = children()
    with pytest.raises(ModelSpecError):  # parsed in the caller: no process is started
        WorkerBackend("tiny.gguf")
    with pytest.raises(BackendOpenError, match="model file not found") as missing:
        WorkerBackend(f"llama:{tmp_path / 'nowhere.gguf'}")
    corrupt = tmp_path / "corrupt.gguf"
    corrupt.write_bytes(b"GGUF\x03\x00\x00\x00garbage")
    with pytest.raises(ModelFileError) as damaged:
        WorkerBackend(f"llama:{corrupt}")
    for caught in (missing, damaged):
        assert "\n" not in str(caught.value) and "Traceback" not in str(caught.value)
    assert "corrupt.gguf" in str(damaged.value)
    assert capfd.readouterr().err == ""
    assert children() == before


def test_a_failed_reopen_gives_error_results(tiny_gguf: Path, tmp_path: Path) -> None:
    model = shutil.copy(tiny_gguf, tmp_path / "copy.gguf")
    with WorkerBackend(spec_of(Path(model))) as backend:
        Path(model).unlink()
        backend.restart()
        results = backend.complete_batch([ask("x"), ask("y")])
        assert [r.finish_reason for r in results] == ["error", "error"]
        assert "model file not found" in (results[0].error or "")


def test_close_leaves_no_child_and_stops_a_waiting_batch(tiny_gguf: Path) -> None:
    before = children()
    backend = WorkerBackend(spec_of(tiny_gguf), env={CRASH_HOOK_ENV: "1"})
    pid = backend.pid
    assert pid is not None and alive(pid)
    outcome: list[BaseException] = []

    def wait_forever() -> None:
        try:
            backend.complete_batch([ask(SLEEP_MARKER)])
        except GenerationCancelled as exc:
            outcome.append(exc)

    waiting = threading.Thread(target=wait_forever)
    waiting.start()
    time.sleep(0.3)
    backend.close()
    waiting.join(5)
    assert not waiting.is_alive() and len(outcome) == 1
    assert not alive(pid) and children() == before
    backend.close()  # idempotent
    with pytest.raises(RuntimeError, match="closed"):
        backend.complete_batch([ask("x")])

    with WorkerBackend(spec_of(tiny_gguf)) as quiet:  # the clean path: the child exits by itself
        pid = quiet.pid
        assert pid is not None and quiet.complete_batch([ask("x")])[0].ok
        assert quiet.complete_batch([ask(ABORT_MARKER)])[0].ok  # without the hook a marker is text
    assert not alive(pid) and children() == before
