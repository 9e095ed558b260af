"""A loopback OpenAI-compatible server that leaks what it was sent (127.0.0.1 only).

Badly behaved servers and proxies echo credentials back: an API that quotes the key it
rejected (``Incorrect API key provided: Bearer sk-...``), a proxy that answers 200 with
an HTML page dumping the request headers. This one does both, so tests can check that
no credential the client sent ends up anywhere the program writes.

Model names pick the behaviour of a chat request:

- ``echo...``: 401 whose JSON error message quotes the Authorization header;
- ``nonjson``: 200 whose body is not JSON and quotes the Authorization header;
- ``busy``: 503 whose plain-text body quotes the Authorization header (retried);
- anything else: a normal chat completion whose text is ``respond(messages)``.

``GET /v1/models`` always answers 401 quoting the Authorization header.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Responder = Callable[[list[dict[str, Any]]], str]


@contextmanager
def leaky_server(respond: Responder) -> Iterator[str]:
    """Serve until the block ends; yield the base URL (``http://127.0.0.1:PORT``)."""

    class Handler(BaseHTTPRequestHandler):
        def send(self, status: int, body: bytes, content_type: str = "application/json") -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def rejected(self) -> None:
            message = f"Incorrect API key provided: {self.headers.get('Authorization', '')}"
            self.send(401, json.dumps({"error": {"message": message, "type": "invalid_request_error"}}).encode())

        def do_GET(self) -> None:
            self.rejected()

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            model = str(body.get("model"))
            auth = self.headers.get("Authorization", "")
            if model.startswith("echo"):
                self.rejected()
            elif model == "nonjson":
                self.send(200, f"<html>proxy: forwarded with Authorization: {auth}</html>".encode(), "text/html")
            elif model == "busy":
                self.send(503, f"overloaded; your request had Authorization: {auth}".encode(), "text/plain")
            else:
                choice = {"index": 0, "message": {"role": "assistant", "content": respond(body["messages"])}}
                choice["finish_reason"] = "stop"
                usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
                reply = {"id": "x", "object": "chat.completion", "model": model, "choices": [choice], "usage": usage}
                self.send(200, json.dumps(reply).encode())

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
