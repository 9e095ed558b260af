"""Calibration fixtures as rows (backfilled from existing versions) and the append-only review log.

Revision ID: 0002
Revises: 0001
"""

import json

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

_APPEND_ONLY = {
    "review_log_no_update": "BEFORE UPDATE ON review_log",
    "review_log_no_delete": "BEFORE DELETE ON review_log",
}


def upgrade() -> None:
    fixture = op.create_table(
        "calibration_fixture",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column(
            "question_version_id",
            sa.Integer(),
            sa.ForeignKey("question_version.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("fixture_id", sa.String(), nullable=False),
        sa.Column("expected_gate_passed", sa.Boolean(), nullable=False),
        sa.Column("expected_total", sa.Integer(), nullable=False),
        sa.Column("content_json", sa.Text(), nullable=False),
        sa.UniqueConstraint("question_version_id", "position"),
    )
    op.create_index("ix_calibration_fixture_question_version_id", "calibration_fixture", ["question_version_id"])
    op.create_index("ix_calibration_fixture_fixture_id", "calibration_fixture", ["fixture_id"])
    op.create_table(
        "review_log",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.Column("actor", sa.String(), nullable=False),
        sa.Column("action", sa.String(), nullable=False),
        sa.Column("set_id", sa.Integer(), sa.ForeignKey("benchmark_set.id"), nullable=True),
        sa.Column("question_id", sa.Integer(), sa.ForeignKey("question.id"), nullable=True),
        sa.Column("version", sa.Integer(), nullable=True),
        sa.Column("content_hash", sa.String(), nullable=False),
        sa.Column("comment", sa.String(), nullable=False),
    )
    op.create_index("ix_review_log_at", "review_log", ["at"])
    op.create_index("ix_review_log_set_id", "review_log", ["set_id"])
    op.create_index("ix_review_log_question_id", "review_log", ["question_id"])
    for name, when in _APPEND_ONLY.items():
        op.execute(f"CREATE TRIGGER {name} {when} BEGIN SELECT RAISE(ABORT, 'the review log is append-only'); END")
    _backfill_fixtures(fixture)


def _backfill_fixtures(fixture: sa.Table) -> None:
    """Projects written at 0001 kept fixtures only inside each version's JSON."""
    connection = op.get_bind()
    rows = connection.execute(sa.text("SELECT id, content_json FROM question_version")).all()
    for version_id, content_json in rows:
        calibration = json.loads(content_json).get("calibration") or []
        records = [
            {
                "question_version_id": version_id,
                "position": position,
                "fixture_id": str(item.get("fixture_id", "")),
                "expected_gate_passed": bool(item.get("expected_gate_passed")),
                "expected_total": int(item.get("expected_total") or 0),
                "content_json": json.dumps(item, ensure_ascii=False),
            }
            for position, item in enumerate(calibration)
            if isinstance(item, dict)
        ]
        if records:
            op.bulk_insert(fixture, records)


def downgrade() -> None:
    for name in _APPEND_ONLY:
        op.execute(f"DROP TRIGGER IF EXISTS {name}")
    op.drop_table("review_log")
    op.drop_table("calibration_fixture")
