"""Preferences: reviewer name and signing key, default judge, model folders, GPU layers, threads, theme.

Stored in the user's settings (QSettings), not in projects: they describe the person
and the machine.
"""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QWidget,
)

from gtreview.app.releases import create_reviewer_key, reviewer_keys
from gtreview.core.errors import UserError, one_line
from gtreview.ui.theme import THEME_KEY, THEMES, apply_theme, theme_choice

KEYS = {
    "name": "reviewer/name",
    "key": "reviewer/signing_key",
    "judge": "preferences/default_judge",
    "folders": "preferences/model_folders",
    "gpu_layers": "preferences/n_gpu_layers",
    "threads": "preferences/n_threads",
    "theme": THEME_KEY,
}


class PreferencesDialog(QDialog):
    def __init__(self, settings: QSettings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Preferences")
        self.settings = settings
        self.name = QLineEdit(str(settings.value(KEYS["name"], "") or ""))
        self.key = QComboBox(editable=True)
        self.create_key = QPushButton("Create a key for this name")
        self.create_key.clicked.connect(self._create_key)
        self.judge = QLineEdit(str(settings.value(KEYS["judge"], "") or ""))
        self.judge.setPlaceholderText("llama:/models/judge.gguf or openai:http://host:8000#model")
        self.folders = QPlainTextEdit(str(settings.value(KEYS["folders"], "") or ""))
        self.folders.setPlaceholderText("one folder of GGUF models per line")
        self.folders.setMaximumHeight(70)
        self.gpu_layers = QSpinBox(minimum=-1, maximum=999, value=_int_setting(settings, "gpu_layers", -1))
        self.gpu_layers.setSpecialValueText("all (-1)")
        self.threads = QSpinBox(minimum=0, maximum=512, value=_int_setting(settings, "threads", 0))
        self.threads.setSpecialValueText(f"automatic ({os.cpu_count()} cores)")
        self.theme = QComboBox()
        for value, title in THEMES.items():
            self.theme.addItem(title, value)
        self.theme.setCurrentIndex(max(0, self.theme.findData(theme_choice(settings))))
        self._fill_keys(str(settings.value(KEYS["key"], "") or ""))
        key_row = QHBoxLayout()
        key_row.addWidget(self.key, 1)
        key_row.addWidget(self.create_key)
        form = QFormLayout(self)
        form.addRow("Reviewer &name", self.name)
        key_label = QLabel("&Signing key")  # a label beside a layout needs its buddy named
        key_label.setBuddy(self.key)
        form.addRow(key_label, key_row)
        form.addRow("Default &judge", self.judge)
        form.addRow("Model &folders", self.folders)
        form.addRow("&GPU layers", self.gpu_layers)
        form.addRow("&Threads", self.threads)
        form.addRow("The&me", self.theme)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self._save)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def _fill_keys(self, current: str) -> None:
        self.key.clear()
        try:
            names = [k.name for k in reviewer_keys()]
        except (UserError, OSError):  # an unreadable key folder: no keys to offer, nothing lost
            names = []
        self.key.addItems(names)
        self.key.setCurrentText(current)

    def _create_key(self) -> None:
        name = self.name.text().strip()
        if not name:
            return
        safe = "".join(ch if ch.isalnum() or ch in "._-" else "-" for ch in name)
        try:
            create_reviewer_key(safe)
        except (UserError, OSError) as exc:
            QMessageBox.warning(self, "Signing key", f"No key was created: {one_line(exc)}")
            return
        self._fill_keys(safe)

    def _save(self) -> None:
        values = {
            "name": self.name.text().strip(),
            "key": self.key.currentText().strip(),
            "judge": self.judge.text().strip(),
            "folders": self.folders.toPlainText().strip(),
            "gpu_layers": self.gpu_layers.value(),
            "threads": self.threads.value(),
            "theme": (theme := str(self.theme.currentData())),
        }
        for field, value in values.items():
            self.settings.setValue(KEYS[field], value)
        app = QApplication.instance()
        if isinstance(app, QApplication):
            apply_theme(app, theme)  # at once, not at the next start
        self.accept()


def _int_setting(settings: QSettings, name: str, default: int) -> int:
    """A whole-number preference; a missing or mangled value gives the default."""
    try:
        return int(str(settings.value(KEYS[name], default)))
    except ValueError:
        return default


def model_folders(settings: QSettings) -> list[Path]:
    """The folders of GGUF models (Preferences): where the Run dialog's Browse starts and
    where relative model paths are looked up."""
    text = str(settings.value(KEYS["folders"], "") or "")
    return [Path(line.strip()).expanduser() for line in text.splitlines() if line.strip()]


def signing_key(settings: QSettings) -> str:
    """The reviewer key a release is signed with unless another is chosen ('' for none)."""
    return str(settings.value(KEYS["key"], "") or "").strip()


def runtime_defaults(settings: QSettings) -> dict[str, int]:
    """GPU layers and threads to add to local model specs that do not set them."""
    defaults = {"n_gpu_layers": _int_setting(settings, "gpu_layers", -1)}
    threads = _int_setting(settings, "threads", 0)
    if threads > 0:
        defaults["threads"] = threads
    return defaults
