"""The component form shared by overrides and blind grading: gate, awards, reason.

An override's form starts from the decision in force (the expert's override where there
is one, else the judge's verdict) and says which it starts from."""

from __future__ import annotations

from PySide6.QtWidgets import QCheckBox, QFormLayout, QLabel, QLineEdit, QSpinBox, QWidget

from gtreview.core.grading import settle_awards
from gtreview.core.rubric import Question


class GradingForm(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.question: Question | None = None
        self.gate = QCheckBox("Gate passed")
        self.spins: dict[str, QSpinBox] = {}
        self.total = QLabel()
        self.origin = QLabel()
        self.reason = QLineEdit()
        self.reason.setPlaceholderText("reason (required for an override)")
        self.form = QFormLayout(self)
        self.gate.toggled.connect(self._update_total)

    def load(
        self, question: Question, gate: bool = False, awards: dict[str, int] | None = None, origin: str = ""
    ) -> None:
        """``origin``: what the values shown are (e.g. "the judge's verdict"), said above them."""
        while self.form.rowCount():
            self.form.removeRow(0)
        self.origin = QLabel(f"Starts from {origin}." if origin else "")
        self.origin.setWordWrap(True)
        if origin:
            self.form.addRow(self.origin)
        self.gate = QCheckBox("Gate passed (C1)")
        self.gate.setChecked(gate)
        self.gate.toggled.connect(self._update_total)
        self.form.addRow(self.gate)
        self.question, self.spins = question, {}
        for component in question.components:
            if component.is_gate:
                continue
            spin = QSpinBox(minimum=0, maximum=int(component.points))
            spin.setValue((awards or {}).get(component.id, 0))
            spin.setToolTip(component.credit_if or "")
            spin.valueChanged.connect(self._update_total)
            self.spins[component.id] = spin
            self.form.addRow(f"{component.id} (max {component.points})", spin)
        self.total = QLabel()
        self.reason = QLineEdit()
        self.reason.setPlaceholderText("reason")
        self.form.addRow("Total", self.total)
        self.form.addRow("Reason / comment", self.reason)
        self._update_total()

    def values(self) -> tuple[bool, dict[str, int]]:
        return self.gate.isChecked(), {cid: spin.value() for cid, spin in self.spins.items()}

    def _update_total(self) -> None:
        if self.question is None:
            return
        gate, awards = self.values()
        _, total = settle_awards(self.question, gate, awards)
        self.total.setText(f"{total} / 10 (computed by the rules)")
