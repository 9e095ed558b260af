"""Storing benchmark passes: runs, generations, judgements and pairwise judgements.

Every record has a content key (unique), so writing the same record twice is a no-op:
this is what makes a killed pass resumable without duplicates.

A running run names its owner, the process running it (``host:pid``), and that
process keeps a heartbeat (``heartbeat``, every ``HEARTBEAT_S``; ``run_owners`` says
who is alive). A run is *live* while its heartbeat is fresh and, on this host, its
process exists; a ``running`` run that
is not live was interrupted (the process was killed or crashed) and is shown as
stopped, so nothing reads as running forever and no second process resumes a run
that another is still running.

Every function takes the session of the intent that calls it (a write in
``store.db.unit_of_work``, a read in ``store.db.reading``); none commits. Finding or
creating a pass's run is done in a unit of work (``BEGIN IMMEDIATE``), so two passes of
one plan started together never make two runs: the second finds the first's run live
and is refused in one line; within one process, a run a pass holds is refused to a
second pass the same way (both would share the owner ``host:pid``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any, TypeVar

from pydantic import BaseModel
from sqlalchemy import Connection, Engine
from sqlmodel import Session, col, select

from gtreview.core.statuses import GenerationStatus
from gtreview.core.statuses import RecordKind as RecordKind  # re-exported: the store's read models carry them
from gtreview.core.statuses import RunSource as RunSource
from gtreview.core.statuses import RunStatus as RunStatus
from gtreview.store import attempts, tables
from gtreview.store.run_listing import INTERRUPTED as INTERRUPTED  # re-exported: the runs list's values
from gtreview.store.run_listing import RECORD_TABLES, is_live
from gtreview.store.run_listing import RunSummary as RunSummary
from gtreview.store.run_listing import displayed_status as displayed_status
from gtreview.store.run_listing import list_runs as list_runs
from gtreview.store.run_owners import HEARTBEAT_S as HEARTBEAT_S  # re-exported: callers name them here
from gtreview.store.run_owners import STALE_AFTER_S as STALE_AFTER_S
from gtreview.store.run_owners import RunBusyError as RunBusyError
from gtreview.store.run_owners import hold, release
from gtreview.store.run_owners import owner_alive as owner_alive
from gtreview.store.run_owners import process_owner as process_owner


class RunRow(BaseModel):
    """A run as stored, its configuration still untyped (``gtreview.runs.record`` types it)."""

    id: int
    name: str
    source: RunSource
    status: RunStatus
    set_id: int | None
    rubric_hash: str
    config: dict[str, Any]
    live: bool = False  # running, and a live process holds it


def _engine(session: Session) -> Engine:
    """The engine the session is bound to: the runs held in this process are kept by database."""
    bind = session.get_bind()
    return bind.engine if isinstance(bind, Connection) else bind


def _claim(run: tables.Run) -> None:
    attempts.begin(run, datetime.now(UTC))  # before the heartbeat: a dead attempt ends at the old one
    run.status, run.owner, run.heartbeat_at = RunStatus.RUNNING.value, process_owner(), datetime.now(UTC)


def create_run(
    session: Session,
    *,
    name: str,
    rubric_hash: str,
    source: RunSource,
    status: RunStatus,
    set_id: int | None = None,
    config: dict[str, Any] | None = None,
) -> int:
    run = tables.Run(
        name=name,
        set_id=set_id,
        rubric_hash=rubric_hash,
        source=source.value,
        status=status.value,
        config_json=json.dumps(config or {}, ensure_ascii=False),
    )
    if status is RunStatus.RUNNING:
        _claim(run)  # this process holds it
    session.add(run)
    session.flush()
    assert run.id is not None
    return run.id


def find_or_create_run(
    session: Session, *, name: str, rubric_hash: str, set_id: int | None, config_hash: str, config: dict[str, Any]
) -> int:
    """The run with this configuration hash and rubric (resumed, marked running), or a new
    one; held by this pass until its status is set to something other than running. A
    run another live pass holds is refused (RunBusyError, one line naming it). In a unit
    of work: two processes never both claim it; if that unit rolls back, ``release`` it."""
    for run in session.exec(select(tables.Run).where(col(tables.Run.rubric_hash) == rubric_hash)):
        if json.loads(run.config_json).get("config_hash") == config_hash:
            assert run.id is not None
            if is_live(run) and run.owner != process_owner():
                raise RunBusyError(f"run {run.id} is being run by process {run.owner}; wait for it or cancel it there")
            held_here = run.status == RunStatus.RUNNING.value and run.owner == process_owner()
            hold(_engine(session), run.id, held_here=held_here)
            _claim(run)
            session.add(run)
            session.flush()
            return run.id
    run = tables.Run(
        name=name,
        set_id=set_id,
        rubric_hash=rubric_hash,
        source=RunSource.PASS.value,
        status=RunStatus.RUNNING.value,
        config_json=json.dumps(config, ensure_ascii=False),
    )
    _claim(run)
    session.add(run)
    session.flush()
    assert run.id is not None
    hold(_engine(session), run.id, held_here=False)
    return run.id


def release_run(engine: Engine, run_id: int) -> None:
    """No pass of this process holds the run any more (its claim was rolled back)."""
    release(engine, run_id)


def heartbeat(session: Session, owner: str | None = None) -> int:
    """Say that ``owner`` (this process) is alive: every running run it holds; how many.
    A unit of work of its own (the caller's), so the beat is stored when it returns."""
    owner = owner or process_owner()
    held = session.exec(
        select(tables.Run).where(col(tables.Run.owner) == owner, col(tables.Run.status) == RunStatus.RUNNING.value)
    ).all()
    for run in held:
        run.heartbeat_at = datetime.now(UTC)
        session.add(run)
    return len(held)


def find_run(session: Session, *, source: RunSource, rubric_hash: str, config_hash: str) -> int | None:
    """The run of this source, rubric and configuration hash, if there is one (nothing is changed)."""
    query = select(tables.Run).where(col(tables.Run.rubric_hash) == rubric_hash, col(tables.Run.source) == source.value)
    for run in session.exec(query.order_by(col(tables.Run.id))):
        if config_hash and json.loads(run.config_json).get("config_hash") == config_hash:
            return run.id
    return None


def set_run_status(
    session: Session, run_id: int, status: RunStatus, reason: str = ""
) -> None:  # reason: why it stopped
    run = session.get(tables.Run, run_id)
    if run is not None:
        if status is RunStatus.RUNNING:
            _claim(run)
        else:
            attempts.end(run, datetime.now(UTC), reason)
            run.status, run.owner, run.heartbeat_at = status.value, None, None  # nobody holds it now
        session.add(run)
    if status is not RunStatus.RUNNING:
        # already, not after the commit: a second pass of this process waits for the
        # write lock this unit of work holds, and then reads the run as not running
        release(_engine(session), run_id)


def write_run_config(session: Session, run_id: int, config: dict[str, Any]) -> None:
    run = session.get(tables.Run, run_id)
    if run is None:
        raise KeyError(f"no run {run_id}")
    run.config_json = json.dumps(config, ensure_ascii=False, default=str)
    session.add(run)


def get_run(session: Session, run_id: int) -> RunRow | None:
    run = session.get(tables.Run, run_id)
    if run is None or run.id is None:
        return None
    return RunRow(
        id=run.id,
        name=run.name,
        source=RunSource(run.source),
        status=RunStatus(run.status),
        set_id=run.set_id,
        rubric_hash=run.rubric_hash,
        config=json.loads(run.config_json),
        live=is_live(run),
    )


def run_config(session: Session, run_id: int) -> dict[str, Any]:
    run = session.get(tables.Run, run_id)
    if run is None:
        raise KeyError(f"no run {run_id}")
    config: dict[str, Any] = json.loads(run.config_json)
    return config


_Keyed = TypeVar("_Keyed", tables.Generation, tables.Judgement, tables.PairJudgement)


def existing_keys(session: Session, model: type[_Keyed], keys: list[str]) -> set[str]:
    found: set[str] = set()
    for start in range(0, len(keys), 500):
        chunk = keys[start : start + 500]
        found.update(session.exec(select(model.key).where(col(model.key).in_(chunk))).all())
    return found


def forget_records(session: Session, keys: dict[RecordKind, set[str]]) -> int:
    """Delete the stored records of these keys (and their unplanned links to runs); a
    record an expert has adjudicated is kept. How many were deleted.

    Only for records that never were the model's or the judge's answer: an outage that
    an earlier version stored as a final error (see ``execute.forget_unreachable``)."""
    deleted = 0
    adjudicated = set(session.exec(select(tables.Adjudication.key)).all())
    for kind, wanted in keys.items():
        model = RECORD_TABLES[kind]
        doomed = [k for k in wanted if k not in adjudicated]
        for start in range(0, len(doomed), 500):
            chunk = doomed[start : start + 500]
            for row in session.exec(select(model).where(col(model.key).in_(chunk))).all():
                session.delete(row)
                deleted += 1
            for link in session.exec(
                select(tables.RunRecord).where(
                    col(tables.RunRecord.kind) == kind.value,
                    col(tables.RunRecord.key).in_(chunk),
                    col(tables.RunRecord.model).is_(None),  # a planned link stays: it reads as missing
                )
            ).all():
                session.delete(link)
    return deleted


def generation_errors(session: Session, keys: list[str]) -> dict[str, str]:
    """The error of each stored generation among ``keys`` that failed (the answers themselves are not read)."""
    found: dict[str, str] = {}
    for start in range(0, len(keys), 500):
        chunk = keys[start : start + 500]
        rows = session.exec(
            select(tables.Generation.key, tables.Generation.error).where(
                col(tables.Generation.key).in_(chunk), col(tables.Generation.status) == GenerationStatus.ERROR.value
            )
        )
        found.update(dict(rows.all()))
    return found


def generations_by_keys(session: Session, keys: list[str]) -> list[tables.Generation]:
    rows: list[tables.Generation] = []
    for start in range(0, len(keys), 500):
        chunk = keys[start : start + 500]
        rows.extend(session.exec(select(tables.Generation).where(col(tables.Generation.key).in_(chunk))))
    return rows


def _kind_of(record: tables.Generation | tables.Judgement | tables.PairJudgement) -> RecordKind:
    return next(kind for kind, model in RECORD_TABLES.items() if isinstance(record, model))


def add_records(
    session: Session, records: Sequence[tables.Generation | tables.Judgement | tables.PairJudgement]
) -> int:
    """Insert records whose key is new and link each to its run (a record that exists
    already is linked, not written again); return how many were new. In a unit of work:
    another pass may store the same key meanwhile."""
    added = 0
    for record in records:
        model = type(record)
        if session.exec(select(model).where(col(model.key) == record.key)).first() is None:
            session.add(record)
            added += 1
        link = (record.run_id, _kind_of(record).value, record.key)
        if session.get(tables.RunRecord, link) is None:  # a planned link keeps its coordinates
            session.add(tables.RunRecord(run_id=link[0], kind=link[1], key=link[2]))
    return added


def link_records(session: Session, run_id: int, kind: RecordKind, keys: Iterable[str]) -> int:
    """Link the run to the stored records of these keys (reused ones); missing keys are skipped."""
    wanted = list(dict.fromkeys(keys))
    model = RECORD_TABLES[kind]
    present: set[str] = set()
    for start in range(0, len(wanted), 500):
        present.update(session.exec(select(model.key).where(col(model.key).in_(wanted[start : start + 500]))).all())
    linked = set(
        session.exec(
            select(tables.RunRecord.key).where(
                col(tables.RunRecord.run_id) == run_id, col(tables.RunRecord.kind) == kind.value
            )
        ).all()
    )
    new = [key for key in wanted if key in present and key not in linked]
    for key in new:
        session.add(tables.RunRecord(run_id=run_id, kind=kind.value, key=key))
    return len(new)


class PlannedRecord(BaseModel):
    """A record a pass's plan names, where it stands in the plan (stored or not yet)."""

    kind: RecordKind
    key: str
    model: str
    qid: str
    sample_index: int
    position: int
    judge_repeat: int | None = None  # judgements: 0 is the score of record
    base_model: str | None = None  # pairs


def link_plan(session: Session, run_id: int, records: Sequence[PlannedRecord]) -> None:
    """Link the run to every record its plan names, stored or not yet, each with its place
    in the plan (written over a link that lacks it)."""
    linked = {
        (row.kind, row.key): row
        for row in session.exec(select(tables.RunRecord).where(col(tables.RunRecord.run_id) == run_id)).all()
    }
    for record in records:
        coordinates: dict[str, Any] = {
            "model": record.model,
            "qid": record.qid,
            "sample_index": record.sample_index,
            "judge_repeat": record.judge_repeat,
            "base_model": record.base_model,
            "position": record.position,
        }
        row = linked.get((record.kind.value, record.key))
        if row is None:  # the first place wins where two of the plan's records share a key
            row = tables.RunRecord(run_id=run_id, kind=record.kind.value, key=record.key, **coordinates)
            linked[(record.kind.value, record.key)] = row
            session.add(row)
        elif row.model is None:
            for name, value in coordinates.items():
                setattr(row, name, value)
            session.add(row)


def planned_records(session: Session, run_id: int) -> list[PlannedRecord]:
    """The records the run's plan named, in the plan's order (none for an import)."""
    rows = session.exec(
        select(tables.RunRecord).where(col(tables.RunRecord.run_id) == run_id, col(tables.RunRecord.model).is_not(None))
    ).all()
    return sorted(
        (
            PlannedRecord(
                kind=RecordKind(row.kind),
                key=row.key,
                model=row.model or "",
                qid=row.qid or "",
                sample_index=row.sample_index or 0,
                position=row.position or 0,
                judge_repeat=row.judge_repeat,
                base_model=row.base_model,
            )
            for row in rows
        ),
        key=lambda r: (r.position, r.judge_repeat or 0),
    )


_Record = TypeVar("_Record", tables.Generation, tables.Judgement, tables.PairJudgement)


def _of_run(session: Session, model: type[_Record], run_id: int) -> list[_Record]:
    """The records linked to the run (its own and the reused ones), oldest first."""
    kind = next(k for k, m in RECORD_TABLES.items() if m is model)
    linked = select(tables.RunRecord.key).where(
        col(tables.RunRecord.run_id) == run_id, col(tables.RunRecord.kind) == kind.value
    )
    return list(session.exec(select(model).where(col(model.key).in_(linked)).order_by(col(model.id))))


def run_generations(session: Session, run_id: int) -> list[tables.Generation]:
    return _of_run(session, tables.Generation, run_id)


def run_judgements(session: Session, run_id: int) -> list[tables.Judgement]:
    return _of_run(session, tables.Judgement, run_id)


def run_pairs(session: Session, run_id: int) -> list[tables.PairJudgement]:
    return _of_run(session, tables.PairJudgement, run_id)
