"""The question list: a thin table model over QuestionRow read models, and its filter."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, QSortFilterProxyModel, Qt

from gtreview.app.review import QuestionRow
from gtreview.core.review_flow import status_words
from gtreview.core.wording import noun, plural

Index = QModelIndex | QPersistentModelIndex

COLUMNS = ("ID", "Section", "Title", "Difficulty", "Status", "Errors", "Warnings", "Calibration", "Paraphrase of")
ROW_ROLE = Qt.ItemDataRole.UserRole + 1
SORT_ROLE = Qt.ItemDataRole.UserRole + 2


class QuestionTableModel(QAbstractTableModel):
    def __init__(self, rows: list[QuestionRow] | None = None) -> None:
        super().__init__()
        self._rows: list[QuestionRow] = rows or []

    def set_rows(self, rows: list[QuestionRow]) -> None:
        """Show ``rows``. The same questions in the same order (a reload of the set) are
        updated in place, so the selection, the scroll position and the sorted, filtered
        view stay as they were, and rows that did not change are not redrawn."""
        changed = _changed_in_place(self._rows, rows)
        if changed is not None:
            self._rows = rows
            if changed:
                self.dataChanged.emit(self.index(changed[0], 0), self.index(changed[-1], len(COLUMNS) - 1))
            return
        self.beginResetModel()
        self._rows = rows
        self.endResetModel()

    def update_row(self, qid: str, row: QuestionRow) -> None:
        """Replace the row of ``qid`` in place (after an edit or a review action)."""
        for position, existing in enumerate(self._rows):
            if existing.qid == qid:
                self._rows[position] = row
                self.dataChanged.emit(self.index(position, 0), self.index(position, len(COLUMNS) - 1))
                return

    def rows(self) -> list[QuestionRow]:
        return list(self._rows)

    def row_at(self, row: int) -> QuestionRow:
        return self._rows[row]

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 - Qt API
        return 0 if parent.isValid() else len(self._rows)

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
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        row = self._rows[index.row()]
        column = index.column()
        if role == ROW_ROLE:
            return row
        if role == Qt.ItemDataRole.DisplayRole:
            return _display(row, column)
        if role == Qt.ItemDataRole.ToolTipRole and column == 5 and row.unresolved:
            said = f"{plural(row.unresolved, 'evidence locator')} {noun(row.unresolved, 'does', 'do')} not resolve"
            if row.waived:  # the approval recorded why: shown as warnings, with the reason in the finding
                return f"{said} in the corpus; approved over with a recorded reason (see the findings)"
            return f"{said} in the corpus (an error until fixed or approved with a reason)"
        if role == SORT_ROLE:
            return _sort_key(row, column)
        if role == Qt.ItemDataRole.ToolTipRole and column == 7:
            return _calibration_tip(row)
        if role == Qt.ItemDataRole.ToolTipRole and row.paraphrase_of and column in (0, 8):
            return f"A paraphrase of {row.paraphrase_of}: the same rubric, another wording"
        if role == Qt.ItemDataRole.TextAlignmentRole and column in (5, 6):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None


def _changed_in_place(old: list[QuestionRow], new: list[QuestionRow]) -> list[int] | None:
    """The positions whose row changed, when ``new`` holds the same questions in the same
    order as ``old``; None when the list itself changed."""
    if len(old) != len(new):
        return None
    changed = []
    for position, (before, after) in enumerate(zip(old, new, strict=True)):
        if before.qid != after.qid:
            return None
        if before.__dict__ != after.__dict__:  # the field values (a model's == costs ten times more)
            changed.append(position)
    return changed


def _display(row: QuestionRow, column: int) -> Any:
    match column:
        case 0:
            return row.qid
        case 1:
            return row.section
        case 2:
            return row.title
        case 3:
            return row.difficulty
        case 4:
            return status_words(row.review_status)
        case 5:
            return row.errors
        case 6:
            return row.warnings
        case 7:
            return row.calibration_text
        case 8:
            return row.paraphrase_of
    return None


def _sort_key(row: QuestionRow, column: int) -> Any:
    """What a column sorts by: difficulty by its rank, counts as numbers, calibration by
    how much the judge reproduced (not yet run first), the rest by text."""
    match column:
        case 3:
            return row.difficulty_rank
        case 5:
            return row.errors
        case 6:
            return row.warnings
        case 7:
            return -1.0 if row.reproduced is None else row.reproduced / max(1, row.fixtures)
    return str(_display(row, column)).casefold()


def _calibration_tip(row: QuestionRow) -> str:
    tip = f"{row.fixtures} calibration fixtures"
    if not row.calibration_ok:
        return tip + "; some break the calibration rules (see the findings)"
    if row.reproduced is None:
        return tip + "; not calibrated against a judge for this version (Review > Calibrate question)"
    return tip + f"; the judge reproduced {row.reproduced} when this version was last calibrated"


class QuestionFilterProxy(QSortFilterProxyModel):
    """Search over every text of the question (id, title, prompt, answers, rubric,
    fixtures), plus status/section/difficulty/findings filters."""

    def __init__(self) -> None:
        super().__init__()
        self._search = ""
        self._status = ""
        self._section = ""
        self._difficulty = ""
        self._findings_only = False
        self.setSortRole(SORT_ROLE)

    def set_filters(
        self,
        *,
        search: str = "",
        status: str = "",
        section: str = "",
        difficulty: str = "",
        findings_only: bool = False,
    ) -> None:
        self.beginFilterChange()
        self._search = search.casefold().strip()
        self._status, self._section, self._difficulty = status, section, difficulty
        self._findings_only = findings_only
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(self, source_row: int, source_parent: Index) -> bool:
        model = self.sourceModel()
        assert isinstance(model, QuestionTableModel)
        row = model.row_at(source_row)
        if self._status and row.review_status.value != self._status:
            return False
        if self._section and row.section != self._section:
            return False
        if self._difficulty and row.difficulty != self._difficulty:
            return False
        if self._findings_only and not row.has_findings:
            return False
        if self._search:
            return self._search in row.search_text or self._search in row.qid.casefold()
        return True
