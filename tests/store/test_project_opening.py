"""Opening never creates, never half-migrates, never opens a damaged project.

Only ``create_project`` (``gtreview project new``, the GUI's New project) makes a
project; opening anything else is refused in one line with nothing changed on disk. A
migration that fails half-way is rolled back whole, and a database at the current
revision that lacks a table or column is refused rather than written to.
"""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import event, inspect, text

from gtreview.store.db import MIGRATIONS_DIR, current_revision, head_revision, make_engine, migrate
from gtreview.store.project import DB_FILE, NoProjectError, ProjectError, create_project, open_project


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir()}


def refused(folder: Path, match: str) -> str:
    with pytest.raises(ProjectError, match=match) as info:
        open_project(folder)
    message = str(info.value)
    assert "\n" not in message and info.value.exit_status == 2
    return message


# --- item 10: only an explicit new project creates one -------------------------------------


def test_a_missing_folder_is_refused_and_not_created(tmp_path: Path) -> None:
    with pytest.raises(NoProjectError, match="does not exist"):
        open_project(tmp_path / "typo")
    assert not (tmp_path / "typo").exists()


def test_a_folder_without_a_database_is_refused_and_left_alone(tmp_path: Path) -> None:
    folder = tmp_path / "documents"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine")
    with pytest.raises(NoProjectError, match=rf"not a gtreview project \(no {DB_FILE}\)"):
        open_project(folder)
    assert snapshot(folder) == {"notes.txt": b"mine"}


def test_an_empty_database_file_is_refused_not_made_a_fresh_project(tmp_path: Path) -> None:
    (tmp_path / DB_FILE).write_bytes(b"")
    refused(tmp_path, r"project\.sqlite is empty \(0 bytes\), not a gtreview project")
    assert snapshot(tmp_path) == {DB_FILE: b""}


def test_a_file_that_is_no_database_is_refused_unchanged(tmp_path: Path) -> None:
    (tmp_path / DB_FILE).write_bytes(b"a spreadsheet, renamed by mistake\n" * 100)
    before = snapshot(tmp_path)
    refused(tmp_path, r"not a gtreview project \(not an SQLite database\)")
    assert snapshot(tmp_path) == before


def test_another_programs_sqlite_database_is_refused_unchanged(tmp_path: Path) -> None:
    connection = sqlite3.connect(tmp_path / DB_FILE)
    connection.execute("CREATE TABLE contacts (name TEXT)")
    connection.commit()
    connection.close()
    before = snapshot(tmp_path)
    refused(tmp_path, "an SQLite database without its schema")
    assert snapshot(tmp_path) == before  # not switched to WAL, no gtreview tables added


def test_an_unreadable_database_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    create_project(tmp_path).close()

    def denied(self: Path, *args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "open", denied)  # as a file of another user would be (the tests may run as root)
    refused(tmp_path, r"project\.sqlite cannot be read: Permission denied")


def test_create_makes_a_project_that_opens(tmp_path: Path) -> None:
    create_project(tmp_path / "new" / "project").close()
    project = open_project(tmp_path / "new" / "project")
    try:
        assert current_revision(project.engine) == head_revision()
    finally:
        project.close()


@pytest.mark.parametrize("content", [b"", b"SQLite format 3\x00 and more"])
def test_create_refuses_a_folder_that_has_a_database(tmp_path: Path, content: bytes) -> None:
    (tmp_path / DB_FILE).write_bytes(content)
    with pytest.raises(ProjectError, match=r"project\.sqlite already holds a project"):
        create_project(tmp_path)
    assert snapshot(tmp_path) == {DB_FILE: content}


def gtreview(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gtreview.cli", *map(str, args)], capture_output=True, text=True, timeout=120
    )


def test_the_cli_refuses_a_mistyped_project_and_creates_only_when_told(tmp_path: Path) -> None:
    typo = tmp_path / "projcet"
    refusal = gtreview("corpus", "list", "--project", typo)
    assert refusal.returncode == 2 and not typo.exists()
    assert refusal.stderr == (
        f"gtreview: error: {typo} does not exist, so it is not a gtreview project; "
        f"to start one there: gtreview project new {typo}\n"
    )
    made = gtreview("project", "new", typo, "--json")
    assert made.returncode == 0, made.stderr
    assert (typo / DB_FILE).is_file()
    assert gtreview("corpus", "list", "--project", typo, "--json").stdout.strip() == "[]"
    again = gtreview("project", "new", typo)
    assert again.returncode == 2 and "already holds a project" in again.stderr


# --- item 9: a damaged project is refused, not written to ------------------------------------


def damaged(tmp_path: Path, statement: str) -> Path:
    folder = tmp_path / "project"
    create_project(folder).close()
    connection = sqlite3.connect(folder / DB_FILE)
    connection.execute(statement)
    connection.commit()
    connection.close()
    return folder


def test_a_dropped_table_at_the_current_revision_is_refused(tmp_path: Path) -> None:
    folder = damaged(tmp_path, "DROP TABLE run_record")
    before = (folder / DB_FILE).read_bytes()
    message = refused(folder, r"project\.sqlite is damaged: table run_record is missing")
    assert "nothing was changed" in message
    assert (folder / DB_FILE).read_bytes() == before


def test_a_dropped_column_at_the_current_revision_is_refused(tmp_path: Path) -> None:
    folder = damaged(tmp_path, "ALTER TABLE run DROP COLUMN heartbeat_at")
    refused(folder, r"is damaged: column run\.heartbeat_at is missing")


