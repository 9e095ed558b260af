"""Choosing a GGUF model file: the file dialog opens in the first model folder of the
preferences that exists (the Run dialog's and the judge dialog's Browse)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QWidget

GGUF_FILTER = "GGUF models (*.gguf);;All files (*)"


def start_folder(folders: list[Path]) -> str:
    """The first model folder that exists, where a file dialog opens ('' for the default)."""
    existing = [f for f in folders if f.expanduser().is_dir()]
    return str(existing[0].expanduser()) if existing else ""


def pick_gguf(parent: QWidget, title: str, folders: list[Path]) -> str:
    """A GGUF file chosen in a file dialog, or '' when none was."""
    chosen, _ = QFileDialog.getOpenFileName(parent, title, start_folder(folders), GGUF_FILTER)
    return chosen
