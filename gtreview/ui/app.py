"""Starting the desktop app: choose the project, build the window, run the loop."""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication, QMessageBox

from gtreview import __version__
from gtreview.paths import default_project_dir, sample_project_dir
from gtreview.services.sample_project import ensure_sample_project
from gtreview.store.project import Project, ProjectError, open_project
from gtreview.ui.main_window import MainWindow


def choose_project(project: Path | None, sample: bool) -> Project:
    """The project to open: the one named, else the sample on first run or on request."""
    if sample or (project is None and not (default_project_dir() / "project.sqlite").exists()):
        return ensure_sample_project(project or sample_project_dir())
    return open_project(project or default_project_dir())


def run_app(project: Path | None = None, sample: bool = False) -> int:
    app = QApplication.instance() or QApplication(sys.argv)
    app.setApplicationName("gtreview")
    app.setOrganizationName("gtreview")
    app.setApplicationVersion(__version__)
    try:
        opened = choose_project(project, sample)
    except (ProjectError, OSError) as exc:
        QMessageBox.critical(None, "gtreview", f"Cannot open the project: {exc}")
        return 2
    window = MainWindow(opened, QSettings())
    window.setWindowTitle(f"gtreview — {opened.folder}")
    window.show()
    try:
        return app.exec()
    finally:
        opened.close()
