"""Calibration fixtures: each response with its expected gate, awards, total and role.

Every change commits the whole ``calibration`` list as one edit (one version, one
undo step). The judged column is filled once the judging engine has scored the
fixtures; until then it says so.
"""

from __future__ import annotations

import copy
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSpinBox,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gtreview.app.question_calibration import FixtureCheck, QuestionCalibration
from gtreview.core.calibration import fixture_role
from gtreview.core.rubric import CalibrationFixture, Question
from gtreview.core.validation import validate_question
from gtreview.ui.widgets import html
from gtreview.ui.widgets.fields import PlainTextField, findings_label

NOT_JUDGED = "not judged yet"
UNSCORED = "unscored"  # judged, and the judge broke its contract: no awards to show
GATE = {True: "gate pass", False: "gate fail"}


class FixtureEditor(QWidget):
    edit_requested = Signal(object, object, object, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._content: dict[str, Any] = {}
        self._judged: tuple[str, QuestionCalibration] | None = None
        self._fixtures: list[dict[str, Any]] = []
        self._judge = ""
        self._checks: dict[str, FixtureCheck] = {}
        self._loading = False

        self.fixture_list = QListWidget()
        self.fixture_list.currentRowChanged.connect(self._show)
        self.add_button = QPushButton("Add fixture")
        self.delete_button = QPushButton("Delete fixture")
        self.add_button.clicked.connect(self._add)
        self.delete_button.clicked.connect(self._delete)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.fixture_list)
        buttons = QHBoxLayout()
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.delete_button)
        left_layout.addLayout(buttons)

        self.fixture_id = QLineEdit()
        self.role = QLabel()
        self.gate_passed = QCheckBox("Gate passed")
        self.response = PlainTextField()
        self.awards = QTableWidget(0, 4)
        self.awards.setHorizontalHeaderLabels(["Component", "Max", "Expected", "Judged"])
        self.awards.horizontalHeader().setStretchLastSection(True)
        self.total = QSpinBox(minimum=0, maximum=10)
        self.sum_label = QLabel()
        self.rationale = PlainTextField()
        self.rationale.setMaximumHeight(80)
        form_widget = QWidget()
        form = QFormLayout(form_widget)
        form.addRow("Fixture id", self.fixture_id)
        form.addRow("Role", self.role)
        form.addRow("", self.gate_passed)
        form.addRow("Response", self.response)
        form.addRow("Awards", self.awards)
        total_row = QHBoxLayout()
        total_row.addWidget(self.total)
        total_row.addWidget(self.sum_label, 1)
        form.addRow("Expected total", total_row)
        form.addRow("Rationale", self.rationale)
        self.findings = findings_label()
        form.addRow("", self.findings)

        self.response.setMinimumHeight(110)  # at 1280x720 the form scrolls instead of squeezing its fields
        self.awards.setMinimumHeight(150)
        self.awards.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.sum_label.setWordWrap(True)
        self.sum_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(form_widget)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(left)
        splitter.addWidget(scroll)
        splitter.setStretchFactor(1, 3)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(splitter)

        self.fixture_id.editingFinished.connect(self._commit)
        self.gate_passed.toggled.connect(lambda _on: self._commit())
        self.response.focus_lost.connect(self._commit)
        self.rationale.focus_lost.connect(self._commit)
        self.total.editingFinished.connect(self._commit)
        self.awards.itemChanged.connect(lambda _item: self._commit())

    def load(self, content: dict[str, Any], judged: tuple[str, QuestionCalibration] | None = None) -> None:
        """Show the fixtures and, when the current version has been calibrated, what the judge gave."""
        if content == self._content and judged == self._judged and self.fixture_list.count():
            return  # unchanged (an edit of another field): nothing to redraw
        self._judged = judged
        self._content = content
        self._judge = judged[0] if judged else ""
        self._checks = {f.fixture_id: f for f in judged[1].fixtures} if judged else {}
        self._fixtures = copy.deepcopy(content.get("calibration") or [])
        row = max(0, self.fixture_list.currentRow())
        self._loading = True
        self.fixture_list.clear()
        question = self._question()
        for fixture in self._fixtures:
            check = self._checks.get(str(fixture.get("fixture_id")))
            mark = "" if check is None else ("  ✓ reproduced" if check.reproduced else "  ✗ " + check.reason)
            self.fixture_list.addItem(self._summary(question, fixture) + mark)
        self._loading = False
        if self._fixtures:
            self.fixture_list.setCurrentRow(min(row, len(self._fixtures) - 1))
            self._show(self.fixture_list.currentRow())
        else:
            self._clear_form()  # no fixture: nothing of the last question's stays on show
        findings = [f for f in validate_question(content) if f.path.startswith("$.calibration")]
        self.findings.setVisible(bool(findings))
        self.findings.setText(
            "<br>".join(
                f"<span style='color:{html.colours().error}'>● {f.path[len('$.calibration') :]}: {f.message}</span>"
                for f in findings
            )
        )

    def _clear_form(self) -> None:
        self._loading = True
        for field in (self.fixture_id, self.response, self.rationale):
            field.clear()
        self.gate_passed.setChecked(False)
        self.total.setValue(0)
        self.awards.setRowCount(0)
        for label in (self.role, self.sum_label):
            label.clear()
        self._loading = False

    def _question(self) -> Question | None:
        try:
            return Question.model_validate(self._content)
        except ValueError:
            return None

    @staticmethod
    def _summary(question: Question | None, raw: dict[str, Any]) -> str:
        try:
            fixture = CalibrationFixture.model_validate(raw)
        except ValueError:
            return f"{raw.get('fixture_id', '?')} · malformed"
        role = fixture_role(question, fixture).value if question is not None else "?"
        gate = "gate pass" if fixture.expected_gate_passed else "gate fail"
        return f"{fixture.fixture_id} · {role} · {gate} · {fixture.expected_total}"

    def _components(self) -> list[tuple[str, Any]]:
        return [
            (c.get("id", "?"), c.get("points")) for c in self._content.get("components") or [] if isinstance(c, dict)
        ]

    def _show(self, row: int) -> None:
        if self._loading or not 0 <= row < len(self._fixtures):
            return
        fixture = self._fixtures[row]
        self._loading = True
        self.fixture_id.setText(str(fixture.get("fixture_id", "")))
        self.gate_passed.setChecked(bool(fixture.get("expected_gate_passed")))
        self.response.setPlainText(str(fixture.get("response_text") or ""))
        self.rationale.setPlainText(str(fixture.get("rationale") or ""))
        total = fixture.get("expected_total")
        self.total.setValue(total if isinstance(total, int) else 0)
        awarded = {
            a.get("id"): a.get("awarded") for a in fixture.get("expected_component_awards") or [] if isinstance(a, dict)
        }
        components = self._components()
        check = self._checks.get(str(fixture.get("fixture_id")))
        self.awards.setRowCount(len(components))
        for position, (cid, points) in enumerate(components):
            judged = (
                NOT_JUDGED
                if check is None
                else UNSCORED
                if check.judged_total is None
                else check.judged_awards.get(cid, 0)
            )
            for column, value in enumerate((cid, points, awarded.get(cid, 0), judged)):
                item = QTableWidgetItem("" if value is None else str(value))
                if column != 2:
                    item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
                self.awards.setItem(position, column, item)
        question = self._question()
        self.role.setText(self._summary(question, fixture).split(" · ")[1] if question else "")
        award_sum = sum(v for v in awarded.values() if isinstance(v, int))
        verdict = ""
        if check is not None:
            outcome = "reproduced" if check.reproduced else f"NOT reproduced: {check.reason}"
            if check.judged_total is None:  # the judge broke its contract: no gate, no total
                verdict = f" · judged by {self._judge}: {UNSCORED} — {outcome}"
            else:
                gate = "unknown gate" if check.judged_gate_passed is None else GATE[check.judged_gate_passed]
                verdict = f" · judged by {self._judge}: {gate}, total {check.judged_total} — {outcome}"
        self.sum_label.setText(f"awards sum to {award_sum}{verdict}")
        self._loading = False

    def shows_field(self, path: tuple[str | int, ...]) -> bool:
        """Whether an edit of ``path`` is one of this editor's (the fixtures, as one list)."""
        return tuple(path) == ("calibration",) and 0 <= self.fixture_list.currentRow() < len(self._fixtures)

    def keep_unsaved(self, path: tuple[str | int, ...], value: Any) -> bool:
        """Put back the fixture being edited when that edit was refused (someone saved a
        newer version first): the newer fixtures are shown, and the fixture of the same id
        shows what the expert had typed, unsaved, saved on top when a field is left. Only
        that fixture comes back, so the other writer's changes to the others stay."""
        row = self.fixture_list.currentRow()
        if not self.shows_field(path) or not isinstance(value, list):
            return False
        fixture_id = str(self._fixtures[row].get("fixture_id"))
        typed = next((f for f in value if isinstance(f, dict) and str(f.get("fixture_id")) == fixture_id), None)
        if typed is None:
            return False
        shown, self._fixtures = self._fixtures, [*self._fixtures[:row], typed, *self._fixtures[row + 1 :]]
        try:
            self._show(row)  # the widgets now hold the typed values; nothing is committed
        finally:
            self._fixtures = shown  # what is saved; a commit builds the typed fixture on it
        return True

    def _current_fixture_from_widgets(self, original: dict[str, Any]) -> dict[str, Any]:
        fixture = copy.deepcopy(original)
        fixture["fixture_id"] = self.fixture_id.text().strip()
        fixture["response_text"] = self.response.toPlainText()
        fixture["expected_gate_passed"] = self.gate_passed.isChecked()
        awards = []
        for position in range(self.awards.rowCount()):
            cid_item, value_item = self.awards.item(position, 0), self.awards.item(position, 2)
            if cid_item is None or value_item is None:
                continue
            text = value_item.text().strip()
            awards.append({"id": cid_item.text(), "awarded": int(text) if text.lstrip("-").isdigit() else text})
        fixture["expected_component_awards"] = awards
        fixture["expected_total"] = self.total.value()
        if self.rationale.toPlainText() or "rationale" in original:
            fixture["rationale"] = self.rationale.toPlainText()
        return fixture

    def _commit(self) -> None:
        row = self.fixture_list.currentRow()
        if self._loading or not 0 <= row < len(self._fixtures):
            return
        updated = list(self._fixtures)
        updated[row] = self._current_fixture_from_widgets(self._fixtures[row])
        self._emit(updated, f"edit fixture {updated[row]['fixture_id']}")

    def _emit(self, fixtures: list[dict[str, Any]], label: str) -> None:
        old = self._content.get("calibration") or []
        if fixtures == old:
            return
        self._fixtures = fixtures
        self.edit_requested.emit(("calibration",), copy.deepcopy(old), copy.deepcopy(fixtures), label)

    def _add(self) -> None:
        qid = str(self._content.get("id", "Q"))
        taken = {str(f.get("fixture_id")) for f in self._fixtures}
        number = len(self._fixtures) + 1
        while f"{qid}-F{number}" in taken:
            number += 1
        fixture = {
            "fixture_id": f"{qid}-F{number}",
            "response_text": "",
            "expected_gate_passed": False,
            "expected_component_awards": [{"id": cid, "awarded": 0} for cid, _ in self._components()],
            "expected_total": 0,
            "rationale": "",
        }
        self._emit([*self._fixtures, fixture], f"add fixture {fixture['fixture_id']}")
        self.fixture_list.setCurrentRow(len(self._fixtures) - 1)

    def _delete(self) -> None:
        row = self.fixture_list.currentRow()
        if 0 <= row < len(self._fixtures):
            removed = self._fixtures[row]
            self._emit(
                [f for n, f in enumerate(self._fixtures) if n != row], f"delete fixture {removed.get('fixture_id')}"
            )
