"""Writing output files so that a failed write never destroys the previous good one.

Every export is written to a temporary file in the same folder and renamed over the
target only once it is complete and flushed to disk: a full disk, a crash or a
killed process leaves the old file as it was (and no half-written one beside it).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

from gtreview.core.errors import UserError


class OutputFileError(UserError):
    """An output that cannot be written (no such folder, no permission, a full disk)."""


@contextlib.contextmanager
def atomic_path(target: Path, *, mode: int | None = None) -> Iterator[Path]:
    """A temporary path beside ``target`` to write to; renamed onto ``target`` on success.

    ``mode``: the file's permissions (default: those of the file it replaces, else what
    the umask allows). The temporary is private (0600) until the mode is set, so a
    private key written with ``mode=0o600`` is never readable by anyone else."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        descriptor, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".partial", dir=target.parent)
    except OSError as exc:
        raise OutputFileError(f"cannot write {target}: {exc.strerror or exc}") from None
    os.close(descriptor)
    temporary = Path(name)
    try:
        # mkstemp makes the file private (0600); an export is as readable as any file the
        # user writes (the mode an existing target has, else what the umask allows)
        os.chmod(temporary, _mode_for(target) if mode is None else mode)
        yield temporary
        with temporary.open("rb+") as handle:
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    except OSError as exc:  # the old file is untouched; name the target, not the temporary
        raise OutputFileError(f"cannot write {target}: {exc.strerror or exc}") from exc
    finally:
        temporary.unlink(missing_ok=True)


def _mode_for(target: Path) -> int:
    try:
        return target.stat().st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def write_text_atomic(target: Path, text: str) -> Path:
    with atomic_path(target) as temporary:
        temporary.write_text(text, encoding="utf-8", newline="")
    return target


def write_bytes_atomic(target: Path, data: bytes) -> Path:
    with atomic_path(target) as temporary:
        temporary.write_bytes(data)
    return target
