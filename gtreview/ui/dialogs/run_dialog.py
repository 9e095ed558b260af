"""The Run dialog: models, judge, repeats and sampling of a benchmark pass."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QLineEdit,
    QPlainTextEdit,
    QSpinBox,
    QWidget,
)

from gtreview.inference.backend import Sampling
from gtreview.runs.plan import ModelEntry, PassConfig


class RunDialog(QDialog):
    def __init__(self, set_name: str, judge: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Run a benchmark pass — {set_name}")
        self.name = QLineEdit(f"{set_name} pass")
        self.models = QPlainTextEdit()
        self.models.setPlaceholderText(
            "base=llama:/models/base.gguf\nlora=llama:/models/base.gguf?lora=/models/adapter.gguf"
        )
        self.models.setMinimumHeight(80)
        self.judge = QLineEdit(judge)
        self.judge.setPlaceholderText("llama:/models/judge.gguf or openai:http://host:8000#model")
        self.repeats = QSpinBox(minimum=1, maximum=100, value=5)
        self.temperature = QDoubleSpinBox(minimum=0.0, maximum=2.0, singleStep=0.1, value=0.7)
        self.max_tokens = QSpinBox(minimum=16, maximum=32768, value=1024)
        self.seed = QSpinBox(minimum=0, maximum=2**31 - 1, value=1234)
        self.pairwise = QCheckBox("Compare each fine-tune with the base (both orders)")
        self.pairwise.setChecked(True)
        self.error = QLineEdit(readOnly=True)
        self.error.setStyleSheet("color: #b00020; border: none")
        form = QFormLayout(self)
        form.addRow("Name", self.name)
        form.addRow("Models (LABEL=SPEC, base first)", self.models)
        form.addRow("Judge", self.judge)
        form.addRow("Repeats per question", self.repeats)
        form.addRow("Temperature", self.temperature)
        form.addRow("Max new tokens", self.max_tokens)
        form.addRow("Seed", self.seed)
        form.addRow("", self.pairwise)
        form.addRow("", self.error)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self._accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        self.config: PassConfig | None = None

    def build_config(self) -> PassConfig:
        """The pass described by the form; ValueError (one line) when it is incomplete."""
        models = []
        for line in self.models.toPlainText().splitlines():
            if not line.strip():
                continue
            label, sep, spec = line.partition("=")
            if not sep or not label.strip() or not spec.strip():
                raise ValueError(f"{line.strip()!r} is not LABEL=SPEC")
            models.append(ModelEntry(label=label.strip(), spec=spec.strip()))
        if not models:
            raise ValueError("name at least one model")
        if len({m.label for m in models}) != len(models):
            raise ValueError("model labels must be unique")
        if not self.judge.text().strip():
            raise ValueError("name a judge model")
        return PassConfig(
            name=self.name.text().strip() or "pass",
            models=models,
            judge=self.judge.text().strip(),
            repeats=self.repeats.value(),
            sampling=Sampling(
                temperature=self.temperature.value(),
                top_p=0.95,
                seed=self.seed.value(),
                max_tokens=self.max_tokens.value(),
            ),
            pairwise=self.pairwise.isChecked(),
        )

    def _accept(self) -> None:
        try:
            self.config = self.build_config()
        except ValueError as exc:
            self.error.setText(str(exc))
            return
        self.accept()
