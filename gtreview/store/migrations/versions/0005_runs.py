"""Benchmark passes: runs, generations, pointwise and pairwise judgements.

Revision ID: 0005
Revises: 0004
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def _id() -> sa.Column:
    return sa.Column("id", sa.Integer(), primary_key=True)


def _run_fk() -> sa.Column:
    return sa.Column("run_id", sa.Integer(), sa.ForeignKey("run.id", ondelete="CASCADE"), nullable=False)


def upgrade() -> None:
    op.create_table(
        "run",
        _id(),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("set_id", sa.Integer(), sa.ForeignKey("benchmark_set.id"), nullable=True),
        sa.Column("rubric_hash", sa.String(), nullable=False),
        sa.Column("source", sa.String(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("config_json", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_run_set_id", "run", ["set_id"])
    op.create_table(
        "generation",
        _id(),
        _run_fk(),
        sa.Column("key", sa.String(), nullable=False),
        sa.Column("model_label", sa.String(), nullable=False),
        sa.Column("qid", sa.String(), nullable=False),
        sa.Column("sample_index", sa.Integer(), nullable=False),
        sa.Column("raw_text", sa.Text(), nullable=False),
        sa.Column("clean_text", sa.Text(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("error", sa.String(), nullable=False),
        sa.Column("finish_reason", sa.String(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("prompt_tokens", sa.Integer(), nullable=True),
        sa.Column("completion_tokens", sa.Integer(), nullable=True),
        sa.Column("seconds", sa.Float(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_generation_run_id", "generation", ["run_id"])
    op.create_index("ix_generation_key", "generation", ["key"], unique=True)
    op.create_table(
        "judgement",
        _id(),
        _run_fk(),
        sa.Column("key", sa.String(), nullable=False),
        sa.Column("generation_key", sa.String(), nullable=True),
        sa.Column("model_label", sa.String(), nullable=False),
        sa.Column("qid", sa.String(), nullable=False),
        sa.Column("sample_index", sa.Integer(), nullable=False),
        sa.Column("judge", sa.String(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("total", sa.Integer(), nullable=True),
        sa.Column("gate_passed", sa.Boolean(), nullable=True),
        sa.Column("record_json", sa.Text(), nullable=False),
        sa.Column("prompt_sha256", sa.String(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_judgement_run_id", "judgement", ["run_id"])
    op.create_index("ix_judgement_key", "judgement", ["key"], unique=True)
    op.create_table(
        "pair_judgement",
        _id(),
        _run_fk(),
        sa.Column("key", sa.String(), nullable=False),
        sa.Column("qid", sa.String(), nullable=False),
        sa.Column("sample_index", sa.Integer(), nullable=False),
        sa.Column("model_a", sa.String(), nullable=False),
        sa.Column("model_b", sa.String(), nullable=False),
        sa.Column("label", sa.String(), nullable=False),
        sa.Column("average", sa.Float(), nullable=True),
        sa.Column("inconsistent", sa.Boolean(), nullable=False),
        sa.Column("outcome_json", sa.Text(), nullable=False),
        sa.Column("judge", sa.String(), nullable=False),
        sa.Column("prompt_sha256", sa.String(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_pair_judgement_run_id", "pair_judgement", ["run_id"])
    op.create_index("ix_pair_judgement_key", "pair_judgement", ["key"], unique=True)


def downgrade() -> None:
    for table in ("pair_judgement", "judgement", "generation", "run"):
        op.drop_table(table)
