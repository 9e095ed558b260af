"""A real OpenAI-compatible server for tests: llama-cpp-python's own ``python -m llama_cpp.server``
serving a real GGUF model (SmolLM2-135M-Instruct from tests/real_models.py) in a child process.

It listens on 127.0.0.1 only, on a port chosen once, so it can be stopped (an outage) and started
again on the same address. Its output goes to a log file; a server that does not come up in time
fails with the log's tail. Every request it answered is in that log (uvicorn's access lines), so a
test can count the chat requests a pass made. ``stop`` terminates, then kills, and waits: no
process is left behind.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

START_TIMEOUT_S = 120.0  # import FastAPI, load a 98 MB model: seconds; generous for a loaded CI machine
STOP_TIMEOUT_S = 15.0
CHAT_LINE = '"POST /v1/chat/completions HTTP/1.1"'


class ServerFailed(RuntimeError):
    """The server did not come up (or died); the message ends with its log's tail."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


GUARDED_SERVER = (
    "import runpy, sys; from gtreview.inference.amx_guard import guard_this_process; guard_this_process(); "
    "sys.argv[0] = 'llama_cpp.server'; runpy.run_module('llama_cpp.server', run_name='__main__', alter_sys=True)"
)


class LlamaCppServer:
    """``python -m llama_cpp.server`` for ``model``, served as ``alias`` at ``url`` (``…/v1``)."""

    def __init__(self, model: Path, log: Path, *, alias: str, n_ctx: int = 4096, threads: int = 2) -> None:
        self.model, self.log, self.alias = model, log, alias
        self.port = free_port()
        self.root = f"http://127.0.0.1:{self.port}"
        self.url = f"{self.root}/v1"
        self.args = [
            # The server runs llama.cpp in its own process: off a faulting AMX tile unit first, as workers are.
            sys.executable, "-c", GUARDED_SERVER,
            "--model", str(model), "--model_alias", alias,
            "--host", "127.0.0.1", "--port", str(self.port),
            "--n_ctx", str(n_ctx), "--chat_format", "chatml",
            "--n_threads", str(threads), "--n_threads_batch", str(threads),
            "--use_mlock", "False", "--verbose", "False",
            "--logits_all", "False",  # its default computes logits for every prompt token, which gtreview never reads
        ]  # fmt: skip
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def start(self, timeout: float = START_TIMEOUT_S) -> None:
        """Start it and wait until ``GET /v1/models`` answers 200."""
        if self.running:
            return
        self.starts += 1
        with self.log.open("ab") as out:
            out.write(f"--- start {self.starts}: {' '.join(self.args)}\n".encode())
            out.flush()
            # its own session, so that stop() can end it and anything it started
            self.process = subprocess.Popen(
                self.args,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},  # every access line in the log as it happens
                start_new_session=True,
            )
        deadline = time.monotonic() + timeout
        while True:
            if self.process.poll() is not None:
                raise ServerFailed(f"llama_cpp.server exited with {self.process.returncode}: {self.tail()}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{self.url}/models", timeout=2.0).status_code == 200:
                    return
            if time.monotonic() > deadline:
                self.stop()
                raise ServerFailed(f"llama_cpp.server did not answer /v1/models within {timeout:.0f}s: {self.tail()}")
            time.sleep(0.2)

    def stop(self) -> None:
        """Terminate it (SIGTERM to its process group), kill it if it lingers; wait for it."""
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=STOP_TIMEOUT_S)

    def kill(self) -> None:
        """An outage without warning: SIGKILL, no shutdown. Waits until it is gone."""
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=STOP_TIMEOUT_S)

    def chat_requests(self) -> int:
        """How many chat completion requests it has answered (any status), over all its starts."""
        return self.log.read_text(encoding="utf-8", errors="replace").count(CHAT_LINE)

    def tail(self, lines: int = 25) -> str:
        try:
            text = self.log.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:]) or "(empty log)"
