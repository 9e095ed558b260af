"""Outputs written as ``cp`` or ``tee`` would: a device, a pipe or standard output is
written to in place, a symbolic link is followed (the file it names is replaced, the
link kept), and a regular file is replaced whole (tests/report/test_atomic_writes.py)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from gtreview.files import STDOUT, OutputFileError, atomic_path, write_bytes_atomic, write_text_atomic
from tests.special_files import device, fifo_reader, is_device, is_fifo


def test_a_device_is_written_to_not_replaced(tmp_path: Path) -> None:
    null = device(tmp_path, "null")
    write_text_atomic(null, "rows\n")
    assert is_device(null)
    assert [p for p in tmp_path.iterdir() if p != null] == []  # nothing made beside it


def test_a_full_device_is_one_line_and_stays_a_device(tmp_path: Path) -> None:
    full = device(tmp_path, "full")
    with pytest.raises(OutputFileError, match=rf"^cannot write {full}: No space left on device$"):
        write_text_atomic(full, "rows\n" * 10_000)
    assert is_device(full)


def test_a_named_pipe_gets_the_whole_output_and_stays_a_pipe(tmp_path: Path) -> None:
    data = os.urandom(300_000)  # more than a pipe holds at once
    with fifo_reader(tmp_path) as (pipe, received):
        write_bytes_atomic(pipe, data)
    assert received == [data]
    assert is_fifo(pipe)


def test_dash_is_standard_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfdbinary: pytest.CaptureFixture[bytes]
) -> None:
    monkeypatch.chdir(tmp_path)  # where a file named "-" would be made
    print("before", flush=False)  # printed earlier: comes out first
    write_text_atomic(STDOUT, "a,b\n1,2\n")
    out = capfdbinary.readouterr().out
    assert out == b"before\na,b\n1,2\n"
    assert list(tmp_path.iterdir()) == []


def test_a_link_is_followed_and_kept(tmp_path: Path) -> None:
    real = tmp_path / "real.csv"
    real.write_text("old\n", encoding="utf-8")
    real.chmod(0o640)
    link = tmp_path / "link.csv"
    link.symlink_to("real.csv")  # relative, as people make them
    write_text_atomic(link, "new\n")
    assert link.is_symlink() and os.readlink(link) == "real.csv"
    assert real.read_text(encoding="utf-8") == "new\n" and stat.S_IMODE(real.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.csv", "real.csv"]  # no temporary left


def test_a_link_to_nothing_yet_creates_the_file_it_names(tmp_path: Path) -> None:
    link = tmp_path / "link.csv"
    link.symlink_to(tmp_path / "sub" / "made.csv")
    write_text_atomic(link, "new\n")
    assert link.is_symlink() and (tmp_path / "sub" / "made.csv").read_text(encoding="utf-8") == "new\n"


def test_a_link_to_a_link_to_a_device_writes_to_the_device(tmp_path: Path) -> None:
    null = device(tmp_path, "null")
    first = tmp_path / "first"
    first.symlink_to(null)
    second = tmp_path / "second"
    second.symlink_to(first)
    write_text_atomic(second, "x")
    assert second.is_symlink() and first.is_symlink() and is_device(null)


def test_a_link_to_standard_output_writes_there(tmp_path: Path, capfdbinary: pytest.CaptureFixture[bytes]) -> None:
    # under capture, fd 1 is a deleted temporary file: the path the link resolves to
    # names no file, so the output goes through the descriptor, not to a new file
    link = tmp_path / "out"
    link.symlink_to("/proc/self/fd/1")
    write_text_atomic(link, "to stdout\n")
    assert capfdbinary.readouterr().out == b"to stdout\n"
    assert link.is_symlink() and sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_a_loop_of_links_is_one_line(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.symlink_to(b)
    b.symlink_to(a)
    with pytest.raises(OutputFileError, match=r"cannot write .*a: "):
        write_text_atomic(a, "x")
    assert a.is_symlink() and b.is_symlink()


def test_a_private_file_through_a_link_is_private(tmp_path: Path) -> None:
    link = tmp_path / "key"
    link.symlink_to(tmp_path / "real.key")
    with atomic_path(link, mode=0o600) as temporary:
        temporary.write_bytes(b"secret")
    assert stat.S_IMODE((tmp_path / "real.key").stat().st_mode) == 0o600 and link.is_symlink()


def test_a_failed_write_to_a_device_leaves_no_temporary(tmp_path: Path) -> None:
    import tempfile

    full = device(tmp_path, "full")
    before = set(Path(tempfile.gettempdir()).glob("gtreview-output.*"))
    with pytest.raises(OutputFileError):
        write_text_atomic(full, "x")
    assert set(Path(tempfile.gettempdir()).glob("gtreview-output.*")) == before


def test_a_folder_as_the_target_is_named_as_a_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``-o .`` had said "Device or resource busy" (the rename onto a folder)."""
    monkeypatch.chdir(tmp_path)
    for folder in (Path("."), tmp_path):
        with pytest.raises(OutputFileError, match=r"it is a folder; name a file to write$"):
            write_text_atomic(folder, "x")
    assert list(tmp_path.iterdir()) == []  # no temporary left behind
