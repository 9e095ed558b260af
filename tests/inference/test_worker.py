"""The model worker process: crashes,
cancels and bad files that never take the caller down or hang it (its results
equal the in-process backend's: test_worker_in_process.py).

One worker is shared by most tests (a spawned child starts in about half a second on
the tiny model, but every crash and cancel costs a fresh one). Its child opens the
model through the crashing test backend (``opener``), which kills the child when a
call carries a marker; production's default opener never looks at markers.
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
from gtreview.inference.specs import BackendOpenError, ModelSpecError
from gtreview.inference.worker import GenerationCancelled, WorkerBackend, WorkerDied
from tests.inference.crashing_backend import (
    ABORT_MARKER,
    ASSERT_MARKER,
    EXIT_MARKER,
    SEGV_MARKER,
    SLEEP_MARKER,
    open_crashing,
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
    backend = WorkerBackend(spec_of(tiny_gguf), opener=open_crashing)
    try:
        yield backend
    finally:
        backend.close()


def test_describe_is_the_child_backends_plus_the_worker(worker: WorkerBackend, tiny_gguf: Path) -> None:
    assert isinstance(worker, CompletionBackend)
    info = worker.describe()
    assert info["worker"] == "process" and info["pid"] == worker.pid != os.getpid()
    assert info["spec"] == worker.spec == spec_of(tiny_gguf)
    assert info["backend"] == "llama.cpp" and info["n_seq_max"] == 4 and len(info["model_sha256"]) == 64


@pytest.mark.parametrize(
    ("marker", "error"),
    [
        (ABORT_MARKER, "model worker died (signal SIGABRT) running tiny.gguf"),
        # a known signal names its likely cause and the fix
        (
            SEGV_MARKER,
            "model worker died (signal SIGSEGV) running tiny.gguf; likely cause: a crash inside llama.cpp "
            "(a model file or architecture this build cannot run); fix: run `gtreview doctor` with this model",
        ),
        (f"{EXIT_MARKER}3>>", "model worker died (exit code 3) running tiny.gguf"),
        # llama.cpp's last error line, when it printed one, says why
        (
            ASSERT_MARKER,
            "model worker died (signal SIGABRT) running tiny.gguf: ggml/src/ggml.c:1234: GGML_ASSERT(test hook) failed",
        ),
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


TEXTS = [
    "the gold ore in the quartz vein is graded by assay of each drill core sample",
    "a drill hole cut the granite and the basalt dyke at the shear zone",
    "copper and silver deposit in the sericite alteration of the schist",
    "the rubric must award points for each correct component of the answer",
    "pyrite and carbonate in the lode",
    "gold",
]


@pytest.mark.parametrize("call", ["score", "continue"])
def test_a_crash_while_scoring_raises_one_line_and_the_next_call_has_a_fresh_worker(
    worker: WorkerBackend, call: str, capfd: pytest.CaptureFixture[str]
) -> None:
    assert worker.score_texts(["warm"])
    before = worker.pid
    assert before is not None
    with pytest.raises(WorkerDied) as died:
        if call == "score":
            worker.score_texts(["fine", f"crash here {ABORT_MARKER}"])
        else:
            worker.greedy_continuations([f"crash here {ASSERT_MARKER}"], 4)
    message = str(died.value)
    assert message.startswith("model worker died (signal SIGABRT)") and "\n" not in message
    assert isinstance(died.value, RuntimeError) and not alive(before) and worker.pid is None
    assert len(worker.score_texts(["fine"])[0].logprobs) > 0
    assert worker.pid not in (None, before)
    assert capfd.readouterr().err == ""


def test_a_scoring_error_in_the_child_keeps_its_class_and_the_child(worker: WorkerBackend) -> None:
    worker.score_texts(["warm"])
    before = worker.pid
    with pytest.raises(ValueError, match=r"text 0 has \d+ tokens; a sequence holds \d+"):
        worker.score_texts(["gold " * 2000])
    with pytest.raises(ValueError, match="prompt 0 is empty"):
        worker.greedy_continuations([[]], 4)
    assert worker.pid == before  # a Python error fails the call, not the process


def test_a_server_backend_in_a_worker_cannot_score() -> None:
    with WorkerBackend("openai:http://127.0.0.1:9/v1#m") as backend:
        with pytest.raises(RuntimeError, match="cannot score texts"):
            backend.score_texts(["x"])


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
    backend = WorkerBackend(spec_of(tiny_gguf), opener=open_crashing)
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
        assert quiet.complete_batch([ask(ABORT_MARKER)])[0].ok  # the default opener: a marker is text
    assert not alive(pid) and children() == before


def test_results_stream_back_as_each_request_ends(tiny_gguf: Path) -> None:
    """The child sends each result as its request ends: a short answer arrives before
    the long one it was batched with, and every result equals the batch's."""
    seen: list[tuple[int, str]] = []
    with WorkerBackend(spec_of(tiny_gguf)) as streaming:
        requests = [ask("Answer: x", max_tokens=40), ask("Answer: y", max_tokens=2), ask("Answer: z", max_tokens=9)]
        results = streaming.complete_batch(requests, on_result=lambda i, r: seen.append((i, r.text)))
        assert [i for i, _ in seen] == [1, 2, 0]
        assert dict(seen) == {i: r.text for i, r in enumerate(results)}

        def refuse(index: int, result: Any) -> None:
            raise KeyboardInterrupt  # the caller gives up mid-batch

        first = streaming.pid
        with pytest.raises(KeyboardInterrupt):
            streaming.complete_batch(requests, on_result=refuse)
        assert first is not None and streaming.pid is None  # the busy child was let go
        assert [r.text for r in streaming.complete_batch(requests)] == [r.text for r in results]


