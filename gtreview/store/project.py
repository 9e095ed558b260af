"""A project is a folder holding one SQLite database (and, later, exports).

Only :func:`create_project` makes one, when the user asks for a new project: opening
a mistyped folder, an empty ``project.sqlite`` or any other file must not quietly turn
it into a fresh, empty project the user then works in by mistake. :func:`open_project`
opens an existing project only, migrating it to the current schema (so a project
written by an older gtreview opens in a newer one), and refuses anything else in one
line, having changed nothing: the checks before the migration read the database
through a read-only connection.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util.exc import CommandError
from sqlalchemy import Connection, Engine, create_engine
from sqlalchemy.exc import DBAPIError
from sqlalchemy.pool import NullPool

from gtreview.core.errors import UserError, one_line
from gtreview.store.db import alembic_config, head_revision, make_engine, migrate
from gtreview.store.schema import schema_problems

DB_FILE = "project.sqlite"
SQLITE_HEADER = b"SQLite format 3\x00"


class ProjectError(UserError, ValueError):
    """A project folder that cannot be opened; the message is one line."""


class NoProjectError(ProjectError):
    """Nothing there to open: no folder, or no database in it (a front-end may offer
    to create a project there, which opening never does)."""


@dataclass
class Project:
    folder: Path
    engine: Engine

    @property
    def db_path(self) -> Path:
        return self.folder / DB_FILE

    def close(self) -> None:
        self.engine.dispose()


def open_project(folder: Path) -> Project:
    """Open (and migrate) the existing project in ``folder``; never creates one."""
    folder = folder.expanduser()
    db_path = project_database(folder)
    revision = _checked_revision(db_path)
    engine = make_engine(db_path)
    try:
        if revision != head_revision():
            _migrate(engine, db_path, revision)
    except BaseException:
        engine.dispose()
        raise
    return Project(folder=folder, engine=engine)


def project_database(folder: Path) -> Path:
    """The database of the project in ``folder``; NoProjectError (one line) when there is none."""
    db_path = folder / DB_FILE
    if not folder.exists():
        raise NoProjectError(f"{folder} does not exist, so it is not a gtreview project")
    if not folder.is_dir():
        raise ProjectError(f"{folder} is a file, not a project folder")
    if not db_path.is_file():
        raise NoProjectError(f"{folder} is not a gtreview project (no {DB_FILE})")
    return db_path


def create_project(folder: Path) -> Project:
    """A new, empty project in ``folder`` (made if absent); refused where a database is,
    and in a folder that holds anything else."""
    folder = folder.expanduser()
    db_path = folder / DB_FILE
    if folder.exists() and not folder.is_dir():
        raise ProjectError(f"{folder} is a file, not a folder for a project")
    if db_path.exists():
        raise ProjectError(f"{db_path} already holds a project: open it, or choose an empty folder for a new one")
    if folder.is_dir() and any(folder.iterdir()):  # never a database among the user's own files
        raise ProjectError(f"{folder} is not empty: choose a new or empty folder for the project")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ProjectError(f"cannot create {folder}: {exc.strerror or exc}") from None
    engine = make_engine(db_path)
    try:
        _migrate(engine, db_path, None)
    except BaseException:
        engine.dispose()
        for leftover in (db_path, db_path.with_name(DB_FILE + "-wal"), db_path.with_name(DB_FILE + "-shm")):
            leftover.unlink(missing_ok=True)  # ours, made a moment ago: no half-made project stays
        raise
    return Project(folder=folder, engine=engine)


def _checked_revision(db_path: Path) -> str:
    """The schema revision of a database that is a gtreview project this gtreview can
    open; anything else is refused before a byte of it is written."""
    try:
        with db_path.open("rb") as handle:
            header = handle.read(len(SQLITE_HEADER))
    except OSError as exc:
        raise ProjectError(f"{db_path} cannot be read: {exc.strerror or exc}") from None
    if not header:
        raise ProjectError(f"{db_path} is empty (0 bytes), not a gtreview project")
    if header != SQLITE_HEADER:
        raise ProjectError(f"{db_path} is not a gtreview project (not an SQLite database)")
    reader = read_only_engine(db_path)
    try:
        with reader.connect() as connection:
            revision = MigrationContext.configure(connection).get_current_revision()
            if revision is None:
                raise ProjectError(f"{db_path} is not a gtreview project (an SQLite database without its schema)")
            _check_known_revision(revision, db_path)
            if revision == head_revision():
                _check_schema(connection, db_path)
    except DBAPIError as exc:
        raise ProjectError(f"{db_path} cannot be read: {one_line(exc.orig or exc)}") from None
    finally:
        reader.dispose()
    return revision


def read_only_engine(db_path: Path) -> Engine:
    uri = f"file:{quote(str(db_path.resolve()))}?mode=ro"
    return create_engine(
        "sqlite://", creator=lambda: sqlite3.connect(uri, uri=True, check_same_thread=False), poolclass=NullPool
    )


def _check_known_revision(revision: str, db_path: Path) -> None:
    script = ScriptDirectory.from_config(alembic_config())
    try:
        script.get_revision(revision)
    except CommandError:
        raise ProjectError(
            f"{db_path} was written by a newer gtreview (schema revision {revision}); upgrade gtreview to open it"
        ) from None


def _check_schema(connection: Connection, db_path: Path) -> None:
    problems = schema_problems(connection)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise ProjectError(f"{db_path} is damaged: {problems[0]}{more}; restore it from a backup (nothing was changed)")


def _migrate(engine: Engine, db_path: Path, revision: str | None) -> None:
    """Migrate to head and check the result in the same transaction: all or nothing."""
    try:
        migrate(engine, verify=lambda connection: _check_schema(connection, db_path))
    except ProjectError:
        raise
    except Exception as exc:  # a failed step: rolled back whole, the database is as it was
        cause = one_line(exc.orig or exc) if isinstance(exc, DBAPIError) else one_line(exc)
        was = f"revision {revision}" if revision else "empty"
        raise ProjectError(
            f"cannot bring {db_path} to schema revision {head_revision()}: {cause}; it is left as it was ({was})"
        ) from exc
