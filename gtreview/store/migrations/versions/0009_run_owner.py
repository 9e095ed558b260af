"""A running run names the process that holds it, and that process's last heartbeat.

Revision ID: 0009
Revises: 0008

So that a pass whose process died (killed, crashed, the machine went down) no longer
reads as running forever: a run is live only while its owner (``host:pid``) is alive
and keeps its heartbeat fresh. Runs written before this revision have no owner, so a
``running`` one of them is shown as interrupted.
"""

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("run", sa.Column("owner", sa.String(), nullable=True))
    op.add_column("run", sa.Column("heartbeat_at", sa.DateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("run") as batch:
        batch.drop_column("heartbeat_at")
        batch.drop_column("owner")
