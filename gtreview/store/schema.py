"""Is a database at the head revision really the schema gtreview expects?

``PRAGMA integrity_check`` says nothing when a table was dropped by hand or a tool, and
Alembic only reads ``alembic_version``: such a project would open, and the first write
to the missing table would fail half-way through a use case. So every open compares
the tables and columns of the database with the ones the table classes declare (which
describe the head revision exactly; tests/store compares them) and refuses a mismatch,
and its indexes and triggers with the ones the migrations make (``schema_structure``).
"""

from __future__ import annotations

from sqlalchemy import Connection, inspect
from sqlmodel import SQLModel

import gtreview.store.tables  # noqa: F401 - registers every table class in the metadata
from gtreview.store.schema_structure import structure_problems


def schema_problems(connection: Connection) -> list[str]:
    """What the database lacks, one short phrase each ([] when it is complete).

    Extra tables or columns are not problems: a newer revision's additions are caught
    by the revision check, and SQLite's own tables are no concern of ours."""
    inspector = inspect(connection)
    present = set(inspector.get_table_names())
    problems: list[str] = []
    for name, table in sorted(SQLModel.metadata.tables.items()):
        if name not in present:
            problems.append(f"table {name} is missing")
            continue
        columns = {column["name"] for column in inspector.get_columns(name)}
        problems += [f"column {name}.{c.name} is missing" for c in table.columns if c.name not in columns]
    return problems + structure_problems(connection)
