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
from gtreview.store import sets_repo
from gtreview.store.db import current_revision, head_revision, make_engine, migrate
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
    set_id = sets_repo.import_rubric(
        project.engine, Rubric.model_validate_json(raw), source_name="y.json", source_sha256="0" * 64, actor="tester"
    )
    assert rubric_to_json_text(sets_repo.export_rubric(project.engine, set_id)) == raw


def test_edits_are_versions_and_logged(project) -> None:  # type: ignore[no-untyped-def]
    data = rubric(2)
    set_id = sets_repo.import_rubric(
        project.engine, Rubric.model_validate(data), source_name="r.json", source_sha256="s", actor="ann"
    )
    q = sets_repo.load_question(project.engine, set_id, "A2")
    q.title = "Why the yield fell"
    assert sets_repo.save_question(project.engine, set_id, q, author="ann", comment="clearer title") == 2
    assert sets_repo.save_question(project.engine, set_id, q, author="ann") == 2  # unchanged content: no new version
    sets_repo.set_review_status(
        project.engine, set_id, "A2", sets_repo.ReviewStatus.APPROVED, actor="bob", comment="ok"
    )

    versions = sets_repo.list_versions(project.engine, set_id, "A2")
    assert [v.version for v in versions] == [1, 2]
    assert sets_repo.load_version(project.engine, set_id, "A2", 1).title == "Question A2"
    exported = sets_repo.export_rubric(project.engine, set_id).to_json_dict()
    assert exported["questions"][1]["title"] == "Why the yield fell"
    assert exported["questions"][0] == data["questions"][0]

    log = sets_repo.review_log(project.engine, set_id)
    assert [(e.action, e.actor, e.version) for e in log] == [
        ("import", "ann", None),
        ("edit", "ann", 2),
        ("approved", "bob", 2),
    ]
    assert log[2].content_hash == versions[1].content_hash

    # an edit after approval puts the question back to draft
    q.title = "Another"
    statuses = {s.qid: s.review_status for s in sets_repo.list_questions(project.engine, set_id)}
    assert statuses["A2"] is sets_repo.ReviewStatus.APPROVED
    sets_repo.save_question(project.engine, set_id, q, author="ann")
    summary = {s.qid: s for s in sets_repo.list_questions(project.engine, set_id)}
    assert summary["A2"].review_status is sets_repo.ReviewStatus.DRAFT
    assert summary["A2"].current_version == 3
    assert sets_repo.list_sets(project.engine)[0].question_count == 2


def test_review_log_is_append_only(project) -> None:  # type: ignore[no-untyped-def]
    sets_repo.import_rubric(
        project.engine, Rubric.model_validate(rubric(1)), source_name="r.json", source_sha256="s", actor="ann"
    )
    for statement in ("UPDATE review_log SET actor = 'mallory'", "DELETE FROM review_log"):
        with project.engine.begin() as connection, pytest.raises(DatabaseError, match="append-only"):
            connection.execute(text(statement))


def test_duplicate_question_ids_are_refused(project) -> None:  # type: ignore[no-untyped-def]
    data = rubric(2)
    data["questions"][1]["id"] = "A1"
    with pytest.raises(sets_repo.SetImportError, match="A1"):
        sets_repo.import_rubric(
            project.engine, Rubric.model_validate(data), source_name="r.json", source_sha256="s", actor="a"
        )
    assert sets_repo.list_sets(project.engine) == []


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
        assert sets_repo.export_rubric(project.engine, 1).to_json_dict()["questions"] == [question]
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
