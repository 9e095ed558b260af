"""What the HTTP backends share: a bounded thread pool per backend and safe error text."""

from __future__ import annotations

import re
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Self

from gtreview.inference.backend import CompletionRequest, CompletionResult


def one_line(text: str, limit: int = 300) -> str:
    """Collapse whitespace and cut long text: errors are shown in table cells and logs."""
    flat = re.sub(r"\s+", " ", text).strip()
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def mask_secret(text: str, secret: str | None) -> str:
    """The text with the API key replaced, in case a server or proxy echoes it back."""
    return text.replace(secret, "***") if secret else text


class PooledBackend:
    """Sends a batch's requests with at most ``concurrency`` in flight; one failure is one result."""

    def __init__(self, concurrency: int, name: str) -> None:
        self._pool = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix=f"gtreview-{name}")
        self._closed = False

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def complete_batch(self, requests: Sequence[CompletionRequest]) -> list[CompletionResult]:
        if self._closed:
            raise RuntimeError("this backend is closed")
        return list(self._pool.map(self._complete_safely, requests))

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._pool.shutdown(wait=True, cancel_futures=True)
        self._close_client()

    def _complete_safely(self, request: CompletionRequest) -> CompletionResult:
        raise NotImplementedError

    def _close_client(self) -> None:
        raise NotImplementedError
