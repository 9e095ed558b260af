"""Choosing a GGUF model file: the file dialog opens in the folder of the file already
named, else the first model folder of the preferences that exists (the Run dialog's and
the judge dialog's Browse)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QWidget

GGUF_FILTER = "GGUF models (*.gguf);;All files (*)"


def start_folder(folders: list[Path], spec: str = "") -> str:
    """Where a file dialog opens: the folder of the file ``spec`` names (``llama:PATH``),
    else the first model folder that exists, else the home folder (never the folder the
    app was started in)."""
    kind, _, location = spec.strip().partition(":")
    named = Path(location.partition("?")[0]).expanduser().parent if kind == "llama" and location else None
    existing = [f.expanduser() for f in ([named] if named else []) + folders if f.expanduser().is_dir()]
    return str(existing[0]) if existing else str(Path.home())


def pick_gguf(parent: QWidget, title: str, folders: list[Path], spec: str = "") -> str:
    """A GGUF file chosen in a file dialog, or '' when none was."""
    chosen, _ = QFileDialog.getOpenFileName(parent, title, start_folder(folders, spec), GGUF_FILTER)
    return chosen
