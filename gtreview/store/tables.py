"""SQLModel tables of a gtreview project database.

The schema is owned by the Alembic migrations in ``migrations/versions``; these
classes must describe exactly the head revision (a test compares them).
JSON payloads are stored as text so the exact document is kept.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import Column, Text, UniqueConstraint
from sqlmodel import Field, SQLModel


def utc_now() -> datetime:
    return datetime.now(UTC)


class Document(SQLModel, table=True):
    __tablename__ = "document"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(unique=True, index=True)
    title: str
    kind: str
    sha256: str = Field(unique=True, index=True)
    size_bytes: int
    page_count: int = 0
    row_count: int = 0
    columns_json: str = Field(default="[]", sa_column=Column(Text, nullable=False, server_default="[]"))
    key_column: str | None = None
    imported_at: datetime = Field(default_factory=utc_now)


class DocumentPage(SQLModel, table=True):
    __tablename__ = "document_page"
    __table_args__ = (UniqueConstraint("document_id", "number"),)

    id: int | None = Field(default=None, primary_key=True)
    document_id: int = Field(foreign_key="document.id", index=True, ondelete="CASCADE")
    number: int
    text: str = Field(sa_column=Column(Text, nullable=False))
    text_sha256: str = ""  # of the text as imported (revision 0011): a changed byte is found


class Passage(SQLModel, table=True):
    __tablename__ = "passage"

    id: int | None = Field(default=None, primary_key=True)
    document_id: int = Field(foreign_key="document.id", index=True, ondelete="CASCADE")
    page: int
    line_start: int
    line_end: int
    text: str = Field(sa_column=Column(Text, nullable=False))


class TableRow(SQLModel, table=True):
    __tablename__ = "table_row"
    __table_args__ = (UniqueConstraint("document_id", "row_index"),)

    id: int | None = Field(default=None, primary_key=True)
    document_id: int = Field(foreign_key="document.id", index=True, ondelete="CASCADE")
    row_index: int
    row_key: str = Field(index=True)
    cells_json: str = Field(sa_column=Column(Text, nullable=False))


class BenchmarkSet(SQLModel, table=True):
    __tablename__ = "benchmark_set"

    id: int | None = Field(default=None, primary_key=True)
    name: str
    source_name: str
    header_json: str = Field(sa_column=Column(Text, nullable=False))
    source_sha256: str = Field(index=True)
    created_at: datetime = Field(default_factory=utc_now)
    source_text: str | None = Field(default=None, sa_column=Column(Text, nullable=True))  # the file as imported


class Question(SQLModel, table=True):
    __tablename__ = "question"
    __table_args__ = (UniqueConstraint("set_id", "qid"),)

    id: int | None = Field(default=None, primary_key=True)
    set_id: int = Field(foreign_key="benchmark_set.id", index=True, ondelete="CASCADE")
    position: int
    qid: str
    current_version: int = 1
    review_status: str = "draft"


class QuestionVersion(SQLModel, table=True):
    """One saved state of a question; a new row per edit, never updated."""

    __tablename__ = "question_version"
    __table_args__ = (UniqueConstraint("question_id", "version"),)

    id: int | None = Field(default=None, primary_key=True)
    question_id: int = Field(foreign_key="question.id", index=True, ondelete="CASCADE")
    version: int
    content_json: str = Field(sa_column=Column(Text, nullable=False))
    content_hash: str
    author: str
    comment: str = ""
    created_at: datetime = Field(default_factory=utc_now)


class CalibrationFixture(SQLModel, table=True):
    """The fixtures of a question version, queryable without parsing its JSON."""

    __tablename__ = "calibration_fixture"
    __table_args__ = (UniqueConstraint("question_version_id", "position"),)

    id: int | None = Field(default=None, primary_key=True)
    question_version_id: int = Field(foreign_key="question_version.id", index=True, ondelete="CASCADE")
    position: int
    fixture_id: str = Field(index=True)
    expected_gate_passed: bool
    expected_total: int
    content_json: str = Field(sa_column=Column(Text, nullable=False))


class ReviewLog(SQLModel, table=True):
    """Append-only audit trail (triggers refuse UPDATE and DELETE)."""

    __tablename__ = "review_log"

    id: int | None = Field(default=None, primary_key=True)
    at: datetime = Field(default_factory=utc_now, index=True)
    actor: str
    action: str
    set_id: int | None = Field(default=None, foreign_key="benchmark_set.id", index=True)
    question_id: int | None = Field(default=None, foreign_key="question.id", index=True)
    version: int | None = None
    content_hash: str
    comment: str = ""
    # On an approval: whether the project required a reproduced calibration then (0011;
    # None before it, and on every other action).
    calibration_required: bool | None = None


class SetSignoff(SQLModel, table=True):
    """A signed-off, frozen version of a benchmark set; never updated or deleted."""

    __tablename__ = "set_signoff"
    __table_args__ = (UniqueConstraint("set_id", "number"),)

    id: int | None = Field(default=None, primary_key=True)
    set_id: int = Field(foreign_key="benchmark_set.id", index=True)
    number: int
    content_hash: str
    rubric_json: str = Field(sa_column=Column(Text, nullable=False))
    question_count: int
    reviewer: str
    comment: str = ""
    signed_at: datetime = Field(default_factory=utc_now)
    # The signed questions approved while calibration was not required, a JSON list of ids
    # (0011; None: signed before it, not recorded).
    uncalibrated_json: str | None = Field(default=None, sa_column=Column(Text, nullable=True))


class ProjectSetting(SQLModel, table=True):
    """Project-wide settings that travel with the project (JSON values)."""

    __tablename__ = "project_setting"

    key: str = Field(primary_key=True)
    value_json: str = Field(sa_column=Column(Text, nullable=False))


class CalibrationRun(SQLModel, table=True):
    """A judge's calibration of one question version: what it scored for each fixture."""

    __tablename__ = "calibration_run"

    id: int | None = Field(default=None, primary_key=True)
    question_id: int = Field(foreign_key="question.id", index=True, ondelete="CASCADE")
    version: int
    judge: str
    prompt_sha256: str
    reproduced: bool
    report_json: str = Field(sa_column=Column(Text, nullable=False))
    at: datetime = Field(default_factory=utc_now)


