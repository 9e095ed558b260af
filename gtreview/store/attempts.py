"""How long a pass ran: the attempts a run was run (started, resumed), kept with it.

A stopped pass resumed twice ran three times; its duration is the time of the three
attempts summed, not the wall time since it was first started (hours of sitting
stopped) nor the time to its last record (a judge that returned nothing for ten
minutes wrote nothing). Each attempt is ``[start, end]`` (ISO times, UTC) under
``attempts`` in the run's stored configuration; an attempt whose process died has no
end and counts to its last heartbeat.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from gtreview.store import tables

ATTEMPTS = "attempts"


def _utc(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)  # SQLite keeps no zone


def _attempts(run: tables.Run) -> tuple[dict[str, Any], list[list[str | None]]]:
    config = json.loads(run.config_json or "{}")
    return config, list(config.get(ATTEMPTS) or [])


def begin(run: tables.Run, now: datetime) -> None:
    """A new attempt starts now; one left open by a process that died ends at its last heartbeat."""
    config, attempts = _attempts(run)
    if attempts and attempts[-1][1] is None:
        attempts[-1][1] = _utc(run.heartbeat_at or now).isoformat()
    attempts.append([now.isoformat(), None])
    run.config_json = json.dumps({**config, ATTEMPTS: attempts}, ensure_ascii=False)


def end(run: tables.Run, now: datetime, reason: str = "") -> None:
    """The open attempt (if any) ends now; ``reason``, why a pass stopped short, is kept as
    its third item (cancelled, stopped by drift, failed: ...), so the results can say which."""
    config, attempts = _attempts(run)
    if not attempts or (attempts[-1][1] is not None and not reason):
        return
    start, stop = attempts[-1][:2]  # a finished pass found wanting afterwards keeps its end
    attempts[-1] = [start, stop or now.isoformat(), *([reason] if reason else [])]
    run.config_json = json.dumps({**config, ATTEMPTS: attempts}, ensure_ascii=False)


def stop_reason(config: dict[str, Any]) -> str:
    """Why the last attempt stopped, as it was kept; empty when not known."""
    attempts = config.get(ATTEMPTS) or []
    last = attempts[-1] if attempts else []
    return str(last[2]) if len(last) > 2 and last[1] else ""


def ran_seconds(config: dict[str, Any], *, live: bool, heartbeat_at: datetime | None, now: datetime) -> float | None:
    """The attempts' time summed (the open one to now while it runs, to its last heartbeat
    once its process is gone); None for a run that keeps no attempts (an import, an older run)."""
    attempts = config.get(ATTEMPTS) or []
    if not attempts:
        return None
    total = 0.0
    for start, stop, *_ in attempts:
        until = datetime.fromisoformat(stop) if stop else (now if live else heartbeat_at)
        if until is not None:
            total += max(0.0, (_utc(until) - _utc(datetime.fromisoformat(start))).total_seconds())
    return total
