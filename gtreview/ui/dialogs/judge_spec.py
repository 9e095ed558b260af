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

from gtreview.app.passes import resolve_local_spec
from gtreview.core.errors import UserError, one_line
from gtreview.ui.dialogs.model_files import pick_gguf
from gtreview.ui.widgets import html

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
        self.browse.setAutoDefault(False)  # Enter after Browse accepts; it never reopens the chooser
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self._accept)
        buttons.rejected.connect(self.reject)
        self.ok = buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok.setDefault(True)
        self.error = QLabel()
        self.error.setWordWrap(True)
        self.error.setStyleSheet(f"color: {html.colours().error}")
        self.error.setVisible(False)
        self._resolved = ""
        self.spec_edit.textChanged.connect(lambda text: self.ok.setEnabled(bool(text.strip())))
        self.ok.setEnabled(bool(current.strip()))
        row = QHBoxLayout()
        row.addWidget(self.spec_edit, 1)
        row.addWidget(self.browse)
        layout = QVBoxLayout(self)
        layout.addWidget(label)
        layout.addLayout(row)
        layout.addWidget(self.error)
        layout.addWidget(buttons)
        self.resize(560, 120)
        self.spec_edit.setFocus()

    def spec(self) -> str:
        """The spec accepted, its local file found (a relative path looked up in the model folders)."""
        return self._resolved or self.spec_edit.text().strip()

    def _accept(self) -> None:
        """A spec whose model file is not there is refused in one line; the dialog stays."""
        try:
            self._resolved = resolve_local_spec(self.spec_edit.text().strip(), self.model_folders)
        except UserError as exc:
            self.error.setText(one_line(exc))
            self.error.setVisible(True)
            return
        self.accept()

    def _browse(self) -> None:
        chosen = pick_gguf(self, "Choose the judge model file", self.model_folders, self.spec_edit.text())
        if chosen:
            self.spec_edit.setText(f"llama:{chosen}")
        self.spec_edit.setFocus()  # Enter now accepts what was chosen


def ask_judge_spec(parent: QWidget | None, current: str, model_folders: list[Path]) -> str | None:
    """The spec chosen, or None when the dialog was cancelled."""
    dialog = JudgeSpecDialog(current, model_folders, parent)
    return dialog.spec() if dialog.exec() == QDialog.DialogCode.Accepted else None
