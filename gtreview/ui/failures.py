"""How a failed operation is said, shown and logged: the user's mistake or choice as one
line and a warning, a bug as an error with its traceback in the log."""

from __future__ import annotations

import logging
from typing import Literal, get_args

from gtreview.core.errors import Cancelled, UserError, one_line

log = logging.getLogger("gtreview.ui.ops")  # the operations' logger, as before the move

NoticeKind = Literal["info", "success", "warning", "error"]
NOTICE_KINDS: tuple[str, ...] = get_args(NoticeKind)


def is_expected(error: BaseException) -> bool:
    """The user's own mistake or choice: said in one line, never logged as a bug."""
    return isinstance(error, (UserError, Cancelled))


def failure_message(error: BaseException) -> str:
    """The line the user sees: a ``UserError`` as it is; anything else names its type."""
    if is_expected(error):
        return one_line(error)
    return f"{type(error).__name__}: {one_line(error)} (details in the log)"


def failure_kind(error: BaseException) -> NoticeKind:
    """How a failure is shown: the user's own mistake or choice as a warning, a bug as an error."""
    return "warning" if is_expected(error) else "error"


def log_failure(error: BaseException, what: str = "operation") -> None:
    """Every failure of a worker goes to the log: a bug as an error with its traceback, a
    refusal ("No pass yet") or cancellation at INFO in one line (a traceback each buries bugs)."""
    if isinstance(error, Cancelled):
        log.info("%s cancelled: %s", what, one_line(error))
    elif isinstance(error, UserError):
        log.info("%s refused: %s", what, one_line(error))
    else:
        exc_info = (type(error), error, error.__traceback__)
        log.error("%s failed: %s", what, one_line(error), exc_info=exc_info)
