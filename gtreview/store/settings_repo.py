"""Project settings: small JSON values stored in the project, not in the user's profile.

Every function takes the session of the intent that calls it (a write in
``store.db.unit_of_work``, a read in ``store.db.reading``); none commits."""

from __future__ import annotations

import json
from typing import Any

from sqlmodel import Session

from gtreview.store.tables import ProjectSetting

APPROVAL_REQUIRES_CALIBRATION = "approval_requires_calibration"
JUDGE_SPEC = "judge_spec"


def get_setting(session: Session, key: str, default: Any = None) -> Any:
    row = session.get(ProjectSetting, key)
    return json.loads(row.value_json) if row is not None else default


def set_setting(session: Session, key: str, value: Any) -> Any:
    """Insert or replace ``key``; its value before. In a unit of work (the write lock
    first), so two processes setting a new key at once do not both insert it."""
    row = session.get(ProjectSetting, key) or ProjectSetting(key=key, value_json="null")
    before = json.loads(row.value_json)
    row.value_json = json.dumps(value)
    session.add(row)
    return before


def append_to_setting(session: Session, key: str, value: Any) -> None:
    """Add ``value`` to the list kept under ``key``; in a unit of work, so two processes
    adding at once both keep theirs."""
    row = session.get(ProjectSetting, key) or ProjectSetting(key=key, value_json="[]")
    values = json.loads(row.value_json)
    row.value_json = json.dumps([*(values if isinstance(values, list) else []), value])
    session.add(row)


# The signed release bundles written from the project (gtreview.app.releases): where each
# went and what it holds, so the window shows and verifies them.
PUBLISHED_RELEASES = "published_releases"

# The analyst's membership split (globs over corpus document names: trained on / held
# out), read by ``gtreview probe`` and the app (gtreview.app.membership).
MEMBERSHIP_SPLIT = "membership_split"

# The judge gate (gtreview.app.judge_gate): the agreement measure with the expert whose 95%
# lower bound must reach the threshold before a judge's figures count.
JUDGE_GATE_THRESHOLD = "judge_gate_threshold"
JUDGE_GATE_MEASURE = "judge_gate_measure"
