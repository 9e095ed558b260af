"""A run's duration is the time its attempts ran, summed: the same definition while it
runs and once it stopped (a pass stopped after 10 minutes and resumed for 28 more ran
38 minutes, not the 54 s to its last record, nor the wall time since it first started)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from gtreview.store import runs_repo
from gtreview.store.attempts import ran_seconds
from gtreview.store.db import reading, unit_of_work
from gtreview.store.project import create_project
from gtreview.store.runs_repo import RunStatus

T0 = datetime(2025, 1, 1, 9, 0, tzinfo=UTC)


def at(minutes: float) -> str:
    return (T0 + timedelta(minutes=minutes)).isoformat()


def test_a_stopped_and_resumed_run_ran_its_attempts_summed(tmp_path: Path) -> None:
    project = create_project(tmp_path / "p")
    engine = project.engine
    try:
        with unit_of_work(engine) as tx:
            run_id = runs_repo.find_or_create_run(
                tx, name="p", rubric_hash="r", set_id=None, config_hash="c", config={"config_hash": "c"}
            )
        with unit_of_work(engine) as tx:
            runs_repo.set_run_status(tx, run_id, RunStatus.STOPPED)
        with unit_of_work(engine) as tx:
            again = runs_repo.find_or_create_run(
                tx, name="p", rubric_hash="r", set_id=None, config_hash="c", config={"config_hash": "c"}
            )
        assert again == run_id
        with reading(engine) as session:
            stored = runs_repo.run_config(session, run_id)
        (_, first_end), (_, second_end) = stored["attempts"]
        assert first_end is not None and second_end is None  # the second attempt runs
        # The same attempts with times of the tester's pass: 10 min, then (an hour later) 28 min.
        stored["attempts"] = [[at(0), at(10)], [at(60), at(88)]]
        with unit_of_work(engine) as tx:
            runs_repo.write_run_config(tx, run_id, stored)
            runs_repo.set_run_status(tx, run_id, RunStatus.STOPPED)
        with reading(engine) as session:
            stored = runs_repo.run_config(session, run_id)
        assert stored["attempts"][:1] == [[at(0), at(10)]] and stored["attempts"][1][1] is not None
        stored["attempts"][1][1] = at(88)
        with unit_of_work(engine) as tx:
            runs_repo.write_run_config(tx, run_id, stored)
        with reading(engine) as session:
            (summary,) = runs_repo.list_runs(session)
        assert summary.duration_s == 38 * 60
    finally:
        project.close()


def test_a_running_attempt_counts_to_now_and_a_dead_one_to_its_last_heartbeat() -> None:
    config = {"attempts": [[at(0), at(10)], [at(60), None]]}
    now = T0 + timedelta(minutes=65)
    assert ran_seconds(config, live=True, heartbeat_at=None, now=now) == 15 * 60
    heartbeat = T0 + timedelta(minutes=62)
    assert ran_seconds(config, live=False, heartbeat_at=heartbeat, now=now) == 12 * 60
    assert ran_seconds({}, live=False, heartbeat_at=None, now=now) is None  # an import keeps no attempts
    assert json.dumps(config)  # plain JSON, as the run's configuration is stored
