"""A server's reply is read within a size and a time bound.

A loopback server that streams its reply body without end had grown the client to 6 GB
in 25 s and never ended the request (httpx reads a whole body, and its timeout is per
read). Now the read stops past 16 MiB with a one-line error result: the server answered,
so it is no outage (nothing retried, ``unreachable`` false).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from gtreview.inference.backend import ChatMessage, CompletionRequest, Sampling
from gtreview.inference.openai_client import OpenAICompatibleBackend
from gtreview.inference.reply_limits import ReplyTooLarge, post_bounded


@contextmanager
def endless_server() -> Iterator[str]:
    """A server whose chat replies begin as JSON and never end; yields its base URL."""
    stop = threading.Event()

    class Endless(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", "0")))
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            try:
                self.wfile.write(b'{"choices": [{"message": {"content": "')
                while not stop.is_set():
                    self.wfile.write(b"x" * 65536)
            except OSError:
                return

        def log_message(self, *_args: object) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Endless)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        stop.set()
        server.shutdown()
        server.server_close()


def ask() -> CompletionRequest:
    return CompletionRequest(messages=[ChatMessage(role="user", content="Is basalt extrusive?")], sampling=Sampling())


def test_a_reply_that_never_ends_is_cut_off_as_an_error_result() -> None:
    with endless_server() as url, OpenAICompatibleBackend(url, "m", max_retries=3) as backend:
        [result] = backend.complete_batch([ask()])
    assert result.finish_reason == "error" and not result.unreachable
    assert result.error == (
        "the server's reply passed 16 MiB and was cut off (a reply that never ends); nothing of it was kept"
    )


def test_a_reply_still_arriving_at_its_deadline_is_cut_off() -> None:
    def trickle(_request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=iter([b'{"choices": ', b"[]}"]))

    with httpx.Client(transport=httpx.MockTransport(trickle)) as client:
        with pytest.raises(ReplyTooLarge, match=r"still arriving after 0 s"):
            post_bounded(client, "http://server/v1/chat/completions", json={}, deadline_s=0.0)
        whole = post_bounded(client, "http://server/v1/chat/completions", json={})
    assert whole.status_code == 200 and whole.json() == {"choices": []}
