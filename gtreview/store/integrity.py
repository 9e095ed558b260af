"""Everything wrong with a project's database, named one line each (``gtreview project check``).

Opening a project refuses a schema that lacks a table, a column, an index or a trigger
(``store.schema``), but reads nothing else. This reads it all, through a read-only
connection, and reports every problem rather than the first:

* SQLite's own check of its pages and indexes (``PRAGMA quick_check``);
* the schema against the table classes and what the migrations make;
* rows that refer to rows that are not there (``PRAGMA foreign_key_check``);
* content against the hash stored with it: every question version, every sign-off's
  frozen rubric and every corpus page's text (revision 0011), so a byte changed by a
  tool or a bad disk is named where it is.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sqlalchemy import Connection

from gtreview.core.jsonmodel import canonical_hash
from gtreview.store.corpus_repo import text_sha256
from gtreview.store.db import head_revision
from gtreview.store.project import open_project, project_database, read_only_engine
from gtreview.store.schema import schema_problems

BATCH = 500  # rows read at a time: a 200 MB corpus is hashed in bounded memory
MAX_SQLITE_LINES = 20  # quick_check can list every damaged page; the first ones say enough


def project_problems(folder: Path) -> list[str]:
    """Every problem of the project in ``folder`` ([] when there is none). A project of
    an older revision is brought to the current one first, as opening it would; one that
    cannot be is refused in one line (ProjectError), as are a folder that is no project
    and a file that is not a database."""
    db_path = project_database(folder.expanduser())
    engine = read_only_engine(db_path)
    try:
        with engine.connect() as connection:
            current = _revision(connection)
    finally:
        engine.dispose()
    if current != head_revision():
        open_project(folder).close()  # migrates, or says in one line why it cannot
    engine = read_only_engine(db_path)
    try:
        with engine.connect() as connection:
            return database_problems(connection)
    finally:
        engine.dispose()


def _revision(connection: Connection) -> str | None:
    try:
        row = connection.exec_driver_sql("SELECT version_num FROM alembic_version").first()
    except Exception:  # noqa: BLE001 - no such table: not a project; opening says so in its words
        return None
    return str(row[0]) if row is not None else None


def database_problems(connection: Connection) -> list[str]:
    """The problems of the database on ``connection``, one line each."""
    sqlite = [str(row[0]) for row in connection.exec_driver_sql("PRAGMA quick_check").all()]
    problems = [f"SQLite: {line}" for line in sqlite[:MAX_SQLITE_LINES] if line != "ok"]
    schema = schema_problems(connection)
    problems += schema
    if schema:  # the content checks below read those tables and columns
        return problems
    problems += _dangling_rows(connection)
    problems += _damaged_versions(connection)
    problems += _damaged_signoffs(connection)
    problems += _damaged_pages(connection)
    return problems


def _dangling_rows(connection: Connection) -> list[str]:
    rows = connection.exec_driver_sql("PRAGMA foreign_key_check").all()
    return [f"{table} row {rowid} refers to a missing {parent} row" for table, rowid, parent, *_ in rows]


def _batches(connection: Connection, sql: str) -> Iterator[list[Any]]:
    """The rows of ``sql`` (which selects ``id`` first and has ``:last``/``:n`` bounds), a batch at a time."""
    last = 0
    while True:
        rows = connection.exec_driver_sql(sql, {"last": last, "n": BATCH}).all()
        if not rows:
            return
        yield list(rows)
        last = rows[-1][0]


def _json_hash(text: str) -> str | None:
    try:
        return canonical_hash(json.loads(text))
    except ValueError:
        return None


def _damaged_versions(connection: Connection) -> list[str]:
    sql = (
        "SELECT v.id, s.name, q.qid, v.version, v.content_json, v.content_hash FROM question_version v "
        "JOIN question q ON q.id = v.question_id JOIN benchmark_set s ON s.id = q.set_id "
        "WHERE v.id > :last ORDER BY v.id LIMIT :n"
    )
    return [
        f"set {set_name!r} question {qid} version {version}: its content does not match its hash "
        "(changed outside gtreview)"
        for batch in _batches(connection, sql)
        for _, set_name, qid, version, content, stored in batch
        if _json_hash(content) != stored
    ]


def _damaged_signoffs(connection: Connection) -> list[str]:
    sql = (
        "SELECT f.id, s.name, f.number, f.rubric_json, f.content_hash FROM set_signoff f "
        "JOIN benchmark_set s ON s.id = f.set_id WHERE f.id > :last ORDER BY f.id LIMIT :n"
    )
    return [
        f"set {set_name!r} sign-off {number}: its frozen rubric does not match its hash (changed outside gtreview)"
        for batch in _batches(connection, sql)
        for _, set_name, number, rubric, stored in batch
        if _json_hash(rubric) != stored
    ]


def _damaged_pages(connection: Connection) -> list[str]:
    sql = (
        "SELECT p.id, d.name, p.number, p.text, p.text_sha256 FROM document_page p "
        "JOIN document d ON d.id = p.document_id WHERE p.id > :last ORDER BY p.id LIMIT :n"
    )
    return [
        f"document {name!r} page {number}: its text does not match its hash (changed outside gtreview)"
        for batch in _batches(connection, sql)
        for _, name, number, text, stored in batch
        if text_sha256(text) != stored
    ]


__all__ = ["database_problems", "project_problems"]
