"""The indexes and triggers of a project, against what the migrations create.

Tables and columns are compared with the table classes (``store.schema``), but the rules
the database itself enforces are not in those classes: the unique indexes that keep a
content key or a version number from being stored twice, and the triggers that keep the
review log append-only and sign-offs frozen. A tool that drops one leaves a project that
opens and works, minus a guarantee. So the reference is what the migrations make: they
run once per process on an empty in-memory database, and a project's indexes (by their
table, columns and uniqueness; a named one by its name too) and triggers (by name and
SQL) are compared with it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from alembic import command
from sqlalchemy import Connection, create_engine
from sqlalchemy.pool import StaticPool

from gtreview.store import db


@dataclass(frozen=True)
class IndexShape:
    table: str
    name: str
    unique: bool
    columns: tuple[str, ...]

    @property
    def automatic(self) -> bool:
        """Made by SQLite for a UNIQUE constraint or a primary key (its name is SQLite's)."""
        return self.name.startswith("sqlite_autoindex_")

    def key(self) -> tuple[str, bool, tuple[str, ...]]:
        return self.table, self.unique, self.columns


@dataclass(frozen=True)
class Structure:
    indexes: frozenset[IndexShape]
    triggers: dict[str, tuple[str, str]]  # name -> (table, SQL with its spacing normalised)


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def read_structure(connection: Connection) -> Structure:
    """The indexes and triggers of the database on ``connection``."""
    tables = [
        row[0]
        for row in connection.exec_driver_sql(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        )
    ]
    indexes = set()
    for table in tables:
        for row in connection.exec_driver_sql(f"PRAGMA index_list({_quoted(table)})").all():
            name, unique = str(row[1]), bool(row[2])
            columns = tuple(
                str(info[2]) for info in connection.exec_driver_sql(f"PRAGMA index_info({_quoted(name)})").all()
            )
            indexes.add(IndexShape(table, name, unique, columns))
    triggers = {
        str(name): (str(table), re.sub(r"\s+", " ", str(sql or "")).strip())
        for name, table, sql in connection.exec_driver_sql(
            "SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'trigger'"
        ).all()
    }
    return Structure(frozenset(indexes), triggers)


def migrated_structure() -> Structure:
    """What the migrations make, read from an empty in-memory database migrated to head
    (once per process and migrations folder)."""
    return _migrated(str(db.MIGRATIONS_DIR))


@cache
def _migrated(_folder: str) -> Structure:
    engine = create_engine("sqlite://", poolclass=StaticPool)
    try:
        with engine.begin() as connection:
            config = db.alembic_config()
            config.attributes["connection"] = connection
            command.upgrade(config, "head")
            return read_structure(connection)
    finally:
        engine.dispose()


def structure_problems(connection: Connection) -> list[str]:
    """The indexes and triggers the migrations make that the database lacks or has
    changed, one short phrase each. Extra ones are not problems (a newer revision's)."""
    expected, present = migrated_structure(), read_structure(connection)
    shapes = {index.key() for index in present.indexes}
    names = {index.name: index for index in present.indexes if not index.automatic}
    problems = []
    for index in sorted(expected.indexes, key=lambda i: (i.table, i.name)):
        columns = ", ".join(index.columns)
        if index.automatic:
            if index.key() not in shapes:
                problems.append(f"the unique index on {index.table}({columns}) is missing")
        elif index.name not in names:
            problems.append(f"index {index.name} on {index.table}({columns}) is missing")
        elif names[index.name].key() != index.key():
            unique = "unique " if index.unique else ""
            problems.append(f"index {index.name} is no longer the {unique}index on {index.table}({columns})")
    for name, (table, sql) in sorted(expected.triggers.items()):
        if name not in present.triggers:
            problems.append(f"trigger {name} on {table} is missing")
        elif present.triggers[name] != (table, sql):
            problems.append(f"trigger {name} on {table} was changed")
    return problems


__all__ = ["IndexShape", "Structure", "migrated_structure", "read_structure", "structure_problems"]