def test_every_call_of_a_worker_is_bounded_in_time(tmp_path: Path) -> None:
    """Not only answers: a probe's scoring or continuation that never returns, and a model
    that never finishes loading, end at the spec's time limit with one line."""
    from gtreview.inference.worker import WorkerTimedOut
    from tests.inference.crashing_backend import open_never_loading, open_stuck

    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF")
    stuck = WorkerBackend(f"llama:{model}", opener=open_stuck, answer_timeout_s=1.0, load_timeout_s=120.0)
    try:
        started = time.monotonic()
        with pytest.raises(WorkerTimedOut, match=r"no answer within 2 s \(a score that never ends\)"):
            stuck.score_texts(["one text", "another"])
        with pytest.raises(WorkerTimedOut, match=r"no answer within 1 s \(a continue that never ends\)"):
            stuck.greedy_continuations(["a prompt"], max_tokens=4)
        assert time.monotonic() - started < 60  # bounded (the calls themselves sleep an hour)
    finally:
        stuck.close()
    with pytest.raises(BackendOpenError, match=r"no answer within 10 s \(the model did not finish loading\)"):
        WorkerBackend(f"llama:{model}", opener=open_never_loading, answer_timeout_s=1.0, load_timeout_s=10.0)


PARENT = """
import multiprocessing, sys, threading, time
from gtreview.inference.worker import WorkerBackend
from tests.inference.crashing_backend import open_never_loading

if __name__ == "__main__":
    threading.Thread(
        target=lambda: WorkerBackend("llama:/no/such.gguf", opener=open_never_loading, load_timeout_s=600.0),
        daemon=True,
    ).start()
    while not multiprocessing.active_children():
        time.sleep(0.05)
    print(multiprocessing.active_children()[0].pid, flush=True)
    time.sleep(600)
"""


def running(pid: int) -> bool:
    """Alive and not a zombie (an orphan's new parent may be slow to reap it)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads process states from /proc")
def test_a_worker_ends_when_its_parent_is_killed(tmp_path: Path) -> None:
    """Killing the app while a worker still loads its model (or generates) leaves no
    orphan: the child sees its parent gone and ends, though it never reads the pipe."""
    import signal
    import subprocess
    import sys

    script = tmp_path / "parent.py"
    script.write_text(PARENT, encoding="utf-8")
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")]))}
    parent = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True, cwd=root, env=env)
    assert parent.stdout is not None
    try:
        child = int(parent.stdout.readline())
        assert running(child)
        parent.send_signal(signal.SIGKILL)
        parent.wait(10)
        deadline = time.monotonic() + 15
        while running(child) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not running(child)
    finally:
        parent.kill()
        if "child" in locals() and running(child):
            os.kill(child, signal.SIGKILL)


def test_a_cancel_during_the_load_stops_it_at_once(tmp_path: Path) -> None:
    """The opener's cancel event (``cancelling``) reaches a load that would take minutes:
    the worker is killed and the open raises at once, not after the load."""
    from gtreview.inference.cancel_scope import cancelling
    from tests.inference.crashing_backend import open_never_loading

    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF")
    cancel = threading.Event()
    threading.Timer(1.0, cancel.set).start()
    before = {child.pid for child in multiprocessing.active_children()}
    started = time.monotonic()
    with cancelling(cancel), pytest.raises(GenerationCancelled):
        WorkerBackend(f"llama:{model}", opener=open_never_loading, load_timeout_s=300.0)
    assert time.monotonic() - started < 60  # the load itself never ends
    assert {child.pid for child in multiprocessing.active_children()} <= before  # its worker is gone
