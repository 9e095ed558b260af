"""Starting the desktop app: choose the project, build the window, run the loop."""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication, QMessageBox

from gtreview import __version__
from gtreview.paths import default_project_dir, sample_project_dir
from gtreview.services.sample_project import ensure_sample_project
from gtreview.store.project import DB_FILE, Project, ProjectError, open_project
from gtreview.ui.main_window import MainWindow
from gtreview.ui.menus import remember_project


def choose_project(project: Path | None, sample: bool) -> Project:
    """The project to open: the one named, else the sample on first run or on request."""
    if sample or (project is None and not (default_project_dir() / DB_FILE).exists()):
        return ensure_sample_project(project or sample_project_dir())
    return open_project(project or default_project_dir())


class _Windows:
    """Keeps the open window alive and swaps it when another project is opened."""

    def __init__(self, settings: QSettings) -> None:
        self.settings = settings
        self.window: MainWindow | None = None

    def show(self, project: Project) -> None:
        remember_project(self.settings, project.folder)
        window = MainWindow(project, self.settings)
        window.open_project_requested.connect(self.switch)
        if self.window is not None:
            old = self.window
            old.close()
            old.project.close()
        self.window = window
        window.show()

    def switch(self, folder: Path) -> None:
        try:
            self.show(open_project(folder))
        except (ProjectError, OSError) as exc:
            QMessageBox.warning(self.window, "gtreview", f"Cannot open {folder}: {exc}")


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
    windows = _Windows(QSettings())
    windows.show(opened)
    try:
        return app.exec()
    finally:
        if windows.window is not None:
            windows.window.project.close()
