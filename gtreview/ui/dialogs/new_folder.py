"""Asking for a folder that may not exist yet (a new project, a release): its path typed,
or a folder chosen with Browse. Qt's folder chooser refuses a name typed for a folder
that is not there ("Directory not found"), which is exactly what a new one is."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)


class NewFolderDialog(QDialog):
    """OK takes the path typed (made later by what asked for it); Browse fills it in."""

    def __init__(self, title: str, prompt: str, suggested: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.path_edit = QLineEdit(str(suggested))
        label = QLabel(prompt)
        label.setWordWrap(True)
        label.setBuddy(self.path_edit)
        self.browse = QPushButton("&Browse…")
        self.browse.setAutoDefault(False)  # Enter accepts the path, never reopens the chooser
        self.browse.clicked.connect(self._browse)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.ok = buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok.setDefault(True)
        self.path_edit.textChanged.connect(lambda text: self.ok.setEnabled(bool(text.strip())))
        row = QHBoxLayout()
        row.addWidget(self.path_edit, 1)
        row.addWidget(self.browse)
        layout = QVBoxLayout(self)
        layout.addWidget(label)
        layout.addLayout(row)
        layout.addWidget(buttons)
        self.resize(600, 120)
        self.path_edit.setFocus()
        self.path_edit.selectAll()

    def folder(self) -> Path:
        return Path(self.path_edit.text().strip()).expanduser()

    def _browse(self) -> None:
        start = self.folder()
        while not start.is_dir() and start != start.parent:
            start = start.parent  # the nearest folder that exists
        chosen = QFileDialog.getExistingDirectory(self, self.windowTitle(), str(start))
        if chosen:
            self.path_edit.setText(chosen)
        self.path_edit.setFocus()


def ask_new_folder(parent: QWidget | None, title: str, prompt: str, suggested: Path) -> Path | None:
    """The folder typed or chosen, or None when the dialog was cancelled."""
    dialog = NewFolderDialog(title, prompt, suggested, parent)
    return dialog.folder() if dialog.exec() == QDialog.DialogCode.Accepted else None


def unused(folder: Path) -> Path:
    """``folder``, or ``folder-2``, ``folder-3``… the first that does not exist yet (a suggestion)."""
    candidate, number = folder, 2
    while candidate.exists():
        candidate, number = folder.with_name(f"{folder.name}-{number}"), number + 1
    return candidate
