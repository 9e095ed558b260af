"""A running run is live only while the process that holds it is alive (revision 0009):
a run whose process died reads as "stopped (interrupted)", never running forever, and
no second process resumes a run another one is still running."""

from __future__ import annotations

import socket
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlmodel import Session

from gtreview.store import runs_repo, tables
from gtreview.store.db import current_revision, head_revision, make_engine, reading, unit_of_work
from gtreview.store.project import DB_FILE, create_project, open_project
from gtreview.store.runs_repo import INTERRUPTED, RunSource, RunStatus
from tests.store.revisions import drop_revisions_after_0010


def dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def hold(engine, run_id: int, owner: str | None, heartbeat: datetime | None) -> None:  # type: ignore[no-untyped-def]
    with Session(engine) as session:
        run = session.get(tables.Run, run_id)
        assert run is not None
        run.status, run.owner, run.heartbeat_at = RunStatus.RUNNING.value, owner, heartbeat
        session.add(run)
        session.commit()


def summary(engine, run_id: int) -> runs_repo.RunSummary:  # type: ignore[no-untyped-def]
    with reading(engine) as session:
        return next(r for r in runs_repo.list_runs(session) if r.id == run_id)


def test_a_run_is_live_only_while_its_process_is(tmp_path: Path) -> None:
    project = create_project(tmp_path / "p")
    engine = project.engine
    try:
        with unit_of_work(engine) as tx:
            run_id = runs_repo.find_or_create_run(
                tx, name="p", rubric_hash="r", set_id=None, config_hash="c", config={"config_hash": "c"}
            )
        mine = summary(engine, run_id)
        assert mine.live and mine.owner == runs_repo.process_owner() and mine.shown_status == "running"

        now = datetime.now(UTC)
        host = socket.gethostname()
        hold(engine, run_id, f"{host}:{dead_pid()}", now)  # killed a moment ago
        assert summary(engine, run_id).shown_status == INTERRUPTED and summary(engine, run_id).resumable

        with subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"]) as other:
            try:
                hold(engine, run_id, f"{host}:{other.pid}", now)  # another process (the CLI), alive
                assert summary(engine, run_id).live and not summary(engine, run_id).resumable
                with pytest.raises(runs_repo.RunBusyError, match=f"run {run_id} is being run by process"):
                    with unit_of_work(engine) as tx:
                        runs_repo.find_or_create_run(
                            tx, name="p", rubric_hash="r", set_id=None, config_hash="c", config={}
                        )
                stale = now - timedelta(seconds=runs_repo.STALE_AFTER_S + 5)
                hold(engine, run_id, f"{host}:{other.pid}", stale)  # alive but silent: hung, or a reused pid
                assert summary(engine, run_id).shown_status == INTERRUPTED
                with unit_of_work(engine) as tx:
                    assert runs_repo.heartbeat(tx, f"{host}:{other.pid}") == 1  # its heartbeat revives it
                assert summary(engine, run_id).live
            finally:
                other.kill()
        assert summary(engine, run_id).shown_status == INTERRUPTED  # it died
        hold(engine, run_id, None, None)  # written before revision 0009: nobody holds it
        assert summary(engine, run_id).shown_status == INTERRUPTED
        with unit_of_work(engine) as tx:
            runs_repo.find_or_create_run(tx, name="p", rubric_hash="r", set_id=None, config_hash="c", config={})
        assert summary(engine, run_id).live  # resumed here: this process holds it
        with unit_of_work(engine) as tx:
            runs_repo.set_run_status(tx, run_id, RunStatus.STOPPED)
        assert summary(engine, run_id).shown_status == "stopped" and not summary(engine, run_id).live
        with unit_of_work(engine) as tx:
            imported = runs_repo.create_run(
                tx, name="i", rubric_hash="r", source=RunSource.HARNESS, status=RunStatus.IMPORTED
            )
        assert summary(engine, imported).shown_status == "imported" and not summary(engine, imported).resumable
    finally:
        project.close()


def test_revision_0009_adds_the_owner_and_an_old_running_run_reads_interrupted(tmp_path: Path) -> None:
    folder = tmp_path / "p"
    project = create_project(folder)
    with unit_of_work(project.engine) as tx:
        run_id = runs_repo.create_run(tx, name="old", rubric_hash="r", source=RunSource.PASS, status=RunStatus.STOPPED)
    project.close()
    engine = make_engine(folder / DB_FILE)
    with engine.begin() as connection:  # the project as revision 0008 stored it, killed mid-pass
        connection.execute(text("ALTER TABLE run DROP COLUMN owner"))
        connection.execute(text("ALTER TABLE run DROP COLUMN heartbeat_at"))
        for column in ("position", "base_model", "judge_repeat", "sample_index", "qid", "model"):  # revision 0010
            connection.execute(text(f"ALTER TABLE run_record DROP COLUMN {column}"))
        connection.execute(text("UPDATE run SET status = 'running'"))
        drop_revisions_after_0010(connection)
        connection.execute(text("UPDATE alembic_version SET version_num = '0008'"))
    engine.dispose()
    project = open_project(folder)
    try:
        assert current_revision(project.engine) == head_revision()
        old = summary(project.engine, run_id)
        assert old.status is RunStatus.RUNNING and old.owner is None and old.shown_status == INTERRUPTED
    finally:
        project.close()
