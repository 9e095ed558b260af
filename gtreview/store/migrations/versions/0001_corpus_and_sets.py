"""Corpus documents, pages, passages and table rows; benchmark sets and versioned questions.

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "document",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("title", sa.String(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("sha256", sa.String(), nullable=False),
        sa.Column("size_bytes", sa.Integer(), nullable=False),
        sa.Column("page_count", sa.Integer(), nullable=False),
        sa.Column("row_count", sa.Integer(), nullable=False),
        sa.Column("columns_json", sa.Text(), nullable=False, server_default="[]"),
        sa.Column("key_column", sa.String(), nullable=True),
        sa.Column("imported_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_document_name", "document", ["name"], unique=True)
    op.create_index("ix_document_sha256", "document", ["sha256"], unique=True)
    op.create_table(
        "document_page",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("document_id", sa.Integer(), sa.ForeignKey("document.id", ondelete="CASCADE"), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.UniqueConstraint("document_id", "number"),
    )
    op.create_index("ix_document_page_document_id", "document_page", ["document_id"])
    op.create_table(
        "passage",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("document_id", sa.Integer(), sa.ForeignKey("document.id", ondelete="CASCADE"), nullable=False),
        sa.Column("page", sa.Integer(), nullable=False),
        sa.Column("line_start", sa.Integer(), nullable=False),
        sa.Column("line_end", sa.Integer(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
    )
    op.create_index("ix_passage_document_id", "passage", ["document_id"])
    op.create_table(
        "table_row",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("document_id", sa.Integer(), sa.ForeignKey("document.id", ondelete="CASCADE"), nullable=False),
        sa.Column("row_index", sa.Integer(), nullable=False),
        sa.Column("row_key", sa.String(), nullable=False),
        sa.Column("cells_json", sa.Text(), nullable=False),
        sa.UniqueConstraint("document_id", "row_index"),
    )
    op.create_index("ix_table_row_document_id", "table_row", ["document_id"])
    op.create_index("ix_table_row_row_key", "table_row", ["row_key"])
    op.create_table(
        "benchmark_set",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("source_name", sa.String(), nullable=False),
        sa.Column("header_json", sa.Text(), nullable=False),
        sa.Column("source_sha256", sa.String(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_benchmark_set_source_sha256", "benchmark_set", ["source_sha256"])
    op.create_table(
        "question",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("set_id", sa.Integer(), sa.ForeignKey("benchmark_set.id", ondelete="CASCADE"), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("qid", sa.String(), nullable=False),
        sa.Column("current_version", sa.Integer(), nullable=False),
        sa.Column("review_status", sa.String(), nullable=False),
        sa.UniqueConstraint("set_id", "qid"),
    )
    op.create_index("ix_question_set_id", "question", ["set_id"])
    op.create_table(
        "question_version",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("question_id", sa.Integer(), sa.ForeignKey("question.id", ondelete="CASCADE"), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("content_json", sa.Text(), nullable=False),
        sa.Column("content_hash", sa.String(), nullable=False),
        sa.Column("author", sa.String(), nullable=False),
        sa.Column("comment", sa.String(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.UniqueConstraint("question_id", "version"),
    )
    op.create_index("ix_question_version_question_id", "question_version", ["question_id"])


def downgrade() -> None:
    for table in ("question_version", "question", "benchmark_set", "table_row", "passage", "document_page", "document"):
        op.drop_table(table)
