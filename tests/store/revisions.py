"""Undoing the later revisions of a project made at head, to test an older one's upgrade."""

from __future__ import annotations

from sqlalchemy import Connection, text


def drop_revisions_after_0010(connection: Connection) -> None:
    """The approval's and the sign-off's calibration requirement (revision 0012) and the
    corpus pages' text hash (revision 0011)."""
    connection.execute(text("ALTER TABLE set_signoff DROP COLUMN uncalibrated_json"))
    connection.execute(text("ALTER TABLE review_log DROP COLUMN calibration_required"))
    connection.execute(text("ALTER TABLE document_page DROP COLUMN text_sha256"))
