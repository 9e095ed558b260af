"""Files that are not regular files (devices, named pipes), for the tests of every
reader of inputs and writer of outputs.

As root, the tests write to their own copies of ``/dev/null`` and ``/dev/full``
(device nodes made in the test's folder), never to the system's: a writer that
replaced its target would otherwise replace the machine's ``/dev/null`` for every
other process. Without root the system's devices are safe to use (nobody else can
replace them), and a test checks that they are still devices afterwards.
"""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

NULL, FULL = (1, 3), (1, 7)  # Linux's major and minor numbers of /dev/null and /dev/full


def device(folder: Path, name: str) -> Path:
    """A character device that behaves as ``/dev/<name>`` (``null`` or ``full``)."""
    system = Path("/dev") / name
    if os.geteuid() != 0:
        if not system.is_char_device():
            pytest.skip(f"no {system} here")
        return system
    own = folder / f"dev-{name}"
    major, minor = NULL if name == "null" else FULL
    try:
        os.mknod(own, stat.S_IFCHR | 0o666, os.makedev(major, minor))
        with own.open("wb"):
            pass  # a folder mounted nodev refuses to open devices
    except OSError as exc:
        pytest.skip(f"cannot make a private /dev/{name} as root ({exc.strerror}); the system's is not risked")
    return own


def is_device(path: Path) -> bool:
    return stat.S_ISCHR(os.lstat(path).st_mode)


def is_fifo(path: Path) -> bool:
    return stat.S_ISFIFO(os.lstat(path).st_mode)


@contextmanager
def fifo_reader(folder: Path, name: str = "pipe") -> Iterator[tuple[Path, list[bytes]]]:
    """A named pipe with a reader thread; after the block, the list holds what it read.

    The test holds both ends open while it writes (so that neither the reader nor a
    writer waits for the other), and closes its end after the block: the reader then
    sees the end of what the writer sent, or nothing if it never wrote to the pipe."""
    path = folder / name
    os.mkfifo(path)
    keeper = os.open(path, os.O_RDWR)  # Linux: a pipe opened for both never waits
    end = os.open(path, os.O_RDONLY)
    received: list[bytes] = []

    def read() -> None:
        with os.fdopen(end, "rb") as pipe:
            received.append(pipe.read())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        yield path, received
    finally:
        os.close(keeper)
        reader.join(30)
    assert not reader.is_alive()


@contextmanager
def fifo_writer(folder: Path, data: bytes, name: str = "pipe") -> Iterator[Path]:
    """A named pipe that a thread would feed ``data`` to, once something opens it to read
    (code that must refuse a pipe never does: the thread is let go after the block)."""
    path = folder / name
    os.mkfifo(path)

    def write() -> None:
        try:
            with path.open("wb") as pipe:  # waits for a reader
                pipe.write(data)
        except OSError:
            pass  # let go after the block, with nobody reading

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    try:
        yield path
    finally:
        if writer.is_alive():
            try:
                os.close(os.open(path, os.O_RDONLY | os.O_NONBLOCK))  # lets the writer's open return
            except OSError:
                pass
        writer.join(30)
    assert not writer.is_alive()
