"""Tables whose selection moves only when the user means it to."""

from __future__ import annotations

from PySide6.QtWidgets import QTableView


class NoTypeAheadTable(QTableView):
    """A table view without Qt's type-ahead: by default, letters typed while the table has
    the focus (a reason meant for a dialog that has just closed, a shortcut whose modifier
    slipped) silently select the next row starting with them, and the next Approve or
    Confirm acts on a question the user never chose. Finding is the search box's job."""

    def keyboardSearch(self, search: str) -> None:
        return
