"""The judge model, asked for where calibration or the Edit menu needs one: a spec typed,
or a GGUF file chosen with Browse (it opens in the first model folder of the preferences,
as the Run dialog's does)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from gtreview.ui.dialogs.model_files import pick_gguf

JUDGE_PROMPT = "Judge model spec (llama:PATH.gguf, openai:URL#MODEL, anthropic:MODEL):"


class JudgeSpecDialog(QDialog):
    """OK waits for a spec; Browse fills in ``llama:PATH`` of the file chosen."""

    def __init__(self, current: str, model_folders: list[Path], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Judge model")
        self.model_folders = model_folders
        self.spec_edit = QLineEdit(current)
        self.spec_edit.setPlaceholderText("llama:/models/judge.gguf or openai:http://host:8000#model")
        label = QLabel(JUDGE_PROMPT)
        label.setBuddy(self.spec_edit)
        self.browse = QPushButton("&Browse…")
        self.browse.clicked.connect(self._browse)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.ok = buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.spec_edit.textChanged.connect(lambda text: self.ok.setEnabled(bool(text.strip())))
        self.ok.setEnabled(bool(current.strip()))
        row = QHBoxLayout()
        row.addWidget(self.spec_edit, 1)
        row.addWidget(self.browse)
        layout = QVBoxLayout(self)
        layout.addWidget(label)
        layout.addLayout(row)
        layout.addWidget(buttons)
        self.resize(560, 120)
        self.spec_edit.setFocus()

    def spec(self) -> str:
        return self.spec_edit.text().strip()

    def _browse(self) -> None:
        chosen = pick_gguf(self, "Choose the judge model file", self.model_folders)
        if chosen:
            self.spec_edit.setText(f"llama:{chosen}")


def ask_judge_spec(parent: QWidget | None, current: str, model_folders: list[Path]) -> str | None:
    """The spec chosen, or None when the dialog was cancelled."""
    dialog = JudgeSpecDialog(current, model_folders, parent)
    return dialog.spec() if dialog.exec() == QDialog.DialogCode.Accepted else None
