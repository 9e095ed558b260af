"""A set keeps the text of the rubric file it was imported from.

Revision ID: 0008
Revises: 0007

So that an export of a set nobody edited is the imported file byte for byte, and an
edited set is written in the layout its file came in (indentation, one-line objects,
line ends). Sets imported before this revision have none and are written in the
harness's layout, as before.
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("benchmark_set", sa.Column("source_text", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("benchmark_set") as batch:
        batch.drop_column("source_text")
