"""A server's reply read with a bound on its size and on the time it takes to arrive.

httpx reads a whole body into memory, and its timeouts apply to each read, so a server
that streams a reply without end (hostile, or a proxy in a loop) grew the client without
bound and never timed out: 6 GB in 25 s on a loopback server. Here the body is read in
chunks and the read stops, with a one-line error, once it passes ``max_bytes`` (counted
after decompression, so a compressed bomb stops too) or takes longer than ``deadline_s``
in all. The error is a result of that request, like a model that writes garbage: the
server answered, so it is not an outage.
"""

from __future__ import annotations

import time
from typing import Any

import httpx

MIB = 2**20
MAX_REPLY_BYTES = 16 * MIB
"""The most a chat completion's reply may hold: an answer of max_tokens tokens is a few
hundred KiB of JSON, so this is far above any real reply and far below harm."""
MAX_REPLY_S = 900.0
"""How long a reply may take in all (a local answer's bound, ``specs.DEFAULT_ANSWER_TIMEOUT_S``)."""

_DECODED_HEADERS = frozenset({"content-encoding", "content-length", "transfer-encoding"})


class ReplyTooLarge(Exception):
    """A reply past its size or time bound; the message is the one line recorded."""


def post_bounded(
    client: httpx.Client,
    url: httpx.URL | str,
    *,
    json: Any,
    max_bytes: int = MAX_REPLY_BYTES,
    deadline_s: float = MAX_REPLY_S,
) -> httpx.Response:
    """POST ``json`` and read the reply within the bounds; the response returned holds
    the decoded body. Raise ReplyTooLarge past a bound (the connection is dropped);
    transport errors are httpx's, as for ``client.post``."""
    deadline = time.monotonic() + deadline_s
    with client.stream("POST", url, json=json) as response:
        chunks: list[bytes] = []
        size = 0
        for chunk in response.iter_bytes():
            size += len(chunk)
            if size > max_bytes:
                raise ReplyTooLarge(
                    f"the server's reply passed {max_bytes / MIB:g} MiB and was cut off "
                    "(a reply that never ends); nothing of it was kept"
                )
            if time.monotonic() > deadline:
                raise ReplyTooLarge(
                    f"the server's reply was still arriving after {deadline_s:g} s and was cut off "
                    f"({size} bytes so far); nothing of it was kept"
                )
            chunks.append(chunk)
        headers = [(k, v) for k, v in response.headers.multi_items() if k.lower() not in _DECODED_HEADERS]
        return httpx.Response(
            response.status_code,
            headers=headers,
            content=b"".join(chunks),
            request=response.request,
            extensions={"reason_phrase": response.reason_phrase.encode("ascii", "replace")},
        )


__all__ = ["MAX_REPLY_BYTES", "MAX_REPLY_S", "ReplyTooLarge", "post_bounded"]
