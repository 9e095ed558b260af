"""pypdf's warnings about a damaged PDF, kept for the one-line error or the log.

pypdf logs how it repairs a damaged file ("EOF marker not found", "incorrect startxref
pointer") on its own loggers. With no handler of theirs, Python's last-resort handler
printed them raw on stderr: two to four lines around the CLI's one-line error, and
noise in the terminal behind the GUI. Here they are kept per reading thread while a PDF
is read (:func:`pdf_warnings`): a failed read quotes the first in its one line, a
successful one leaves them in the log. Anything pypdf says outside a read goes to the
log too; nothing of pypdf's reaches stderr.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache

log = logging.getLogger(__name__)


class _Kept(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.local = threading.local()

    def emit(self, record: logging.LogRecord) -> None:
        kept: list[str] | None = getattr(self.local, "kept", None)
        message = " ".join(record.getMessage().split())
        if kept is not None:
            kept.append(message)
        else:
            log.info("pypdf: %s", message)


@cache
def _handler() -> _Kept:
    handler = _Kept()
    pypdf_log = logging.getLogger("pypdf")
    pypdf_log.addHandler(handler)
    pypdf_log.propagate = False  # to the root's last-resort handler: printed raw on stderr
    return handler


@contextmanager
def pdf_warnings(name: str) -> Iterator[list[str]]:
    """The warnings pypdf logs in this thread while the block reads ``name``, in order;
    they are written to the log (naming the file) when the block ends."""
    handler = _handler()
    kept: list[str] = []
    outer = getattr(handler.local, "kept", None)
    handler.local.kept = kept
    try:
        yield kept
    finally:
        handler.local.kept = outer
        for message in kept:
            log.info("%s: pypdf: %s", name, message)
