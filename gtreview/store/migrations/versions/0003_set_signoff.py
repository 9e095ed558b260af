"""Frozen, content-hashed sign-offs of benchmark sets (append-only).

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

_APPEND_ONLY = {
    "set_signoff_no_update": "BEFORE UPDATE ON set_signoff",
    "set_signoff_no_delete": "BEFORE DELETE ON set_signoff",
}


def upgrade() -> None:
    op.create_table(
        "set_signoff",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("set_id", sa.Integer(), sa.ForeignKey("benchmark_set.id"), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("content_hash", sa.String(), nullable=False),
        sa.Column("rubric_json", sa.Text(), nullable=False),
        sa.Column("question_count", sa.Integer(), nullable=False),
        sa.Column("reviewer", sa.String(), nullable=False),
        sa.Column("comment", sa.String(), nullable=False),
        sa.Column("signed_at", sa.DateTime(), nullable=False),
        sa.UniqueConstraint("set_id", "number"),
    )
    op.create_index("ix_set_signoff_set_id", "set_signoff", ["set_id"])
    for name, when in _APPEND_ONLY.items():
        op.execute(f"CREATE TRIGGER {name} {when} BEGIN SELECT RAISE(ABORT, 'sign-offs are frozen'); END")


def downgrade() -> None:
    for name in _APPEND_ONLY:
        op.execute(f"DROP TRIGGER IF EXISTS {name}")
    op.drop_table("set_signoff")
