"""Field widgets bound to paths of a question's JSON, and an editable record table."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import shiboken6
from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gtreview.core.findings import Finding
from gtreview.core.jsonpath import Path
from gtreview.core.rubric import TOTAL_POINTS
from gtreview.ui.widgets import html

_INT = re.compile(r"^-?\d+$")
_FLOAT = re.compile(r"^-?\d*\.\d+$")
_LINE_BREAKS = re.compile(r"\s*[\r\n\v\f\x1c-\x1e\x85\u2028\u2029]+\s*")


class PlainTextField(QPlainTextEdit):
    """A plain-text field that reports losing focus (the commit point).

    Its preferred height is its minimum (Qt's is 192 px): the form's fields keep their
    heights when a finding appears and the form outgrows its view, instead of every field
    growing to Qt's size at once and pushing the finding (and the section) out of view."""

    focus_lost = Signal()

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()
        return QSize(hint.width(), self.minimumHeight()) if self.minimumHeight() else hint

    def focusOutEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        super().focusOutEvent(event)
        self.focus_lost.emit()


@dataclass
class Binding:
    """One editable field: where it lives in the JSON and how to read/write its widget."""

    path: Path
    label: str
    widget: QWidget
    read: Callable[[], Any]
    write: Callable[[Any], None]
    findings: QLabel
    prefix: str

    def matches(self, finding: Finding) -> bool:
        return finding.path == self.prefix or finding.path.startswith((self.prefix + ".", self.prefix + "["))

    def show_findings(self, findings: list[Finding]) -> None:
        mine = [f for f in findings if self.matches(f)]
        self.findings.setVisible(bool(mine))
        self.findings.setText("<br>".join(_finding_html(f) for f in mine))


def _finding_html(finding: Finding) -> str:
    c = html.colours()  # the theme's: dark red on a dark window is not read
    colour = c.error if finding.is_error else c.warning
    return f"<span style='color:{colour}'>● {finding.message} <i>({finding.code})</i></span>"


def findings_label() -> QLabel:
    label = QLabel()
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.RichText)
    label.setVisible(False)
    label.setObjectName("findings")
    return label


def one_line(text: str) -> str:
    """A one-line field's text with pasted line breaks made spaces (a title or an id
    copied from a paragraph is one line)."""
    return _LINE_BREAKS.sub(" ", text)


def components_title(components: Any) -> str:
    """The components' heading: the points they total now, beside the 10 they must total."""
    points = [c.get("points") for c in components if isinstance(c, dict)] if isinstance(components, list) else []
    whole = [p for p in points if isinstance(p, int) and not isinstance(p, bool)]
    if not points or len(whole) != len(points):
        return f"Components (must total {TOTAL_POINTS})"
    total = sum(whole)
    return (
        f"Components (total {total})"
        if total == TOTAL_POINTS
        else f"Components (total {total}; must be {TOTAL_POINTS})"
    )


def give_focus_back(body: QWidget, focused: QWidget, fallback: QWidget | None) -> None:
    """On the next turn of the loop, the focus back on ``focused`` (else ``fallback``,
    when it is gone: a table's closed cell editor) if a reload of ``body`` moved it."""

    def back() -> None:
        now = QApplication.focusWidget()
        if now is not None and not body.isAncestorOf(now):
            return  # the expert has gone elsewhere meanwhile
        for widget in (focused, fallback):
            if widget is not None and shiboken6.isValid(widget) and widget.isVisible() and widget.isEnabled():
                if now is not widget:
                    widget.setFocus(Qt.FocusReason.OtherFocusReason)
                return

    QTimer.singleShot(0, back)


def parse_number(text: str) -> Any:
    """Whole numbers as int, decimals as float (so the validator can name them), else the text."""
    text = text.strip()
    if _INT.match(text):
        return int(text)
    if _FLOAT.match(text):
        return float(text)
    return text


@dataclass(frozen=True)
class ColumnSpec:
    key: str
    title: str
    kind: str = "text"  # text | number | bool


class RecordTable(QWidget):
    """A table of JSON objects (components, evidence, variants) with add and remove.

    Each row remembers the object it came from, so keys the table does not show are
    kept, and a cell left empty does not add a key the object never had.
    """

    edited = Signal()

    def __init__(
        self, columns: list[ColumnSpec], new_record: Callable[[int], dict[str, Any]], parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.columns = columns
        self.new_record = new_record
        self._originals: list[dict[str, Any]] = []
        self.table = QTableWidget(0, len(columns))
        self.table.setHorizontalHeaderLabels([c.title for c in columns])
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setWordWrap(True)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.itemChanged.connect(lambda _item: self.edited.emit())
        self.add_button = QPushButton("Add")
        self.remove_button = QPushButton("Remove")
        self.add_button.clicked.connect(self._add)
        self.remove_button.clicked.connect(self._remove)
        buttons = QHBoxLayout()
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.remove_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.table)
        layout.addLayout(buttons)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)  # its table's height, steady

    def set_records(self, records: list[dict[str, Any]]) -> None:
        self._originals = [copy.deepcopy(r) for r in records]
        self.table.blockSignals(True)
        self.table.setRowCount(len(records))
        for row, record in enumerate(records):
            for column, spec in enumerate(self.columns):
                self.table.setItem(row, column, self._item(spec, record.get(spec.key)))
        self.table.resizeRowsToContents()
        self.table.setFixedHeight(min(60 + 30 * len(records), 320))  # steady: never grown by the form's relayout
        self.table.blockSignals(False)

    @staticmethod
    def _item(spec: ColumnSpec, value: Any) -> QTableWidgetItem:
        item = QTableWidgetItem()
        if spec.kind == "bool":
            item.setFlags(Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
            item.setCheckState(Qt.CheckState.Checked if value else Qt.CheckState.Unchecked)
        else:
            item.setText("" if value is None else str(value))
        return item

    def records(self) -> list[dict[str, Any]]:
        result = []
        for row in range(self.table.rowCount()):
            record = copy.deepcopy(self._originals[row]) if row < len(self._originals) else {}
            for column, spec in enumerate(self.columns):
                item = self.table.item(row, column)
                if item is None:
                    continue
                if spec.kind == "bool":
                    record[spec.key] = item.checkState() == Qt.CheckState.Checked
                    continue
                text = item.text()
                if text == "" and spec.key not in record:
                    continue
                record[spec.key] = parse_number(text) if spec.kind == "number" else text
            result.append(record)
        return result

    def _add(self) -> None:
        records = self.records()
        records.append(self.new_record(len(records)))
        self._originals.append(records[-1])
        self.set_records(records)
        self.edited.emit()

    def _remove(self) -> None:
        row = self.table.currentRow()
        if row < 0:
            return
        records = self.records()
        del records[row]
        self.set_records(records)
        self.edited.emit()
