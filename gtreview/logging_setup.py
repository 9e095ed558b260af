"""Logging to a rotating file in the user's log folder, for the app and the CLI alike.

Users see one-line messages; the full story (tracebacks included) goes to the log so a
problem can be diagnosed after the fact. Every record passes the one redaction step on
its way to the file (message, arguments and traceback alike): a server's error text
quoted in a log line, or an exception that carries a request URL, must not put a key or
a password into a file users attach to bug reports.
"""

from __future__ import annotations

import logging
import logging.handlers
import sys
from pathlib import Path

from platformdirs import user_log_path

from gtreview.core.redaction import redact

MAX_BYTES = 1_000_000
BACKUPS = 5
_configured: Path | None = None


class RedactingFilter(logging.Filter):
    """Replaces a record's message (arguments merged in) and traceback by their redacted text.

    A filter rather than a formatter, so that it works whatever handler and format it is
    attached to; the traceback is formatted here so the handler's formatter reuses it."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg, record.args = redact(record.getMessage()), None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        return True


def log_path() -> Path:
    return user_log_path("gtreview", appauthor=False) / "gtreview.log"


class QuietFileHandler(logging.handlers.RotatingFileHandler):
    """A rotating log file that, when it cannot be written (a full disk, a removed
    folder), says so in one line once and stops, instead of logging's own multi-line
    traceback on stderr for every record: the log must never drown the program's output."""

    failed = False

    def handleError(self, record: logging.LogRecord) -> None:
        if self.failed:
            return
        self.failed = True
        error = sys.exc_info()[1]
        self._drop_stream()
        reason = (error.strerror if isinstance(error, OSError) else None) or error or "unknown error"
        try:
            sys.stderr.write(
                f"gtreview: warning: cannot write the log {self.baseFilename} ({reason}); logging stopped\n"
            )
        except Exception:  # noqa: BLE001 - stderr itself may be gone; nothing left to tell
            pass

    def _drop_stream(self) -> None:
        # Closing flushes what could not be written and fails again; the file is closed
        # all the same, and without a stream close() and shutdown have nothing to flush.
        stream, self.stream = self.stream, None
        try:
            if stream is not None:
                stream.close()
        except OSError:
            pass

    def emit(self, record: logging.LogRecord) -> None:
        if not self.failed:
            super().emit(record)


def configure_logging(level: int = logging.INFO) -> Path:
    """Attach the rotating file handler once; return the log file's path."""
    global _configured
    if _configured is not None:
        return _configured
    path = log_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handler: logging.Handler = QuietFileHandler(path, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8")
    except OSError:  # a read-only home must not stop the program
        handler = logging.NullHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(RedactingFilter())
    root = logging.getLogger("gtreview")
    root.addHandler(handler)
    root.setLevel(level)
    _configured = path
    return path
