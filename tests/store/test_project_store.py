import json
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import text
from sqlalchemy.exc import DatabaseError
from sqlmodel import SQLModel

import gtreview.store.tables  # noqa: F401 - registers the tables on SQLModel.metadata
from gtreview.core.jsonmodel import canonical_hash
from gtreview.core.rubric import Rubric, rubric_to_json_text
from gtreview.store import sets
from gtreview.store.db import current_revision, head_revision, make_engine, migrate, reading, unit_of_work
from gtreview.store.project import DB_FILE, ProjectError, create_project, open_project
from tests.rubric_factory import rubric


@pytest.fixture()
def project(tmp_path: Path):  # type: ignore[no-untyped-def]
    opened = create_project(tmp_path / "proj")
    yield opened
    opened.close()


def test_new_project_is_at_head_with_wal_and_foreign_keys(project) -> None:  # type: ignore[no-untyped-def]
    assert current_revision(project.engine) == head_revision()
    with project.engine.connect() as connection:
        assert connection.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert connection.execute(text("PRAGMA foreign_keys")).scalar() == 1


def test_models_match_the_migrations(project) -> None:  # type: ignore[no-untyped-def]
    with project.engine.connect() as connection:
        assert compare_metadata(MigrationContext.configure(connection), SQLModel.metadata) == []


def test_foreign_keys_are_enforced(project) -> None:  # type: ignore[no-untyped-def]
    with project.engine.begin() as connection, pytest.raises(DatabaseError):
        connection.execute(
            text(
                "INSERT INTO question (set_id, position, qid, current_version, review_status) VALUES (99, 0, 'A1', 1, 'draft')"
            )
        )


def test_rubric_round_trips_through_the_store(project, interop_dir: Path) -> None:  # type: ignore[no-untyped-def]
    raw = (interop_dir / "rubrics" / "Yudnamutana_QA_grading_key.json").read_text(encoding="utf-8")
    with unit_of_work(project.engine) as tx:
        set_id = sets.import_rubric(
            tx, Rubric.model_validate_json(raw), source_name="y.json", source_sha256="0" * 64, actor="tester"
        )
    with reading(project.engine) as session:
        assert rubric_to_json_text(sets.export_rubric(session, set_id)) == raw


def test_edits_are_versions_and_logged(project) -> None:  # type: ignore[no-untyped-def]
    data = rubric(2)
    with unit_of_work(project.engine) as tx:
        set_id = sets.import_rubric(
            tx, Rubric.model_validate(data), source_name="r.json", source_sha256="s", actor="ann"
        )
    with reading(project.engine) as session:
        q = sets.load_question(session, set_id, "A2")
    q.title = "Why the yield fell"
    with unit_of_work(project.engine) as tx:
        assert sets.save_question(tx, set_id, q, author="ann", comment="clearer title") == 2
    with unit_of_work(project.engine) as tx:
        assert sets.save_question(tx, set_id, q, author="ann") == 2  # unchanged content: no new version
    with unit_of_work(project.engine) as tx:
        sets.record_review(tx, set_id, "A2", sets.ReviewStatus.APPROVED, actor="bob", comment="ok")

    with reading(project.engine) as session:
        versions = sets.list_versions(session, set_id, "A2")
    assert [v.version for v in versions] == [1, 2]
    with reading(project.engine) as session:
        assert sets.load_version(session, set_id, "A2", 1).title == "Question A2"
    with reading(project.engine) as session:
        exported = sets.export_rubric(session, set_id).to_json_dict()
    assert exported["questions"][1]["title"] == "Why the yield fell"
    assert exported["questions"][0] == data["questions"][0]

    with reading(project.engine) as session:
        log = sets.review_log(session, set_id)
    assert [(e.action, e.actor, e.version) for e in log] == [
        ("import", "ann", None),
        ("edit", "ann", 2),
        ("approved", "bob", 2),
    ]
    assert log[2].content_hash == versions[1].content_hash

    # an edit after approval puts the question back to draft
    q.title = "Another"
    with reading(project.engine) as session:
        statuses = {s.qid: s.review_status for s in sets.list_questions(session, set_id)}
    assert statuses["A2"] is sets.ReviewStatus.APPROVED
    with unit_of_work(project.engine) as tx:
        sets.save_question(tx, set_id, q, author="ann")
    with reading(project.engine) as session:
        summary = {s.qid: s for s in sets.list_questions(session, set_id)}
    assert summary["A2"].review_status is sets.ReviewStatus.DRAFT
    assert summary["A2"].current_version == 3
    with reading(project.engine) as session:
        assert sets.list_sets(session)[0].question_count == 2


