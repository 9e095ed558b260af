"""Who runs a pass: its owner process, its liveness, and the runs held in this process.

A running run names its owner (``host:pid``) and that process keeps a heartbeat; the
owner is alive while its heartbeat is fresh and, on this host, its process exists.
Two passes of one process share an owner, so the runs a pass of this process holds
are also kept here, and a second pass on one of them is refused. Claiming a run is
one write transaction (:func:`gtreview.store.db.unit_of_work`) so two processes never both claim.
"""

from __future__ import annotations

import os
import socket
import threading
from datetime import UTC, datetime

from sqlalchemy import Engine

from gtreview.core.errors import UserError
from gtreview.processes import pid_alive

HEARTBEAT_S = 10.0  # how often a running pass says it is alive
STALE_AFTER_S = 60.0  # a heartbeat older than this: the process is gone (or hung)


class RunBusyError(UserError):
    """The run is being run by another live process (or another pass of this one)."""


def process_owner() -> str:
    """This process, as a run's owner names it."""
    return f"{socket.gethostname()}:{os.getpid()}"


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def owner_alive(owner: str | None, heartbeat_at: datetime | None, now: datetime | None = None) -> bool:
    """Whether the process ``owner`` names still holds its run: a fresh heartbeat and,
    on this host, a process of that id (a reused id has no fresh heartbeat)."""
    if not owner or heartbeat_at is None:
        return False
    if owner == process_owner():
        return True
    now = now or datetime.now(UTC)
    if (now - _aware(heartbeat_at)).total_seconds() > STALE_AFTER_S:
        return False
    host, _, pid = owner.rpartition(":")
    if host == socket.gethostname():
        return pid.isdigit() and pid_alive(int(pid))
    return True


# The runs a pass of this process holds, by database: owner_alive() cannot tell two
# passes of one process apart, so a second one is refused here.
_held_here: set[tuple[str, int]] = set()
_held_lock = threading.Lock()


def hold(engine: Engine, run_id: int, *, held_here: bool) -> None:
    """Hold the run for a pass of this process; ``held_here`` (the database says this
    process runs it) refuses it when another pass of this process holds it."""
    with _held_lock:
        if held_here and (str(engine.url), run_id) in _held_here:
            raise RunBusyError(f"run {run_id} is being run by another pass in this process; wait for it")
        _held_here.add((str(engine.url), run_id))


def release(engine: Engine, run_id: int) -> None:
    with _held_lock:
        _held_here.discard((str(engine.url), run_id))
