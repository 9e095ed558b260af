"""Logging to a rotating file in the user's log folder, for the app and the CLI alike.

Users see one-line messages; the full story (tracebacks included) goes to the log so a
problem can be diagnosed after the fact.
"""

from __future__ import annotations

import logging
import logging.handlers
from pathlib import Path

from platformdirs import user_log_path

MAX_BYTES = 1_000_000
BACKUPS = 5
_configured: Path | None = None


def log_path() -> Path:
    return user_log_path("gtreview", appauthor=False) / "gtreview.log"


def configure_logging(level: int = logging.INFO) -> Path:
    """Attach the rotating file handler once; return the log file's path."""
    global _configured
    if _configured is not None:
        return _configured
    path = log_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handler: logging.Handler = logging.handlers.RotatingFileHandler(
            path, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8"
        )
    except OSError:  # a read-only home must not stop the program
        handler = logging.NullHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger("gtreview")
    root.addHandler(handler)
    root.setLevel(level)
    _configured = path
    return path
