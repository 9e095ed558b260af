"""The Run dialog: models, judge, repeats (answers and verdicts), drift checks and sampling of a benchmark pass.

It starts from the last pass asked for in the project (``app.project_settings.last_pass``),
offers Browse buttons that open in the first model folder of the preferences, and
refuses a local model file that does not exist (a relative path is looked up in the
model folders) before anything starts.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from gtreview.app.passes import resolve_local_files
from gtreview.core.errors import UserError, one_line
from gtreview.inference.backend import Sampling
from gtreview.runs.plan import JudgeRepeatMode, ModelEntry, PassConfig
from gtreview.ui.dialogs.model_files import pick_gguf
from gtreview.ui.widgets import html


class RunDialog(QDialog):
    def __init__(
        self,
        set_name: str,
        judge: str = "",
        parent: QWidget | None = None,
        *,
        last: PassConfig | None = None,
        model_folders: list[Path] | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Run a benchmark pass — {set_name}")
        self.model_folders = list(model_folders or [])
        self.name = QLineEdit(f"{set_name} pass")
        self.models = QPlainTextEdit()
        self.models.setPlaceholderText(
            "base=llama:/models/base.gguf\nlora=llama:/models/base.gguf?lora=/models/adapter.gguf"
        )
        self.models.setMinimumHeight(80)
        self.add_model = QPushButton("&Add a model file…")
        self.add_model.clicked.connect(self._browse_model)
        self.judge = QLineEdit(judge)
        self.judge.setPlaceholderText("llama:/models/judge.gguf or openai:http://host:8000#model")
        self.browse_judge = QPushButton("&Browse…")
        self.browse_judge.clicked.connect(self._browse_judge)
        for button in (self.add_model, self.browse_judge):
            button.setAutoDefault(False)  # Enter after a Browse never reopens the chooser
        self.repeats = QSpinBox(minimum=1, maximum=100, value=5)
        self.judge_repeats = QSpinBox(minimum=1, maximum=20, value=1)
        self.judge_repeats.setToolTip(
            "Verdicts per answer. With 2 or more the judge's own noise is measured apart from the model's "
            "(the components shown in another order each time); the first verdict stays the score of record."
        )
        self.drift_every = QSpinBox(minimum=0, maximum=1_000_000, value=PassConfig.model_fields["drift_every"].default)
        self.drift_every.setToolTip(
            "The judge scores the standardisation fixtures before the pass and again after every N verdicts; "
            "one it no longer reproduces stops the pass. 0 turns the checks off, the one at the start too "
            "(a judge that fails them can then still run, unchecked)."
        )
        self.judge_repeat_mode: JudgeRepeatMode = "shuffled"  # as the last pass asked (the command line chooses it)
        self.temperature = QDoubleSpinBox(minimum=0.0, maximum=2.0, singleStep=0.1, value=0.7)
        self.max_tokens = QSpinBox(minimum=16, maximum=32768, value=1024)
        self.seed = QSpinBox(minimum=0, maximum=2**31 - 1, value=1234)
        self.pairwise = QCheckBox("Compare each fine-tune with the base (both orders)")
        self.pairwise.setChecked(True)
        self.error = QLabel()
        self.error.setWordWrap(True)  # a long message wraps instead of widening the dialog
        self.error.setStyleSheet(f"color: {html.colours().error}")
        models_box = QVBoxLayout()
        models_box.addWidget(self.models)
        models_box.addWidget(self.add_model)
        judge_row = QHBoxLayout()
        judge_row.addWidget(self.judge, 1)
        judge_row.addWidget(self.browse_judge)
        form = QFormLayout(self)
        form.addRow("&Name", self.name)
        models_label = QLabel("&Models (LABEL=SPEC, base first)")
        models_label.setBuddy(self.models)
        form.addRow(models_label, models_box)
        judge_label = QLabel("&Judge")
        judge_label.setBuddy(self.judge)
        form.addRow(judge_label, judge_row)
        form.addRow("&Repeats per question", self.repeats)
        form.addRow("Judge re&peats per answer", self.judge_repeats)
        form.addRow("&Drift check every N verdicts (0: off)", self.drift_every)
        form.addRow("&Temperature", self.temperature)
        form.addRow("Max new to&kens", self.max_tokens)  # Alt+T is Temperature
        form.addRow("&Seed", self.seed)
        form.addRow("", self.pairwise)
        form.addRow("", self.error)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self._accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        self.config: PassConfig | None = None
        if last is not None:
            self.fill_from(last, keep_judge=bool(judge))

    def fill_from(self, last: PassConfig, *, keep_judge: bool = False) -> None:
        """The form as the last pass asked for it (the name stays this set's)."""
        self.models.setPlainText("\n".join(f"{m.label}={m.spec}" for m in last.models))
        if not keep_judge or not self.judge.text().strip():
            self.judge.setText(last.judge)
        self.repeats.setValue(last.repeats)
        self.judge_repeats.setValue(last.judge_repeats)
        self.judge_repeat_mode = last.judge_repeat_mode
        self.drift_every.setValue(last.drift_every)
        self.temperature.setValue(last.sampling.temperature)
        self.max_tokens.setValue(last.sampling.max_tokens)
        self.seed.setValue(last.sampling.seed if last.sampling.seed is not None else 1234)
        self.pairwise.setChecked(last.pairwise)

    def _pick_gguf(self, title: str, spec: str = "") -> str:
        return pick_gguf(self, title, self.model_folders, spec)

    def _browse_model(self) -> None:
        chosen = self._pick_gguf("Add a model file")
        if not chosen:
            return
        lines = [line for line in self.models.toPlainText().splitlines() if line.strip()]
        taken = {line.partition("=")[0].strip() for line in lines}
        label = "base" if not lines else next(f"model{n}" for n in range(2, 1000) if f"model{n}" not in taken)
        self.models.setPlainText("\n".join([*lines, f"{label}=llama:{chosen}"]))

    def _browse_judge(self) -> None:
        chosen = self._pick_gguf("Choose the judge model file", self.judge.text())
        if chosen:
            self.judge.setText(f"llama:{chosen}")

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
        config = PassConfig(
            name=self.name.text().strip() or "pass",
            models=models,
            judge=self.judge.text().strip(),
            repeats=self.repeats.value(),
            judge_repeats=self.judge_repeats.value(),
            judge_repeat_mode=self.judge_repeat_mode,
            sampling=Sampling(
                temperature=self.temperature.value(),
                top_p=0.95,
                seed=self.seed.value(),
                max_tokens=self.max_tokens.value(),
            ),
            pairwise=self.pairwise.isChecked(),
            drift_every=self.drift_every.value(),
        )
        try:  # local files must exist; relative paths are found in the model folders
            return resolve_local_files(config, self.model_folders)
        except UserError as exc:
            raise ValueError(one_line(exc)) from None

    def _accept(self) -> None:
        try:
            self.config = self.build_config()
        except ValueError as exc:
            self.error.setText(str(exc))
            return
        self.accept()
