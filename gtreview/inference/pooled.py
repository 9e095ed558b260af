"""What the HTTP backends share: a bounded thread pool per backend, and the boundary where
every result they return passes the one redaction step (``gtreview.core.redaction``)."""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Self

from gtreview.core.errors import Cancelled
from gtreview.core.redaction import redact
from gtreview.inference.backend import CompletionRequest, CompletionResult, ResultCallback


def one_line(text: str, limit: int = 300) -> str:
    """Collapse whitespace and cut long text: errors are shown in table cells and logs.

    Redacted before it is cut, because a key cut in half no longer matches the key."""
    flat = re.sub(r"\s+", " ", redact(text)).strip()
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


class PooledBackend:
    """Sends a batch's requests with at most ``concurrency`` in flight; one failure is one result."""

    def __init__(self, concurrency: int, name: str) -> None:
        self._pool = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix=f"gtreview-{name}")
        self._closed = False

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def complete_batch(
        self,
        requests: Sequence[CompletionRequest],
        on_result: ResultCallback | None = None,
        cancel: threading.Event | None = None,
    ) -> list[CompletionResult]:
        """One result per request, in order; ``on_result(index, result)`` as each comes
        back. ``cancel`` drops the requests not yet sent and raises Cancelled (a request
        in flight ends on its own, within the client's timeout)."""
        if self._closed:
            raise RuntimeError("this backend is closed")
        futures: dict[Future[CompletionResult], int] = {
            self._pool.submit(self._complete_safely, r): i for i, r in enumerate(requests)
        }
        results: list[CompletionResult | None] = [None] * len(requests)
        pending = set(futures)
        while pending:
            done, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
            for future in sorted(done, key=futures.__getitem__):
                index = futures[future]
                # The boundary: no text a server sent back leaves a backend unredacted.
                results[index] = result = future.result().redacted()
                if on_result is not None:
                    on_result(index, result)
            if cancel is not None and cancel.is_set() and pending:
                for future in pending:
                    future.cancel()
                raise Cancelled(f"cancelled with {len(pending)} of {len(requests)} requests unanswered")
        return [r for r in results if r is not None]

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
