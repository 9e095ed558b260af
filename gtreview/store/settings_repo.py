"""Project settings: small JSON values stored in the project, not in the user's profile."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session

from gtreview.store.db import write_session
from gtreview.store.tables import ProjectSetting

APPROVAL_REQUIRES_CALIBRATION = "approval_requires_calibration"
JUDGE_SPEC = "judge_spec"


def get_setting(engine: Engine, key: str, default: Any = None) -> Any:
    with Session(engine) as session:
        row = session.get(ProjectSetting, key)
        return json.loads(row.value_json) if row is not None else default


def set_setting(engine: Engine, key: str, value: Any) -> None:
    """Insert or replace ``key``; under the write lock, so two processes setting a new key
    at once do not both insert it."""
    with write_session(engine) as session:
        put_setting(session, key, value)
        session.commit()


def append_to_setting(engine: Engine, key: str, value: Any) -> None:
    """Add ``value`` to the list kept under ``key``, under the write lock (two processes
    adding at once both keep theirs)."""
    with write_session(engine) as session:
        row = session.get(ProjectSetting, key) or ProjectSetting(key=key, value_json="[]")
        values = json.loads(row.value_json)
        row.value_json = json.dumps([*(values if isinstance(values, list) else []), value])
        session.add(row)
        session.commit()


# The signed release bundles written from the project (gtreview.app.releases): where each
# went and what it holds, so the window shows and verifies them.
PUBLISHED_RELEASES = "published_releases"


def put_setting(session: Session, key: str, value: Any) -> Any:
    """Set ``key`` in ``session`` (a write session: the caller commits); its value before."""
    row = session.get(ProjectSetting, key) or ProjectSetting(key=key, value_json="null")
    before = json.loads(row.value_json)
    row.value_json = json.dumps(value)
    session.add(row)
    return before


# The analyst's membership split (globs over corpus document names: trained on / held
# out), read by ``gtreview probe`` and the app (gtreview.app.membership).
MEMBERSHIP_SPLIT = "membership_split"

# The judge gate (gtreview.app.judge_gate): the agreement measure with the expert whose 95%
# lower bound must reach the threshold before a judge's figures count.
JUDGE_GATE_THRESHOLD = "judge_gate_threshold"
JUDGE_GATE_MEASURE = "judge_gate_measure"
