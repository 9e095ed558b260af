"""Project settings and stored calibration results per question version.

Revision ID: 0004
Revises: 0003
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "project_setting",
        sa.Column("key", sa.String(), primary_key=True),
        sa.Column("value_json", sa.Text(), nullable=False),
    )
    op.create_table(
        "calibration_run",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("question_id", sa.Integer(), sa.ForeignKey("question.id", ondelete="CASCADE"), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("judge", sa.String(), nullable=False),
        sa.Column("prompt_sha256", sa.String(), nullable=False),
        sa.Column("reproduced", sa.Boolean(), nullable=False),
        sa.Column("report_json", sa.Text(), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_calibration_run_question_id", "calibration_run", ["question_id"])


def downgrade() -> None:
    op.drop_table("calibration_run")
    op.drop_table("project_setting")
