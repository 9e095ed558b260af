"""Reading the files a user names, with a size bound that does not trust the file system.

``stat().st_size`` is 0 for ``/dev/zero``, a pipe or a file still being written, so a
size check before ``read_bytes()`` bounds nothing. :func:`read_limited` reads at most
``limit + 1`` bytes, so a file over the limit is refused after reading only that much,
whatever it claims to be. Every failure is one line naming the file.
"""

from __future__ import annotations

from pathlib import Path

from gtreview.core.errors import UserError

MIB = 1024 * 1024


class InputReadError(UserError, ValueError):
    """A named file that cannot be read; ``reason`` is the part after ``PATH: ``."""

    def __init__(self, path: Path, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"{path}: {reason}")


def read_limited(path: Path, limit: int) -> bytes:
    """The file's bytes, refused (one line) when missing, a folder or over ``limit`` bytes."""
    try:
        with Path(path).open("rb") as handle:
            data = handle.read(limit + 1)
    except FileNotFoundError:
        raise InputReadError(path, "no such file") from None
    except IsADirectoryError:
        raise InputReadError(path, "is a folder, not a file") from None
    except OSError as exc:
        raise InputReadError(path, f"cannot be read ({exc.strerror or exc})") from None
    if len(data) > limit:
        raise InputReadError(path, f"refused: larger than the {_size(limit)} limit for this kind of file")
    return data


def _size(limit: int) -> str:
    return f"{limit / MIB:g} MiB" if limit >= MIB else f"{limit:,} bytes"


MAX_DATA_FILE_BYTES = 512 * MIB
"""Largest harness answers, scores, grades or models file read; far above any real one."""

MAX_SMALL_FILE_BYTES = 16 * MIB
"""Largest price table, key or sign-off file read."""
