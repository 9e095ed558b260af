"""Writing output files so that a failed write never destroys the previous good one.

What the user names as an output decides how it is written, as ``cp`` or ``tee`` would:

- a regular file (or a new name): written to a temporary file in the same folder and
  renamed over the target only once it is complete and flushed to disk, so a full
  disk, a crash or a killed process leaves the old file as it was (and no half-written
  one beside it);
- a symbolic link: followed on purpose; the file it points to is replaced that way and
  the link is kept (a link to nothing yet creates the file it names);
- ``-``: standard output; a device (``/dev/null``, a terminal), a named pipe or any
  other path that is not a regular file (a link to ``/proc/self/fd/1``): written
  through, in place, once the whole output is ready. A device is never replaced by a
  file, whoever runs the program, and a write it refuses (``/dev/full``) is one line.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from gtreview.core.errors import UserError

STDOUT = Path("-")
"""The output name that means standard output."""

OUTPUT_HELP = (
    "'-' writes to standard output; a device or a named pipe is written to in place; "
    "a symbolic link is followed and the file it points to is replaced"
)
"""What every output option says about its target (the CLI adds it to their help)."""


class OutputFileError(UserError):
    """An output that cannot be written (no such folder, no permission, a full disk)."""


@contextlib.contextmanager
def atomic_path(target: Path, *, mode: int | None = None) -> Iterator[Path]:
    """A temporary path to write the whole output to; it becomes ``target`` on success.

    For a regular file it lies beside the target and is renamed onto it. ``mode``: the
    file's permissions (default: those of the file it replaces, else what the umask
    allows). The temporary is private (0600) until the mode is set, so a private key
    written with ``mode=0o600`` is never readable by anyone else. For what is not a
    regular file (see the module) it is a private file in the temporary folder, copied
    through to the target when complete, and ``mode`` does not apply."""
    if _written_through(target):
        with _through(target) as temporary:
            yield temporary
        return
    target = _followed(target)
    if target.is_dir():  # the rename would say "Device or resource busy" for "."
        raise OutputFileError(f"cannot write {target}: it is a folder; name a file to write")
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


def _written_through(target: Path) -> bool:
    """Standard output, or a path that names something other than a regular file or a
    folder (a folder is refused by the rename, as before), or a regular file that its
    path does not name (``/proc/self/fd/1`` redirected to a file that was deleted)."""
    if target == STDOUT:
        return True
    try:
        found = os.stat(target)  # through links
    except OSError:
        return False  # nothing there yet (or a path the rename will refuse in one line)
    if stat.S_ISDIR(found.st_mode):
        return False
    if not stat.S_ISREG(found.st_mode):
        return True
    try:
        named = os.stat(_followed(target))
    except (OSError, OutputFileError):
        return True
    return (named.st_dev, named.st_ino) != (found.st_dev, found.st_ino)


def _followed(target: Path) -> Path:
    """The path a symbolic link leads to (the target itself when it is none); a link
    to a link is followed to the end. (A linked folder on the way needs nothing: the
    temporary beside the target is in the same real folder either way.)"""
    if not target.is_symlink():
        return target
    try:
        return target.resolve()
    except (OSError, RuntimeError) as exc:  # a loop of links
        raise OutputFileError(f"cannot write {target}: {getattr(exc, 'strerror', None) or exc}") from None


@contextlib.contextmanager
def _through(target: Path) -> Iterator[Path]:
    shown = "standard output" if target == STDOUT else str(target)
    try:
        descriptor, name = tempfile.mkstemp(prefix="gtreview-output.", suffix=".partial")
    except OSError as exc:
        raise OutputFileError(f"cannot write {shown}: no room for the output ({exc.strerror or exc})") from None
    os.close(descriptor)
    temporary = Path(name)
    try:
        yield temporary
        with temporary.open("rb") as source:
            if target == STDOUT:
                _flush_stdout()  # what was printed before comes first
                with open(1, "wb", closefd=False) as out:  # the process's own, even when sys.stdout is redirected
                    shutil.copyfileobj(source, out)
            else:
                # no O_CREAT: what is there is written to, never replaced by a new file
                with open(os.open(target, os.O_WRONLY | os.O_TRUNC | os.O_NOCTTY), "wb") as out:
                    shutil.copyfileobj(source, out)
    except BrokenPipeError:
        if target == STDOUT:
            raise  # the reader went away (`| head`): the CLI stops quietly, as Unix tools do
        raise OutputFileError(f"cannot write {shown}: nobody reads the pipe any more") from None
    except OSError as exc:
        raise OutputFileError(f"cannot write {shown}: {exc.strerror or exc}") from exc
    finally:
        temporary.unlink(missing_ok=True)


def _flush_stdout() -> None:
    for stream in {id(s): s for s in (sys.stdout, sys.__stdout__) if s is not None}.values():
        stream.flush()


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
