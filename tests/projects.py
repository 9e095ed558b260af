"""Projects for tests, made the one way a user makes one: explicitly, as new."""

from __future__ import annotations

from pathlib import Path

from gtreview.store.project import DB_FILE, create_project


def new_project(folder: Path) -> Path:
    """``folder`` as an empty project (as ``gtreview project new`` makes it), unless it is one."""
    if not (folder / DB_FILE).exists():
        create_project(folder).close()
    return folder
