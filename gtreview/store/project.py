"""A project is a folder holding one SQLite database (and, later, exports).

Opening a project migrates its database to the current schema, so a project
written by an older gtreview opens in a newer one.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from alembic.script import ScriptDirectory
from alembic.util.exc import CommandError
from sqlalchemy import Engine

from gtreview.core.errors import UserError
from gtreview.store.db import alembic_config, current_revision, head_revision, make_engine, migrate

DB_FILE = "project.sqlite"


class ProjectError(UserError, ValueError):
    """A project folder that cannot be opened; the message is one line."""


@dataclass
class Project:
    folder: Path
    engine: Engine

    @property
    def db_path(self) -> Path:
        return self.folder / DB_FILE

    def close(self) -> None:
        self.engine.dispose()


def open_project(folder: Path, *, create: bool = True) -> Project:
    """Open (and migrate) the project in ``folder``; create it when asked and absent."""
    folder = folder.expanduser()
    if folder.exists() and not folder.is_dir():
        raise ProjectError(f"{folder} is a file, not a project folder")
    db_path = folder / DB_FILE
    if not db_path.exists() and not create:
        raise ProjectError(f"{folder} is not a gtreview project (no {DB_FILE})")
    folder.mkdir(parents=True, exist_ok=True)
    engine = make_engine(db_path)
    revision = current_revision(engine)
    if revision != head_revision():
        _check_known_revision(revision, db_path)
        migrate(engine)
    return Project(folder=folder, engine=engine)


def _check_known_revision(revision: str | None, db_path: Path) -> None:
    if revision is None:
        return
    script = ScriptDirectory.from_config(alembic_config())
    try:
        script.get_revision(revision)
    except CommandError:
        raise ProjectError(
            f"{db_path} was written by a newer gtreview (schema revision {revision}); upgrade gtreview to open it"
        ) from None
