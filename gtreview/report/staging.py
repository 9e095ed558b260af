"""Writing a folder all at once: assembled in a hidden sibling, then renamed into place.

An interrupted write (an error, Ctrl-C) removes its staging folder; a killed one
(SIGKILL, a power cut) cannot, so the next write to the same folder removes the
staging folders whose process is gone. Nothing half-written is ever left under the
chosen name, and nothing hidden piles up beside it.
"""

from __future__ import annotations

import os
import secrets
import shutil
import time
from pathlib import Path

from gtreview.processes import pid_alive

_ABANDONED_AFTER_S = 3600.0  # where a process cannot be asked about (Windows): an hour-old folder


def _abandoned(folder: Path, pid: str) -> bool:
    if os.name == "nt":  # os.kill(pid, 0) would terminate it there: go by age
        return time.time() - folder.stat().st_mtime > _ABANDONED_AFTER_S
    return pid.isdigit() and int(pid) != os.getpid() and not pid_alive(int(pid))


def remove_abandoned_staging(out_dir: Path) -> None:
    """Remove the staging folders of earlier writes to ``out_dir`` that were killed."""
    prefix = f".{out_dir.name}.partial-"
    if not out_dir.parent.is_dir():
        return
    for folder in out_dir.parent.iterdir():
        if folder.name.startswith(prefix) and folder.is_dir() and not folder.is_symlink():
            pid = folder.name[len(prefix) :].partition("-")[0]
            if _abandoned(folder, pid):
                shutil.rmtree(folder, ignore_errors=True)


def write_folder_atomically(out_dir: Path, contents: dict[str, bytes]) -> None:
    """Write ``contents`` (file name -> bytes) as the folder ``out_dir`` (absent or empty)."""
    remove_abandoned_staging(out_dir)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = out_dir.parent / f".{out_dir.name}.partial-{os.getpid()}-{secrets.token_hex(4)}"
    staging.mkdir()
    try:
        for name, data in contents.items():
            (staging / name).write_bytes(data)
        if out_dir.exists():
            out_dir.rmdir()  # empty (checked); rename cannot replace a folder everywhere
        staging.rename(out_dir)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
