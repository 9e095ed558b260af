"""The two kinds of failure every front-end treats alike.

A ``UserError``'s message is the one line the user sees (the CLI prints it and exits
non-zero, the GUI shows it as a notice); anything else is a bug, logged with its
traceback. A ``Cancelled`` is the user's own choice: the work done so far is kept.
"""

from __future__ import annotations

from gtreview.core.redaction import redact


class UserError(Exception):
    """Bad input or an action not allowed now; ``str(error)`` is the whole message."""

    exit_status = 2


class Cancelled(Exception):
    """The user stopped the work; everything finished before is stored."""

    exit_status = 130


def one_line(error: BaseException) -> str:
    """The first line of an error's message, for a status bar or a terminal; redacted,
    since an error may quote a server's reply or a URL with its password."""
    text = redact(str(error)).strip().strip("'\"")
    return text.splitlines()[0] if text else type(error).__name__
