"""The adjudication queue: a thin table model over QueueItem read models, and its filter."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, QSortFilterProxyModel, Qt

from gtreview.app.adjudicate import sample_number
from gtreview.app.adjudication import QueueItem

Index = QModelIndex | QPersistentModelIndex

COLUMNS = ("Reason", "Question", "Model", "Sample", "Settled", "Why")
NOTE_CHARS = 120  # the Why column's text; the whole of it in the tooltip and the detail
ITEM_ROLE = Qt.ItemDataRole.UserRole + 1
ANY = "(any)"


class QueueTableModel(QAbstractTableModel):
    def __init__(self, items: list[QueueItem] | None = None) -> None:
        super().__init__()
        self._items: list[QueueItem] = list(items or [])

    def set_items(self, items: list[QueueItem]) -> None:
        """Show ``items``; when they are the same items as shown (a decision settled
        some), only the rows that changed are updated, so the selection stays."""
        if [i.key for i in items] != [i.key for i in self._items]:
            self.beginResetModel()
            self._items = list(items)
            self.endResetModel()
            return
        for row, (old, new) in enumerate(zip(self._items, items, strict=True)):
            if old.__dict__ != new.__dict__:  # the field values (a model's == costs ten times more)
                self._items[row] = new
                self.dataChanged.emit(self.index(row, 0), self.index(row, len(COLUMNS) - 1))

    def update_item(self, item: QueueItem) -> bool:
        """Put ``item`` (read again: settled or not now) in the row of the same key."""
        for row, old in enumerate(self._items):
            if old.key == item.key:
                if old != item:
                    self._items[row] = item
                    self.dataChanged.emit(self.index(row, 0), self.index(row, len(COLUMNS) - 1))
                return True
        return False

    def items(self) -> list[QueueItem]:
        return list(self._items)

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 - Qt API
        return 0 if parent.isValid() else len(self._items)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 - Qt API
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if (
            role == Qt.ItemDataRole.DisplayRole
            and orientation == Qt.Orientation.Horizontal
            and 0 <= section < len(COLUMNS)
        ):
            return COLUMNS[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._items):
            return None
        item = self._items[index.row()]
        if role == ITEM_ROLE:
            return item
        if role == Qt.ItemDataRole.DisplayRole:
            return _display(item, index.column())
        if role == Qt.ItemDataRole.ToolTipRole and index.column() == len(COLUMNS) - 1:
            return item.note or None
        return None


def _display(item: QueueItem, column: int) -> str | None:
    match column:
        case 0:
            return item.reason.value
        case 1:
            return item.qid
        case 2:
            return item.model
        case 3:
            return sample_number(item.sample_index)  # from 1, as `gtreview adjudicate list` says
        case 4:
            return "yes" if item.settled else ""
        case 5:
            note = " ".join(item.note.split())
            return note if len(note) <= NOTE_CHARS else note[: NOTE_CHARS - 1] + "…"
    return None


class QueueFilterProxy(QSortFilterProxyModel):
    """Reason, model and question filters ("(any)" or empty lets everything through)."""

    def __init__(self) -> None:
        super().__init__()
        self._wanted: dict[str, str] = {}

    def set_filters(self, *, reason: str = "", model: str = "", qid: str = "") -> None:
        self.beginFilterChange()
        self._wanted = {k: v for k, v in (("reason", reason), ("model", model), ("qid", qid)) if v not in ("", ANY)}
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def accepts(self, item: QueueItem) -> bool:
        values = {"reason": item.reason.value, "model": item.model, "qid": item.qid}
        return all(values[k] == v for k, v in self._wanted.items())

    def filterAcceptsRow(self, source_row: int, source_parent: Index) -> bool:
        item = self.sourceModel().index(source_row, 0, source_parent).data(ITEM_ROLE)
        return isinstance(item, QueueItem) and self.accepts(item)
