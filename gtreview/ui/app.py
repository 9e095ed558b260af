"""Starting the desktop app: logging, theme, the project to open, the window, the loop."""

from __future__ import annotations

import logging
import sys
import traceback
from pathlib import Path
from types import TracebackType

from PySide6.QtCore import QSettings
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QMessageBox

from gtreview import __version__
from gtreview.app.sample_project import ensure_sample_project
from gtreview.logging_setup import configure_logging
from gtreview.paths import default_project_dir, resources_dir, sample_project_dir
from gtreview.store.project import DB_FILE, Project, ProjectError, open_project
from gtreview.ui.dialogs.welcome import WelcomeDialog
from gtreview.ui.main_window import MainWindow
from gtreview.ui.menus import recent_projects, remember_project
from gtreview.ui.theme import follow_system_theme

log = logging.getLogger("gtreview.ui")


def choose_project(project: Path | None, sample: bool, settings: QSettings) -> Project | None:
    """The project to open: the one named; the sample on request; else the last one;
    on a first run, whatever the welcome page is told (None: the user closed it)."""
    if sample:
        return ensure_sample_project(project or sample_project_dir())
    if project is not None:
        return open_project(project)
    recent = [p for p in recent_projects(settings) if (Path(p) / DB_FILE).exists()]
    if recent:
        return open_project(Path(recent[0]))
    if (default_project_dir() / DB_FILE).exists():
        return open_project(default_project_dir())
    welcome = WelcomeDialog(recent)
    if not welcome.exec() or welcome.choice is None:
        return None
    kind, folder = welcome.choice
    if kind == "sample" or folder is None:
        return ensure_sample_project(sample_project_dir())
    return open_project(folder, create=kind == "new")


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


def install_exception_dialog(log_file: Path) -> None:
    """An unexpected error shows where the details are instead of the app vanishing.

    Every change is committed in its own transaction as it is made, so whatever failed,
    the project holds the last saved state.
    """

    def hook(kind: type[BaseException], error: BaseException, tb: TracebackType | None) -> None:
        log.error("unexpected error\n%s", "".join(traceback.format_exception(kind, error, tb)))
        QMessageBox.critical(
            None,
            "gtreview: unexpected error",
            f"{kind.__name__}: {error}\n\nYour saved work is safe: every edit is stored as it is made.\n"
            f"The details are in the log:\n{log_file}",
        )

    sys.excepthook = hook


def run_app(project: Path | None = None, sample: bool = False) -> int:
    log_file = configure_logging()
    app = QApplication.instance() or QApplication(sys.argv)
    assert isinstance(app, QApplication)
    app.setApplicationName("gtreview")
    app.setOrganizationName("gtreview")
    app.setApplicationVersion(__version__)
    app.setDesktopFileName("gtreview")  # matches packaging/gtreview.desktop, for the window icon on Linux
    icon = resources_dir() / "icons" / "gtreview.svg"
    if icon.exists():
        app.setWindowIcon(QIcon(str(icon)))
    follow_system_theme(app)
    install_exception_dialog(log_file)
    settings = QSettings()
    try:
        opened = choose_project(project, sample, settings)
    except (ProjectError, OSError) as exc:
        QMessageBox.critical(None, "gtreview", f"Cannot open the project: {exc}")
        return 2
    if opened is None:
        return 0
    windows = _Windows(settings)
    windows.show(opened)
    try:
        return app.exec()
    finally:
        if windows.window is not None:
            windows.window.project.close()
