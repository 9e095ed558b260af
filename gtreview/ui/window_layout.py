"""The main window's size, place and splitters, kept in the user's settings between runs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QSettings, QSize
from PySide6.QtWidgets import QMainWindow, QSplitter

if TYPE_CHECKING:
    from gtreview.ui.main_window import MainWindow

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


def window_splitters(window: MainWindow) -> dict[str, QSplitter]:
    """The window's splitters by the key their state is kept under."""
    return {
        "main_splitter": window.main_splitter,
        "work_splitter": window.work_splitter,
        "detail_splitter": window.detail_splitter,
        "results_splitter": window.results_view.splitter,  # the charts against the tables
        "results_lower_pane": window.results_view.lower_pane,  # the tables against the answers
    }
