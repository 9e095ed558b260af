"""Reading the files a user names, with a size bound that does not trust the file system.

``stat().st_size`` is 0 for ``/dev/zero``, a pipe or a file still being written, so a
size check before ``read_bytes()`` bounds nothing. :func:`read_limited` reads at most
``limit + 1`` bytes, so a file over the limit is refused after reading only that much,
whatever it claims to be; and what is not a regular file (a named pipe, a device) is
refused before it is opened. Every failure is one line naming the file. Every input a
user names is read here (rubrics, harness files, grades, models.json, price tables,
held-out controls, corpus files, keys and trusted-keys files).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from gtreview.core.errors import UserError

MIB = 1024 * 1024


class InputReadError(UserError, ValueError):
    """A named file that cannot be read; ``reason`` is the part after ``PATH: ``."""

    def __init__(self, path: Path, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"{path}: {reason}")


NO_SUCH_FILE = "no such file"


def check_regular_file(path: Path) -> None:
    """Refuse (one line) what is not a regular file, before anything opens it: opening a
    named pipe for reading waits for a writer (forever, if none comes), a device such as
    ``/dev/zero`` never ends, and a folder or a socket cannot be read as a file."""
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        raise InputReadError(path, NO_SUCH_FILE) from None
    except OSError as exc:
        raise InputReadError(path, f"cannot be read ({exc.strerror or exc})") from None
    _check_mode(path, mode)


def _check_mode(path: Path, mode: int) -> None:
    if stat.S_ISDIR(mode):
        raise InputReadError(path, "is a folder, not a file")
    if not stat.S_ISREG(mode):
        raise InputReadError(path, f"is not a regular file ({_kind(mode)})")


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a file"


def read_at_most(path: Path, limit: int) -> bytes:
    """At most ``limit + 1`` bytes of a regular file (the caller refuses more, in its own
    words); what is not a regular file is refused first (:func:`check_regular_file`)."""
    check_regular_file(path)
    try:
        # O_NONBLOCK: a named pipe put there since the check is opened without waiting,
        # and refused below; a regular file reads the same either way
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        raise InputReadError(path, NO_SUCH_FILE) from None
    except IsADirectoryError:
        raise InputReadError(path, "is a folder, not a file") from None
    except OSError as exc:
        raise InputReadError(path, f"cannot be read ({exc.strerror or exc})") from None
    with os.fdopen(descriptor, "rb") as handle:
        _check_mode(path, os.fstat(descriptor).st_mode)
        try:
            return handle.read(limit + 1)
        except OSError as exc:
            raise InputReadError(path, f"cannot be read ({exc.strerror or exc})") from None


def read_limited(path: Path, limit: int) -> bytes:
    """The file's bytes, refused (one line) when missing, not a regular file or over ``limit`` bytes."""
    data = read_at_most(path, limit)
    if len(data) > limit:
        raise InputReadError(path, f"refused: larger than the {_size(limit)} limit for this kind of file")
    return data


def _size(limit: int) -> str:
    return f"{limit / MIB:g} MiB" if limit >= MIB else f"{limit:,} bytes"


MAX_DATA_FILE_BYTES = 512 * MIB
"""Largest harness answers, scores, grades or models file read; far above any real one."""

MAX_SMALL_FILE_BYTES = 16 * MIB
"""Largest price table, key or sign-off file read."""