def test_the_cli_reports_a_damaged_project_in_one_line(tmp_path: Path) -> None:
    folder = damaged(tmp_path, "DROP TABLE benchmark_set")
    result = gtreview("corpus", "import", tmp_path / "nothing.txt", "--project", folder)
    assert result.returncode == 2
    assert result.stderr.startswith("gtreview: error: ") and "table benchmark_set is missing" in result.stderr
    assert len(result.stderr.splitlines()) == 1


# --- item 8: a migration that fails half-way is rolled back whole ---------------------------


def at_revision(folder: Path, revision: str) -> Path:
    folder.mkdir()
    engine = make_engine(folder / DB_FILE)
    migrate(engine, revision)
    engine.dispose()
    return folder


def migrations_with_step_0009(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str) -> None:
    """gtreview's migrations, with 0009's upgrade replaced by ``body``."""
    copy = tmp_path / "migrations"
    shutil.copytree(MIGRATIONS_DIR, copy, ignore=shutil.ignore_patterns("__pycache__"))
    step = copy / "versions" / "0009_run_owner.py"
    text_ = step.read_text(encoding="utf-8")
    start, end = text_.index("def upgrade() -> None:\n"), text_.index("def downgrade()")
    step.write_text(f"{text_[:start]}def upgrade() -> None:\n{body}\n\n{text_[end:]}", encoding="utf-8")
    monkeypatch.setattr("gtreview.store.db.MIGRATIONS_DIR", copy)


def test_a_migration_failing_half_way_leaves_the_project_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = at_revision(tmp_path / "project", "0008")
    migrations_with_step_0009(
        tmp_path,
        monkeypatch,
        '    op.add_column("run", sa.Column("owner", sa.String(), nullable=True))\n'
        '    op.create_table("scratch", sa.Column("id", sa.Integer(), primary_key=True))\n'
        '    raise RuntimeError("the disk went away")',
    )
    message = refused(
        folder, rf"cannot bring .*project\.sqlite to schema revision {head_revision()}: the disk went away"
    )
    assert message.endswith("it is left as it was (revision 0008)")

    engine = make_engine(folder / DB_FILE)
    try:
        assert current_revision(engine) == "0008"
        with engine.connect() as connection:
            assert "scratch" not in inspect(connection).get_table_names()
            assert "owner" not in {c["name"] for c in inspect(connection).get_columns("run")}
    finally:
        engine.dispose()

    monkeypatch.undo()  # the real migration now runs from where the project was
    project = open_project(folder)
    try:
        assert current_revision(project.engine) == head_revision()
        with project.engine.connect() as connection:
            assert connection.execute(text("PRAGMA foreign_keys")).scalar() == 1
    finally:
        project.close()


def test_a_migration_never_cascades_into_the_rows_of_a_copied_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A batch step copies a table and drops the old one; with foreign keys on, the drop
    would delete every row that refers to it (run_record: ON DELETE CASCADE)."""
    folder = at_revision(tmp_path / "project", "0008")
    engine = make_engine(folder / DB_FILE)
    with engine.begin() as connection:
        connection.execute(text("INSERT INTO run (id, name, rubric_hash, source, status, config_json, created_at) "
                                "VALUES (1, 'r', 'h', 'gtreview', 'stopped', '{}', '2025-01-01 00:00:00')"))  # fmt: skip
        connection.execute(text("INSERT INTO run_record (run_id, kind, key) VALUES (1, 'generation', 'k')"))
    engine.dispose()
    migrations_with_step_0009(
        tmp_path,
        monkeypatch,
        '    with op.batch_alter_table("run", recreate="always") as batch:\n'
        '        batch.add_column(sa.Column("owner", sa.String(), nullable=True))\n'
        '        batch.add_column(sa.Column("heartbeat_at", sa.DateTime(), nullable=True))',
    )
    project = open_project(folder)
    try:
        with project.engine.connect() as connection:
            assert connection.execute(text("SELECT run_id, key FROM run_record")).all() == [(1, "k")]
    finally:
        project.close()


def test_the_rollback_holds_with_sqlalchemys_explicit_begin_recipe_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pysqlite recipe (driver autocommit, BEGIN on SQLAlchemy's begin) that the
    engine may adopt for BEGIN IMMEDIATE: migrate() neither begins twice nor loses the
    rollback, and foreign keys are still off while the steps run."""
    folder = at_revision(tmp_path / "project", "0008")
    migrations_with_step_0009(
        tmp_path,
        monkeypatch,
        '    assert op.get_bind().exec_driver_sql("PRAGMA foreign_keys").scalar() == 0\n'
        '    op.add_column("run", sa.Column("owner", sa.String(), nullable=True))\n'
        '    raise RuntimeError("the disk went away")',
    )
    engine = make_engine(folder / DB_FILE)
    event.listen(engine, "connect", lambda dbapi, _record: setattr(dbapi, "isolation_level", None))
    event.listen(engine, "begin", lambda connection: connection.exec_driver_sql("BEGIN IMMEDIATE"))
    try:
        with pytest.raises(RuntimeError, match="the disk went away"):
            migrate(engine)
        assert current_revision(engine) == "0008"
        with engine.connect() as connection:
            assert "owner" not in {c["name"] for c in inspect(connection).get_columns("run")}
            assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
    finally:
        engine.dispose()
