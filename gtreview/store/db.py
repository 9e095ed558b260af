"""Engine factory and schema migration for project databases.

SQLite in WAL mode (readers never block the writer, a crash loses at most the
transaction in flight) with foreign keys enforced on every connection.

Several processes may write one project (the GUI and a script, two experts on a shared
folder, a pass beside an import). SQLite has one writer at a time, so a writer waits its
turn (``BUSY_TIMEOUT_MS``) rather than failing, and every read-then-write unit of work
takes the write lock first (``unit_of_work``) so what it read cannot change under it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine, create_engine, event
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
def unit_of_work(engine: Engine) -> Iterator[Session]:
    """One intent's write transaction: the write lock from its first statement (BEGIN
    IMMEDIATE), committed when the block ends, rolled back if it raises.

    An app intent reads what it decides on, applies the rules and writes the outcome in
    it, so no other process's change falls between a check and its write (a version
    number read is still the latest when the next one is written). Starting as a writer
    also avoids SQLite's deadlock on upgrade: a deferred transaction that has read and
    then wants to write, after another writer committed, fails at once (the busy timeout
    does not apply); one that starts as a writer simply waits. Never open one inside
    another on the same engine: the inner one waits for the outer's lock until the busy
    timeout, then fails.
    Objects read in it stay readable after the commit (they are not expired)."""
    with Session(engine) as session:
        session.expire_on_commit = False
        connection = session.connection()
        if not connection.connection.dbapi_connection.in_transaction:  # type: ignore[union-attr]
            connection.exec_driver_sql("BEGIN IMMEDIATE")  # pysqlite itself would begin deferred, and late
        yield session
        session.commit()


@contextmanager
def reading(engine: Engine) -> Iterator[Session]:
    """A session for reads only; it writes nothing (leaving it rolls back)."""
    with Session(engine) as session:
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


def migrate(engine: Engine, revision: str = "head", *, verify: Callable[[Connection], None] | None = None) -> None:
    """Bring the database to ``revision`` (head by default) in one transaction: a step
    that fails, or a ``verify`` that raises, rolls every step back, so the database is
    left at the revision it had (never half-migrated, unopenable for good).

    SQLite's DDL is transactional, but pysqlite only begins a transaction before an
    INSERT/UPDATE/DELETE: a migration's CREATE TABLE ran in autocommit and stayed when a
    later step failed ("table run already exists" on every later try). So the BEGIN is
    issued here, before the first step. Foreign keys are off while the steps run (as
    SQLite's ALTER TABLE procedure asks: a batch step copies a table and drops the old
    one, which would cascade into the rows that refer to it) and checked before commit.
    """
    config = alembic_config()
    with engine.connect() as connection:
        raw = connection.connection.dbapi_connection
        assert raw is not None
        # on the driver's connection, outside any transaction a begin hook might open:
        # inside one, SQLite ignores this pragma
        _driver_pragma(raw, "foreign_keys=OFF")
        try:
            with connection.begin():
                if not raw.in_transaction:
                    connection.exec_driver_sql("BEGIN IMMEDIATE")  # unless a begin hook already did
                config.attributes["connection"] = connection
                command.upgrade(config, revision)
                _check_foreign_keys(connection)
                if verify is not None:
                    verify(connection)
        finally:
            _driver_pragma(raw, "foreign_keys=ON")


def _driver_pragma(raw: Any, pragma: str) -> None:
    cursor = raw.cursor()
    try:
        cursor.execute(f"PRAGMA {pragma}")
    finally:
        cursor.close()


class MigrationError(Exception):
    """A migration that would leave rows pointing at rows that are not there."""


def _check_foreign_keys(connection: Connection) -> None:
    broken = connection.exec_driver_sql("PRAGMA foreign_key_check").all()
    if broken:
        table, rowid, parent = broken[0][0], broken[0][1], broken[0][2]
        raise MigrationError(f"{len(broken)} rows refer to missing rows (first: {table} row {rowid} -> {parent})")
