"""The judge gate's project settings: the agreement measure on totals and the threshold
its 95% lower bound (and every criterion's) must reach. The dialog only gathers them;
the menu saves them through the settings use case, which checks them again."""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QDialog, QDialogButtonBox, QDoubleSpinBox, QFormLayout, QLabel, QWidget

from gtreview.app.judge_gate import MEASURE_NAMES
from gtreview.app.project_settings import GATE_MEASURES, JudgeGateSettings


class JudgeGateDialog(QDialog):
    def __init__(self, current: JudgeGateSettings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Judge gate")
        explain = QLabel(
            "Before a judge's figures count, its agreement with the expert's blind grades must reach this "
            "threshold on the 95% lower bound: on totals (by the measure below) and on every criterion "
            "(gate, binary and reasoning, by Cohen's or weighted kappa)."
        )
        explain.setWordWrap(True)
        self.threshold = QDoubleSpinBox()
        self.threshold.setRange(-1.0, 1.0)  # an agreement: 1 perfect, 0 chance, below 0 systematic disagreement
        self.threshold.setDecimals(2)
        self.threshold.setSingleStep(0.05)
        self.threshold.setValue(current.threshold)
        self.measure = QComboBox()
        for measure in GATE_MEASURES:
            self.measure.addItem(MEASURE_NAMES[measure], measure)
        self.measure.setCurrentIndex(max(0, self.measure.findData(current.measure)))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form = QFormLayout(self)
        form.addRow(explain)
        form.addRow("&Threshold (lower bound):", self.threshold)
        form.addRow("&Measure on totals:", self.measure)
        form.addRow(buttons)

    def chosen(self) -> tuple[float, str]:
        return self.threshold.value(), str(self.measure.currentData())