class Run(SQLModel, table=True):
    """A benchmark pass: gtreview's own, or one imported from harness files."""

    __tablename__ = "run"

    id: int | None = Field(default=None, primary_key=True)
    name: str
    set_id: int | None = Field(default=None, foreign_key="benchmark_set.id", index=True)
    rubric_hash: str
    source: str  # "gtreview" or "harness-import"
    status: str
    config_json: str = Field(default="{}", sa_column=Column(Text, nullable=False))
    created_at: datetime = Field(default_factory=utc_now)
    owner: str | None = None  # "host:pid" of the process running it (revision 0009)
    heartbeat_at: datetime | None = None  # that process's last sign of life


class Generation(SQLModel, table=True):
    """One model answer (raw and cleaned) or a recorded generation failure."""

    __tablename__ = "generation"

    id: int | None = Field(default=None, primary_key=True)
    run_id: int = Field(foreign_key="run.id", index=True, ondelete="CASCADE")
    key: str = Field(unique=True, index=True)
    model_label: str
    qid: str
    sample_index: int
    raw_text: str = Field(sa_column=Column(Text, nullable=False))
    clean_text: str = Field(sa_column=Column(Text, nullable=False))
    status: str  # ok | error
    error: str = ""
    finish_reason: str = ""
    attempts: int = 1
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    seconds: float | None = None
    created_at: datetime = Field(default_factory=utc_now)


class Judgement(SQLModel, table=True):
    """A pointwise judgement (grader-contract record) of one generation."""

    __tablename__ = "judgement"

    id: int | None = Field(default=None, primary_key=True)
    run_id: int = Field(foreign_key="run.id", index=True, ondelete="CASCADE")
    key: str = Field(unique=True, index=True)
    generation_key: str | None = None
    model_label: str
    qid: str
    sample_index: int
    judge: str
    status: str  # scored | unscored
    total: int | None = None
    gate_passed: bool | None = None
    record_json: str = Field(sa_column=Column(Text, nullable=False))
    prompt_sha256: str = ""
    created_at: datetime = Field(default_factory=utc_now)


class PairJudgement(SQLModel, table=True):
    """A pairwise judgement in both orders, reconciled."""

    __tablename__ = "pair_judgement"

    id: int | None = Field(default=None, primary_key=True)
    run_id: int = Field(foreign_key="run.id", index=True, ondelete="CASCADE")
    key: str = Field(unique=True, index=True)
    qid: str
    sample_index: int
    model_a: str
    model_b: str
    label: str
    average: float | None = None
    inconsistent: bool = False
    outcome_json: str = Field(sa_column=Column(Text, nullable=False))
    judge: str = ""
    prompt_sha256: str = ""
    created_at: datetime = Field(default_factory=utc_now)


class Adjudication(SQLModel, table=True):
    """An expert's decision on a judgement or a pair: confirm, override or revert.

    Append-only: the judge's verdict is never changed; the latest decision that has not
    been reverted is the one every figure uses.
    """

    __tablename__ = "adjudication"

    id: int | None = Field(default=None, primary_key=True)
    run_id: int = Field(foreign_key="run.id", index=True)
    target: str  # judgement | pair
    key: str = Field(index=True)  # the judgement's or the pair's content key
    actor: str
    action: str  # confirm | override | revert
    gate_passed: bool | None = None
    awards_json: str = Field(default="{}", sa_column=Column(Text, nullable=False, server_default="{}"))
    total: int | None = None
    label: str | None = None  # a pair's settled verdict
    reverts_id: int | None = None
    reason: str = ""
    at: datetime = Field(default_factory=utc_now)


class HumanGrade(SQLModel, table=True):
    """An expert's own grading of an answer, in the judge's component form (append-only)."""

    __tablename__ = "human_grade"

    id: int | None = Field(default=None, primary_key=True)
    run_id: int = Field(foreign_key="run.id", index=True)
    generation_key: str = Field(index=True)
    grader: str
    blind: bool = True
    gate_passed: bool
    awards_json: str = Field(sa_column=Column(Text, nullable=False))
    total: int
    comment: str = ""
    at: datetime = Field(default_factory=utc_now)


class RunRecord(SQLModel, table=True):
    """Which records a run uses: the ones it wrote and the ones it reused from earlier runs.

    A record's own ``run_id`` names only the run that first wrote it; a pass that reuses
    stored answers (same content key) or extends a pass to more repeats is linked to
    every record it counts here, so each run's records are found without re-planning.
    """

    __tablename__ = "run_record"

    run_id: int = Field(foreign_key="run.id", primary_key=True, ondelete="CASCADE")
    kind: str = Field(primary_key=True)  # generation | judgement | pair
    key: str = Field(primary_key=True, index=True)
    # The record's place in the pass's plan, written when a pass links its plan (NULL for
    # an import's links, whose records carry their own model, question and sample). A
    # planned record not stored yet is linked too, so the results show it as missing.
    model: str | None = None  # the answering model's label; a pair's fine-tune
    qid: str | None = None
    sample_index: int | None = None
    judge_repeat: int | None = None  # a judgement's verdict: 0 is the score of record
    base_model: str | None = None  # a pair's base label
    position: int | None = None  # the order of the plan: its answer's place (a pair's own)
