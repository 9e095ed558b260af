"""The statuses a run and its records carry, as stored (values are the database's text).

Why here and not in ``gtreview.runs``: the store defines the run and record tables and
its read models (``runs_repo.RunRow``, ``RunSummary``) are typed by these enums, and the
layers contract puts the store below ``runs`` (the store may not import ``runs``). Only
``core`` is below both, so the enums live here, pure and without I/O; ``gtreview.runs
.statuses`` re-exports them as the runs layer's names, and everything above the store
imports them from there.

Every value is the exact string the database and the files (harness scores, CSV, JSON)
have always carried, so nothing stored or written changes: these are ``StrEnum``s, equal
to their text.
"""

from __future__ import annotations

from enum import StrEnum


class RunSource(StrEnum):
    """Who made a run: a pass of this program or an import of harness files."""

    PASS = "gtreview"
    HARNESS = "harness-import"


class RunStatus(StrEnum):
    RUNNING = "running"
    FINISHED = "finished"
    STOPPED = "stopped"  # cancelled, stopped by drift or failed: running it again resumes
    IMPORTED = "imported"


class RecordKind(StrEnum):
    """The kinds of record a run links to (``run_record.kind``)."""

    GENERATION = "generation"
    JUDGEMENT = "judgement"
    PAIR = "pair"


class GenerationStatus(StrEnum):
    """A stored generation: an answer, or a generation failure recorded as a result."""

    OK = "ok"
    ERROR = "error"  # failed after its retries: counts against the model


class JudgementStatus(StrEnum):
    """A stored pointwise judgement: a verdict, or a judge that broke its contract."""

    SCORED = "scored"
    UNSCORED = "unscored"  # re-asked and still off contract: never 0, never dropped
