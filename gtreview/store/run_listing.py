"""The project's runs as the runs list shows them: status, record counts, models, judge, times."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from pydantic import BaseModel, Field
from sqlalchemy import func
from sqlmodel import Session, col, select

from gtreview.core.statuses import RecordKind, RunSource, RunStatus
from gtreview.store import tables
from gtreview.store.attempts import ran_seconds
from gtreview.store.run_owners import owner_alive

INTERRUPTED = "stopped (interrupted)"


RECORD_TABLES: dict[RecordKind, type[tables.Generation] | type[tables.Judgement] | type[tables.PairJudgement]] = {
    RecordKind.GENERATION: tables.Generation,
    RecordKind.JUDGEMENT: tables.Judgement,
    RecordKind.PAIR: tables.PairJudgement,
}


def displayed_status(status: RunStatus, live: bool) -> str:
    """The status as every view shows it (the runs list, the results view, the CLI, the
    report): a ``running`` run that no live process holds was interrupted (killed, crashed)."""
    return INTERRUPTED if status is RunStatus.RUNNING and not live else status.value


class RunSummary(BaseModel):
    """A run and how many records it uses (its own and the reused ones)."""

    id: int
    name: str
    source: RunSource
    status: RunStatus
    set_id: int | None
    generations: int
    judgements: int
    pairs: int
    owner: str | None = None
    live: bool = False  # running, and a live process holds it
    started_at: datetime | None = None
    last_written_at: datetime | None = None  # its last record of its own: where a finished pass ended
    models: list[str] = Field(default_factory=list)  # the labels of the models it answers with
    judge: str = ""

    ran_s: float | None = None  # the time its attempts ran, summed (attempts); None if not kept

    @property
    def duration_s(self) -> float | None:
        """How long the pass ran: its attempts summed (to now while it runs); a run that keeps
        no attempts (an import, an older pass) from its start to its last record of its own."""
        if self.ran_s is not None:
            return self.ran_s
        if self.started_at is None:
            return None
        end = datetime.now(UTC) if self.live else self.last_written_at
        return None if end is None else max(0.0, (_utc(end) - _utc(self.started_at)).total_seconds())

    @property
    def interrupted(self) -> bool:
        """Stored as running, but no live process holds it (killed, crashed)."""
        return self.status is RunStatus.RUNNING and not self.live

    @property
    def shown_status(self) -> str:
        """The status as every view shows it: a dead ``running`` run is interrupted."""
        return displayed_status(self.status, self.live)

    @property
    def resumable(self) -> bool:
        return self.source is RunSource.PASS and (self.status is RunStatus.STOPPED or self.interrupted)


def _utc(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)  # SQLite keeps no zone


def _who(config_json: str) -> tuple[list[str], str]:
    """The model labels and the judge a run names in its configuration (untyped here)."""
    try:
        config = json.loads(config_json or "{}")
    except ValueError:
        return [], ""
    asked = config.get("pass") or {}
    if isinstance(asked, dict) and asked.get("models"):
        labels = [str(m.get("label", "?")) for m in asked["models"] if isinstance(m, dict)]
        return labels, str(asked.get("judge") or "")
    harness = config.get("harness") or {}
    return ([str(label) for label in harness.get("labels") or []], "") if isinstance(harness, dict) else ([], "")


def _ran(run: tables.Run) -> float | None:
    try:
        config = json.loads(run.config_json or "{}")
    except ValueError:
        return None
    return ran_seconds(config, live=is_live(run), heartbeat_at=run.heartbeat_at, now=datetime.now(UTC))


def is_live(run: tables.Run) -> bool:
    return run.status == RunStatus.RUNNING.value and owner_alive(run.owner, run.heartbeat_at)


def list_runs(session: Session) -> list[RunSummary]:
    runs = list(session.exec(select(tables.Run).order_by(col(tables.Run.id))))
    counts: dict[tuple[int, str], int] = {}
    for kind, model in RECORD_TABLES.items():  # stored records only: a planned link may wait for its record
        for run_id, count in session.exec(
            select(tables.RunRecord.run_id, func.count())
            .join(model, col(model.key) == col(tables.RunRecord.key))
            .where(col(tables.RunRecord.kind) == kind.value)
            .group_by(col(tables.RunRecord.run_id))
        ):
            counts[(run_id, kind.value)] = count
    written: dict[int, datetime] = {}
    for model in RECORD_TABLES.values():
        for run_id, last in session.exec(select(model.run_id, func.max(model.created_at)).group_by(col(model.run_id))):
            if last is not None and (run_id not in written or last > written[run_id]):
                written[run_id] = last
    who = {run.id or 0: _who(run.config_json) for run in runs}
    return [
        RunSummary(
            id=run.id or 0,
            name=run.name,
            source=RunSource(run.source),
            status=RunStatus(run.status),
            set_id=run.set_id,
            generations=counts.get((run.id or 0, RecordKind.GENERATION.value), 0),
            judgements=counts.get((run.id or 0, RecordKind.JUDGEMENT.value), 0),
            pairs=counts.get((run.id or 0, RecordKind.PAIR.value), 0),
            owner=run.owner,
            live=is_live(run),
            started_at=_utc(run.created_at),
            last_written_at=written.get(run.id or 0),
            ran_s=_ran(run),
            models=who[run.id or 0][0],
            judge=who[run.id or 0][1],
        )
        for run in runs
    ]
