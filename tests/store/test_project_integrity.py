"""The check on open covers indexes and triggers, and ``gtreview project check`` names
every problem of a project, corpus pages' text included.

Opening refused a dropped table or column but opened a project whose review log had lost
its append-only trigger or whose generations had lost their unique key; and a byte
changed in a corpus page's text went unnoticed (question versions and sign-offs carry
hashes; pages now do too, revision 0011, computed for older projects from their text).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest

from gtreview.app import workflow
from gtreview.app.sample_project import ensure_sample_project
from gtreview.store import sets
from gtreview.store.db import make_engine, migrate, reading
from gtreview.store.project import DB_FILE, create_project, open_project
from tests.store.test_project_opening import gtreview, refused


def damaged(tmp_path: Path, script: str) -> Path:
    folder = tmp_path / "project"
    create_project(folder).close()
    connection = sqlite3.connect(folder / DB_FILE)
    connection.executescript(script)
    connection.close()
    return folder


def test_a_dropped_append_only_trigger_is_refused_on_open(tmp_path: Path) -> None:
    folder = damaged(tmp_path, "DROP TRIGGER review_log_no_update")
    before = (folder / DB_FILE).read_bytes()
    refused(folder, r"project\.sqlite is damaged: trigger review_log_no_update on review_log is missing")
    assert (folder / DB_FILE).read_bytes() == before


def test_a_trigger_replaced_by_one_that_allows_everything_is_refused(tmp_path: Path) -> None:
    folder = damaged(
        tmp_path,
        "DROP TRIGGER set_signoff_no_update;"
        "CREATE TRIGGER set_signoff_no_update BEFORE UPDATE ON set_signoff BEGIN SELECT 1; END;",
    )
    refused(folder, r"is damaged: trigger set_signoff_no_update on set_signoff was changed")


def test_a_dropped_unique_index_is_refused_on_open(tmp_path: Path) -> None:
    folder = damaged(tmp_path, "DROP INDEX ix_generation_key")
    refused(folder, r"is damaged: index ix_generation_key on generation\(key\) is missing")


def test_a_unique_index_made_plain_is_refused_on_open(tmp_path: Path) -> None:
    folder = damaged(tmp_path, "DROP INDEX ix_document_sha256; CREATE INDEX ix_document_sha256 ON document (sha256);")
    refused(folder, r"is damaged: index ix_document_sha256 is no longer the unique index on document\(sha256\)")


def test_project_check_names_a_changed_page_version_and_sign_off_a_line_each(tmp_path: Path) -> None:
    folder = tmp_path / "sample"
    project = ensure_sample_project(folder)
    try:
        engine = project.engine
        with reading(engine) as session:
            set_id = sets.list_sets(session)[0].id
        with reading(engine) as session:
            for summary in sets.list_questions(session, set_id):
                workflow.approve(engine, set_id, summary.qid, reviewer="geo")
        workflow.sign_off(engine, set_id, reviewer="geo")
        with engine.connect() as connection:
            page_text, document, number = connection.exec_driver_sql(
                "SELECT p.text, d.name, p.number FROM document_page p JOIN document d ON d.id = p.document_id "
                "ORDER BY length(p.text) DESC LIMIT 1"
            ).one()
            signed = connection.exec_driver_sql("SELECT rubric_json FROM set_signoff").scalar_one()
    finally:
        project.close()
    assert gtreview("project", "check", "--project", folder).stdout == f"{folder}: no problems found\n"

    qid = json.loads(signed)["questions"][0]["id"]
    # one character changed in each, as a tool or a bad disk would (the frozen sign-off's
    # trigger is put back as it was)
    trigger = "CREATE TRIGGER set_signoff_no_update BEFORE UPDATE ON set_signoff BEGIN SELECT RAISE(ABORT, 'sign-offs are frozen'); END"
    tool = sqlite3.connect(folder / DB_FILE)
    tool.executescript(
        f"""
        UPDATE document_page SET text = substr(text, 1, 99) || 'X' || substr(text, 101)
            WHERE number = {number} AND document_id = (SELECT id FROM document WHERE name = '{document}');
        UPDATE question_version SET content_json = replace(content_json, '"{qid}"', '"{qid} "')
            WHERE question_id = (SELECT id FROM question WHERE qid = '{qid}');
        DROP TRIGGER set_signoff_no_update;
        UPDATE set_signoff SET rubric_json = replace(rubric_json, '"{qid}"', '"{qid} "');
        {trigger};
        """
    )
    tool.close()
    assert page_text[99] != "X"

    result = gtreview("project", "check", "--project", folder)
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()
    assert (
        f"{folder}: document {document!r} page {number}: its text does not match its hash (changed outside gtreview)"
        in lines
    )
    assert any(f"question {qid} version 1: its content does not match its hash" in line for line in lines)
    assert any("sign-off 1: its frozen rubric does not match its hash" in line for line in lines)
    assert len(lines) == 3 and all(line.startswith(f"{folder}: ") for line in lines)

    as_json = gtreview("project", "check", "--project", folder, "--json")
    assert as_json.returncode == 1
    report = json.loads(as_json.stdout)
    assert report["ok"] is False and [f"{folder}: {p}" for p in report["problems"]] == lines


def test_project_check_lists_every_structural_problem_the_open_refuses(tmp_path: Path) -> None:
    folder = damaged(tmp_path, "DROP TRIGGER review_log_no_delete; DROP INDEX ix_judgement_key;")
    result = gtreview("project", "check", "--project", folder, "--json")
    assert result.returncode == 1
    assert json.loads(result.stdout)["problems"] == [
        "index ix_judgement_key on judgement(key) is missing",
        "trigger review_log_no_delete on review_log is missing",
    ]


def test_a_project_before_page_hashes_gets_them_from_its_text(tmp_path: Path) -> None:
    folder = tmp_path / "old"
    folder.mkdir()
    engine = make_engine(folder / DB_FILE)
    migrate(engine, "0010")
    with engine.begin() as connection:
        connection.exec_driver_sql(
            "INSERT INTO document (id, name, title, kind, sha256, size_bytes, page_count, row_count, columns_json, "
            "imported_at) VALUES (1, 'r.txt', 'R', 'txt', 'x', 9, 2, 0, '[]', '2026-01-01')"
        )
        for number, text in ((1, "Gold fell at the water level."), (2, "Pyrite below it. ✓")):
            connection.exec_driver_sql(
                "INSERT INTO document_page (document_id, number, text) VALUES (1, ?, ?)", (number, text)
            )
    engine.dispose()
    project = open_project(folder)
    try:
        with project.engine.connect() as connection:
            rows = connection.exec_driver_sql("SELECT text, text_sha256 FROM document_page ORDER BY number").all()
    finally:
        project.close()
    assert [stored for _, stored in rows] == [hashlib.sha256(text.encode()).hexdigest() for text, _ in rows]
    assert gtreview("project", "check", "--project", folder).returncode == 0


@pytest.mark.parametrize("name", ["review_log_no_update", "set_signoff_no_delete"])
def test_the_reference_is_what_the_migrations_make(name: str) -> None:
    from gtreview.store.schema_structure import migrated_structure

    assert name in migrated_structure().triggers
