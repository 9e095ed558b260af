"""Peak memory of a model worker facing runaways, beside one answering normally.

Three local models, each a tiny random-weight GGUF in a worker process, are asked one
question through ``WorkerBackend`` while the parent samples the worker's RSS:

* ``normal``: the ChatML template llama.cpp renders natively, a 64-token answer;
* ``looping template``: a Jinja chat template (llama.cpp does not recognise it) whose
  nested loops write without end, as a hostile or broken model card's template does;
* ``hoarding template``: one whose loops grow a string they never write (nothing for the
  prompt bound to see: the worker's memory bound stops it);

And a loopback HTTP server that streams a reply body forever, asked through the
``openai:`` client in this process (the RSS sampled is this process's).

For each it prints the outcome (the error line when stopped) and the peak RSS, and
the ratio of each runaway's peak to the normal worker's. Run with ``--seconds`` to bound
how long a runaway may go (default 30 s, the attacker's figure: 2.3 GB before the bounds).

    python benchmarks/bench_runaway_memory.py [--seconds 30]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gtreview.inference.backend import ChatMessage, CompletionRequest, Sampling
from gtreview.inference.tiny_model import write_tiny_llama_gguf

LOOPING_TEMPLATE = (
    "{% for a in range(100000) %}{% for b in range(100000) %}"
    "{{ 'Ignore this line; the template loops while it writes. ' * 40 }}"
    "{% endfor %}{% endfor %}"
    "{% for message in messages %}{{ message['role'] + ': ' + message['content'] + '\\n' }}{% endfor %}"
)
# Grows a string in a loop without writing it: no output to bound, only the worker's memory.
HOARDING_TEMPLATE = (
    "{% set ns = namespace(s='Ignore this line; the template hoards what it never writes. ') %}"
    "{% for a in range(100000) %}{% for b in range(64) %}{% set ns.s = ns.s ~ 'x' * 16777216 %}{% endfor %}"
    "{% endfor %}"
    "{% for message in messages %}{{ message['role'] + ': ' + message['content'] + '\\n' }}{% endfor %}"
)


def rss_bytes(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm") as statm:
            return int(statm.read().split()[1]) * 4096
    except (OSError, ValueError, IndexError):
        return 0


def sampled_peak(pid_of: Callable[[], int | None], run: Callable[[], Any]) -> tuple[Any, int, float]:
    """Run ``run`` while sampling the RSS of ``pid_of()`` every 20 ms; (result, peak, seconds)."""
    peak, done = [0], threading.Event()

    def sample() -> None:
        while not done.is_set():
            pid = pid_of()
            if pid is not None:
                peak[0] = max(peak[0], rss_bytes(pid))
            done.wait(0.02)

    watcher = threading.Thread(target=sample, daemon=True)
    watcher.start()
    start = time.monotonic()
    try:
        result = run()
    finally:
        done.set()
        watcher.join()
    return result, peak[0], time.monotonic() - start


def ask(max_tokens: int) -> CompletionRequest:
    return CompletionRequest(
        messages=[ChatMessage(role="user", content="Why does gold grade fall below the water level?")],
        sampling=Sampling(temperature=0.0, seed=1, max_tokens=max_tokens),
    )


def local(path: Path, seconds: float, max_tokens: int) -> tuple[str, int, float]:
    from gtreview.inference.worker import WorkerBackend

    backend = WorkerBackend(f"llama:{path}?timeout={seconds:g}&ctx=8192&seq=1")
    try:
        (result,), peak, took = sampled_peak(lambda: backend.pid, lambda: backend.complete_batch([ask(max_tokens)]))
    finally:
        backend.close()
    said = f"error: {result.error}" if result.error else f"{result.completion_tokens} tokens, {len(result.text)} chars"
    return said, peak, took


class EndlessReply(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        chunk = b'{"choices": [{"message": {"content": "' + b"x" * 65536
        try:
            self.wfile.write(chunk)
            while True:
                self.wfile.write(b"x" * 65536)
        except OSError:
            return

    def log_message(self, *_args: Any) -> None:
        return


def endless_server(seconds: float) -> tuple[str, int, float]:
    import os

    from gtreview.inference.factory import open_backend

    server = ThreadingHTTPServer(("127.0.0.1", 0), EndlessReply)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    backend = open_backend(f"openai:http://127.0.0.1:{server.server_port}/v1#m", max_retries=0)
    stop = threading.Timer(seconds, server.shutdown)
    stop.start()
    try:
        (result,), peak, took = sampled_peak(os.getpid, lambda: backend.complete_batch([ask(64)]))
    finally:
        stop.cancel()
        backend.close()
        server.server_close()
    said = f"error: {result.error}" if result.error else f"{len(result.text)} chars"
    return said, peak, took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=30.0, help="how long a runaway may go (default 30)")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="gtreview-runaway-"))
    normal = write_tiny_llama_gguf(folder / "normal.gguf", ctx=8192)
    looping = write_tiny_llama_gguf(folder / "looping.gguf", ctx=8192, chat_template=LOOPING_TEMPLATE)
    hoarding = write_tiny_llama_gguf(folder / "hoarding.gguf", ctx=8192, chat_template=HOARDING_TEMPLATE)
    rows = [
        ("normal", *local(normal, args.seconds, 64)),
        ("looping template", *local(looping, args.seconds, 64)),
        ("hoarding template", *local(hoarding, args.seconds, 64)),
        ("endless HTTP reply", *endless_server(args.seconds)),
    ]
    base = rows[0][2] or 1
    print(f"{'case':<20} {'peak RSS':>10} {'x normal':>9} {'seconds':>8}  outcome")
    for name, said, peak, took in rows:
        print(f"{name:<20} {peak / 2**20:>8.0f} MB {peak / base:>9.1f} {took:>8.1f}  {said[:150]}")


if __name__ == "__main__":
    main()
