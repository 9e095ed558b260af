"""Expert adjudication of judgements and pairs, and blind human grades (both append-only).

Revision ID: 0006
Revises: 0005
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

_APPEND_ONLY = ("adjudication", "human_grade")


def upgrade() -> None:
    op.create_table(
        "adjudication",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("run_id", sa.Integer(), sa.ForeignKey("run.id"), nullable=False),
        sa.Column("target", sa.String(), nullable=False),
        sa.Column("key", sa.String(), nullable=False),
        sa.Column("actor", sa.String(), nullable=False),
        sa.Column("action", sa.String(), nullable=False),
        sa.Column("gate_passed", sa.Boolean(), nullable=True),
        sa.Column("awards_json", sa.Text(), nullable=False, server_default="{}"),
        sa.Column("total", sa.Integer(), nullable=True),
        sa.Column("label", sa.String(), nullable=True),
        sa.Column("reverts_id", sa.Integer(), nullable=True),
        sa.Column("reason", sa.String(), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_adjudication_run_id", "adjudication", ["run_id"])
    op.create_index("ix_adjudication_key", "adjudication", ["key"])
    op.create_table(
        "human_grade",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("run_id", sa.Integer(), sa.ForeignKey("run.id"), nullable=False),
        sa.Column("generation_key", sa.String(), nullable=False),
        sa.Column("grader", sa.String(), nullable=False),
        sa.Column("blind", sa.Boolean(), nullable=False),
        sa.Column("gate_passed", sa.Boolean(), nullable=False),
        sa.Column("awards_json", sa.Text(), nullable=False),
        sa.Column("total", sa.Integer(), nullable=False),
        sa.Column("comment", sa.String(), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_human_grade_run_id", "human_grade", ["run_id"])
    op.create_index("ix_human_grade_generation_key", "human_grade", ["generation_key"])
    for table in _APPEND_ONLY:
        for event in ("UPDATE", "DELETE"):
            op.execute(
                f"CREATE TRIGGER {table}_no_{event.lower()} BEFORE {event} ON {table} "
                f"BEGIN SELECT RAISE(ABORT, '{table} is append-only'); END"
            )


def downgrade() -> None:
    for table in _APPEND_ONLY:
        for event in ("update", "delete"):
            op.execute(f"DROP TRIGGER IF EXISTS {table}_no_{event}")
    op.drop_table("human_grade")
    op.drop_table("adjudication")
