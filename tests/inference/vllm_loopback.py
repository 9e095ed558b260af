"""A loopback server that behaves like vLLM's OpenAI API for the names it serves (127.0.0.1 only).

``GET /v1/models`` lists ``served``; a chat request for any other model name gets vLLM's
404 (``The model `x` does not exist.``), so a client that asks for the wrong name fails
the way it does against the harness's pod, which serves every model as ``benchmark``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Responder = Callable[[list[dict[str, Any]]], str]


class Served:
    """The base URL and the model name of every chat request the server received."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.asked: list[str] = []


@contextmanager
def vllm_server(served: Sequence[str], respond: Responder) -> Iterator[Served]:
    seen: Served | None = None
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def reply(self, status: int, payload: dict[str, Any]) -> None:
            body = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            if self.path.rstrip("/") != "/v1/models":
                self.reply(404, {"detail": "Not Found"})
                return
            self.reply(200, {"object": "list", "data": [{"id": name, "object": "model"} for name in served]})

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            model = str(body.get("model"))
            assert seen is not None
            with lock:
                seen.asked.append(model)
            if model not in served:
                message = f"The model `{model}` does not exist."
                self.reply(404, {"object": "error", "message": message, "type": "NotFoundError", "code": 404})
                return
            text = respond(body["messages"])
            choice = {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
            usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
            self.reply(
                200, {"id": "x", "object": "chat.completion", "model": model, "choices": [choice], "usage": usage}
            )

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    seen = Served(f"http://127.0.0.1:{server.server_address[1]}")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield seen
    finally:
        server.shutdown()
        server.server_close()
