"""Each corpus page keeps the sha256 of its text, so a changed byte is found.

Revision ID: 0011
Revises: 0010

Question versions, sign-offs and releases carry content hashes; a page's text did not,
so a byte changed in the database by a tool or a bad disk went unnoticed and locators
resolved against it. The import writes the hash of each page's text as it stores it;
this revision computes it for the pages of older projects from their text as it is
(what is there now is what they have been reading).
"""

import hashlib

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

BATCH = 500  # pages hashed and written at a time: bounded memory on a 200 MB corpus


def text_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def upgrade() -> None:
    op.add_column("document_page", sa.Column("text_sha256", sa.String(), nullable=False, server_default=""))
    connection = op.get_bind()
    last = 0
    while True:
        rows = connection.execute(
            sa.text("SELECT id, text FROM document_page WHERE id > :last ORDER BY id LIMIT :n"),
            {"last": last, "n": BATCH},
        ).all()
        if not rows:
            break
        connection.execute(
            sa.text("UPDATE document_page SET text_sha256 = :hash WHERE id = :id"),
            [{"id": page_id, "hash": text_sha256(text)} for page_id, text in rows],
        )
        last = rows[-1][0]


def downgrade() -> None:
    with op.batch_alter_table("document_page") as batch:
        batch.drop_column("text_sha256")
