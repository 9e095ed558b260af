"""Engine factory and schema migration for project databases.

SQLite in WAL mode (readers never block the writer, a crash loses at most the
transaction in flight) with foreign keys enforced on every connection.

Several processes may write one project (the GUI and a script, two experts on a shared
folder, a pass beside an import). SQLite has one writer at a time, so a writer waits its
turn (``BUSY_TIMEOUT_MS``) rather than failing, and every read-then-write unit of work
takes the write lock first (``write_session``) so what it read cannot change under it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, create_engine, event
from sqlmodel import Session

MIGRATIONS_DIR = Path(__file__).with_name("migrations")

# How long a writer waits for another's transaction before "database is locked". Writers
# keep their transactions short (imports commit in batches), so this is headroom for a
# slow shared disk and a busy machine, not a wait anyone should see.
BUSY_TIMEOUT_MS = 30_000


def _set_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    cursor.close()


def make_engine(db_path: Path) -> Engine:
    """An engine on ``db_path`` with gtreview's pragmas; does not migrate."""
    engine = create_engine(f"sqlite:///{db_path}", connect_args={"check_same_thread": False})
    event.listen(engine, "connect", _set_pragmas)
    return engine


@contextmanager
def write_session(engine: Engine) -> Iterator[Session]:
    """A session that holds the write lock from its first statement (BEGIN IMMEDIATE).

    Reads and writes of one unit of work then see no other writer in between, so a
    version number read is still the latest when the next one is written. It also avoids
    SQLite's deadlock on upgrade: a deferred transaction that has read and then wants to
    write, after another writer committed, fails at once (the busy timeout does not
    apply); one that starts as a writer simply waits. Commit inside; leaving without a
    commit rolls everything back.
    """
    with Session(engine) as session:
        connection = session.connection()
        if not connection.connection.dbapi_connection.in_transaction:  # type: ignore[union-attr]
            connection.exec_driver_sql("BEGIN IMMEDIATE")  # pysqlite itself would begin deferred, and late
        yield session


def alembic_config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    return config


def head_revision() -> str:
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None
    return head


def current_revision(engine: Engine) -> str | None:
    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def migrate(engine: Engine, revision: str = "head") -> None:
    """Bring the database to ``revision`` (head by default) in one transaction."""
    config = alembic_config()
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, revision)
