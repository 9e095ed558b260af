"""The cancel event a model's load listens to, set by whoever opens the model.

Opening a local model loads it in a worker process, which can take minutes (a large
file, a slow disk). The backend factories take a spec only, so the caller's cancel
event reaches the load through this context variable: a pass or a calibration opens
its models inside ``cancelling(event)``, and a Cancel pressed during the load stops it
at once (the worker is killed) instead of after it.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_current: ContextVar[threading.Event | None] = ContextVar("gtreview_cancel", default=None)


@contextmanager
def cancelling(event: threading.Event | None) -> Iterator[None]:
    """Models opened in this block (in this thread) stop loading when ``event`` is set."""
    token = _current.set(event)
    try:
        yield
    finally:
        _current.reset(token)


def current_cancel() -> threading.Event | None:
    return _current.get()


__all__ = ["cancelling", "current_cancel"]