def test_review_log_is_append_only(project) -> None:  # type: ignore[no-untyped-def]
    with unit_of_work(project.engine) as tx:
        sets.import_rubric(tx, Rubric.model_validate(rubric(1)), source_name="r.json", source_sha256="s", actor="ann")
    for statement in ("UPDATE review_log SET actor = 'mallory'", "DELETE FROM review_log"):
        with project.engine.begin() as connection, pytest.raises(DatabaseError, match="append-only"):
            connection.execute(text(statement))


def test_duplicate_question_ids_are_refused(project) -> None:  # type: ignore[no-untyped-def]
    data = rubric(2)
    data["questions"][1]["id"] = "A1"
    with pytest.raises(sets.SetImportError, match="A1"):
        with unit_of_work(project.engine) as tx:
            sets.import_rubric(tx, Rubric.model_validate(data), source_name="r.json", source_sha256="s", actor="a")
    with reading(project.engine) as session:
        assert sets.list_sets(session) == []


def test_project_from_first_revision_is_migrated_on_open(tmp_path: Path) -> None:
    folder = tmp_path / "old"
    folder.mkdir()
    engine = make_engine(folder / DB_FILE)
    migrate(engine, "0001")
    question = rubric(1)["questions"][0]
    with engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO benchmark_set (id, name, source_name, header_json, source_sha256, created_at) "
                "VALUES (1, 'old set', 'old.json', :header, 'x', '2025-01-01 00:00:00')"
            ),
            {"header": json.dumps({**rubric(1), "questions": None})},
        )
        connection.execute(
            text(
                "INSERT INTO question (id, set_id, position, qid, current_version, review_status) VALUES (1, 1, 0, 'A1', 1, 'approved')"
            )
        )
        connection.execute(
            text(
                "INSERT INTO question_version (question_id, version, content_json, content_hash, author, comment, created_at) "
                "VALUES (1, 1, :content, :hash, 'old', '', '2025-01-01 00:00:00')"
            ),
            {"content": json.dumps(question), "hash": canonical_hash(question)},
        )
    engine.dispose()
    assert current_revision(make_engine(folder / DB_FILE)) == "0001"

    project = open_project(folder)
    try:
        assert current_revision(project.engine) == head_revision()
        with project.engine.connect() as connection:
            fixtures = connection.execute(
                text(
                    "SELECT fixture_id, expected_gate_passed, expected_total FROM calibration_fixture ORDER BY position"
                )
            ).all()
        assert [tuple(f) for f in fixtures] == [("A1-F1", 0, 0), ("A1-F2", 1, 3), ("A1-F3", 1, 10)]
        with reading(project.engine) as session:
            assert sets.export_rubric(session, 1).to_json_dict()["questions"] == [question]
    finally:
        project.close()


def test_database_from_a_newer_gtreview_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "future"
    create_project(folder).close()
    engine = make_engine(folder / DB_FILE)
    with engine.begin() as connection:
        connection.execute(text("UPDATE alembic_version SET version_num = '9999'"))
    engine.dispose()
    with pytest.raises(ProjectError, match="newer gtreview"):
        open_project(folder)


def test_opening_a_missing_project_without_create(tmp_path: Path) -> None:
    with pytest.raises(ProjectError, match="not a gtreview project"):
        open_project(tmp_path / "nothing")
