"""Approvals and sign-offs record whether calibration was required.

Revision ID: 0012
Revises: 0011

Review > Require calibration before approval can be switched off; an approval made
then must not read like a calibrated one. Each approval's audit entry says whether the
project required a reproduced calibration at that moment, and a sign-off keeps the ids
of its questions approved without that requirement (what a release bundle shows).
Entries and sign-offs written before this revision say nothing (NULL: not recorded).
"""

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("review_log", sa.Column("calibration_required", sa.Boolean(), nullable=True))
    op.add_column("set_signoff", sa.Column("uncalibrated_json", sa.Text(), nullable=True))


def downgrade() -> None:
    # Plain ALTER TABLE (SQLite 3.35+): a batch copy would drop the append-only triggers.
    op.execute("ALTER TABLE set_signoff DROP COLUMN uncalibrated_json")
    op.execute("ALTER TABLE review_log DROP COLUMN calibration_required")
