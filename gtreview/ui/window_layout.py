"""The main window's size, place and splitters, kept in the user's settings between runs."""

from __future__ import annotations

from PySide6.QtCore import QSettings, QSize
from PySide6.QtWidgets import QMainWindow, QSplitter

DEFAULT_SIZE = QSize(1500, 950)
PREFIX = "main_window"


def restore_layout(window: QMainWindow, settings: QSettings, splitters: dict[str, QSplitter]) -> None:
    """As the window was last closed; the default size where nothing was saved."""
    geometry = settings.value(f"{PREFIX}/geometry")
    if geometry is not None:
        window.restoreGeometry(geometry)
    size = settings.value(f"{PREFIX}/size")
    window.resize(size if isinstance(size, QSize) else DEFAULT_SIZE)  # some platforms restore no size
    for key, splitter in splitters.items():
        state = settings.value(f"{PREFIX}/{key}")
        if state is not None:
            splitter.restoreState(state)


def save_layout(window: QMainWindow, settings: QSettings, splitters: dict[str, QSplitter]) -> None:
    settings.setValue(f"{PREFIX}/geometry", window.saveGeometry())
    settings.setValue(f"{PREFIX}/size", window.size())
    for key, splitter in splitters.items():
        settings.setValue(f"{PREFIX}/{key}", splitter.saveState())
