"""Revision 0007: runs of an older project are linked to the records they use, and their
configurations become the typed run record, with nothing lost on the way."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import text

from gtreview.app.harness_import import import_harness_files
from gtreview.results.loader import load_run_results
from gtreview.runs.record import RunSource, read_run_config
from gtreview.store import runs_repo
from gtreview.store.db import current_revision, head_revision, make_engine, reading, unit_of_work
from gtreview.store.project import DB_FILE, create_project, open_project
from tests.report.test_exports import RUBRIC
from tests.results.test_one_source import config, harness_scores, run
from tests.store.revisions import drop_revisions_after_0010


def _as_revision_0006(folder: Path) -> None:
    """Put the project back the way revision 0006 stored it: no links, untyped configurations."""
    engine = make_engine(folder / DB_FILE)
    with engine.begin() as connection:
        connection.execute(text("DROP TABLE run_record"))
        connection.execute(text("ALTER TABLE benchmark_set DROP COLUMN source_text"))  # revision 0008
        connection.execute(text("ALTER TABLE run DROP COLUMN owner"))  # revision 0009
        connection.execute(text("ALTER TABLE run DROP COLUMN heartbeat_at"))
        for run_id, source, stored in connection.execute(text("SELECT id, source, config_json FROM run")).all():
            legacy = json.loads(stored)
            legacy.pop("schema_version")
            if source == "harness-import":
                old_keys = ("scores", "answers", "labels")  # what imports kept before 0007
                legacy.update({k: v for k, v in legacy.pop("harness").items() if k in old_keys})
                legacy.pop("questions")  # imports kept no questions before 0007
            connection.execute(
                text("UPDATE run SET config_json = :c WHERE id = :i"), {"c": json.dumps(legacy), "i": run_id}
            )
        drop_revisions_after_0010(connection)
        connection.execute(text("UPDATE alembic_version SET version_num = '0006'"))
    engine.dispose()


def test_an_old_project_is_linked_and_typed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gtreview.store import sets

    monkeypatch.setattr("gtreview.runs.execute.spec_identity", lambda spec: {"spec": spec})
    folder = tmp_path / "project"
    project = create_project(folder)
    with unit_of_work(project.engine) as tx:
        set_id = sets.import_rubric(tx, RUBRIC, source_name="Tiny.json", source_sha256="s", actor="t")
    first = run(project.engine, set_id, config())
    extended = run(project.engine, set_id, config(repeats=4))
    imported = import_harness_files(
        project.engine, RUBRIC, scores=harness_scores(tmp_path / "s.json"), labels=("base", "cand"), set_id=set_id
    ).run_id
    assert imported is not None
    with reading(project.engine) as session:
        before = {r.id: r for r in runs_repo.list_runs(session)}
    figures = {i: load_run_results(project.engine, i).model_dump() for i in (first, extended, imported)}
    project.close()

    _as_revision_0006(folder)
    assert current_revision(make_engine(folder / DB_FILE)) == "0006"
    project = open_project(folder)
    try:
        assert current_revision(project.engine) == head_revision()
        with reading(project.engine) as session:
            after = {r.id: r for r in runs_repo.list_runs(session)}
        assert after == before  # the extended pass counts its 18 reused answers again: 24, not 6
        assert after[extended].generations == 24
        with reading(project.engine) as session:
            harness = read_run_config(session, imported).harness
        assert harness is not None and harness.labels == ["base", "cand"] and harness.scores
        assert after[imported].source is RunSource.HARNESS
        for run_id in (first, extended):
            assert load_run_results(project.engine, run_id).model_dump() == figures[run_id]
        # The old import kept no questions: they come from its set, as they are now.
        reloaded = load_run_results(project.engine, imported).model_dump()
        assert reloaded["samples"] == figures[imported]["samples"]
        assert [q["id"] for q in reloaded["questions"]] == ["A1", "A2", "A3"]
    finally:
        project.close()
