"""Starting the desktop app: the system libraries Qt needs, logging, theme, the project
to open, the reviewer's name, the window, the loop."""

from __future__ import annotations

import ctypes
import getpass
import logging
import os
import sys
import traceback
from collections.abc import Callable, Mapping
from pathlib import Path
from types import TracebackType

from PySide6.QtCore import QSettings, QSize, QTimer
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QInputDialog, QMessageBox, QWidget

from gtreview import __version__
from gtreview.app.sample_project import ensure_sample_project
from gtreview.logging_setup import configure_logging
from gtreview.paths import default_project_dir, resources_dir, sample_project_dir
from gtreview.store.project import DB_FILE, Project, ProjectError, create_project, open_project
from gtreview.ui.dialogs.welcome import WelcomeDialog
from gtreview.ui.keyboard import install_tab_moves_focus
from gtreview.ui.main_window import MainWindow
from gtreview.ui.menus import recent_projects, remember_project
from gtreview.ui.theme import follow_system_theme

log = logging.getLogger("gtreview.ui")

# What PySide6 6.x's xcb platform plugin (libqxcb.so, libQt6XcbQpa, libQt6Gui) loads from
# the system, and the Debian/Ubuntu package of each (readelf -d NEEDED, dpkg -S).
XCB_LIBRARIES = {
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libxkbcommon.so.0": "libxkbcommon0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-render.so.0": "libxcb-render0",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-shm.so.0": "libxcb-shm0",
    "libxcb-sync.so.1": "libxcb-sync1",
    "libxcb-util.so.1": "libxcb-util1",
    "libxcb-xfixes.so.0": "libxcb-xfixes0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libxcb.so.1": "libxcb1",
    "libX11-xcb.so.1": "libx11-xcb1",
    "libX11.so.6": "libx11-6",
    "libEGL.so.1": "libegl1",
    "libGL.so.1": "libgl1",
    "libfontconfig.so.1": "libfontconfig1",
    "libfreetype.so.6": "libfreetype6",
    "libglib-2.0.so.0": "libglib2.0-0",
    "libdbus-1.so.3": "libdbus-1-3",
}


def _loadable(soname: str) -> bool:
    try:
        ctypes.CDLL(soname)
    except OSError:
        return False
    return True


def xcb_problem(
    env: Mapping[str, str] | None = None,
    platform: str = sys.platform,
    loadable: Callable[[str], bool] = _loadable,
) -> str | None:
    """One line naming the system libraries Qt's xcb plugin needs and cannot load (and
    the apt command that installs them), or None: not on X11, or nothing is missing.
    Qt itself would abort with a long message that names none of them."""
    env = os.environ if env is None else env
    chosen = env.get("QT_QPA_PLATFORM", "").split(":")[0].strip().lower()
    wayland = env.get("XDG_SESSION_TYPE") == "wayland" and env.get("WAYLAND_DISPLAY")
    if not platform.startswith("linux") or chosen not in ("", "xcb") or (chosen == "" and wayland):
        return None
    missing = [soname for soname in XCB_LIBRARIES if not loadable(soname)]
    if not missing:
        return None
    packages = " ".join(dict.fromkeys(XCB_LIBRARIES[soname] for soname in missing))
    return (
        f"gtreview: Qt's xcb platform plugin cannot load {', '.join(missing)}; on Debian/Ubuntu install them with "
        f"`sudo apt install {packages}` (or run headless with QT_QPA_PLATFORM=offscreen)"
    )


def ensure_reviewer_name(settings: QSettings, parent: QWidget | None = None) -> str:
    """The name recorded with every review action: asked on the first run (offering the
    login name), never taken silently; kept in the user's settings."""
    current = settings.value("reviewer/name")
    if isinstance(current, str) and current.strip():
        return current.strip()
    try:
        login = getpass.getuser()
    except Exception:  # noqa: BLE001 - no login name on some systems
        login = ""
    name, ok = QInputDialog.getText(
        parent,
        "Your name",
        "gtreview records the reviewer's name with every review action, sign-off and release.\nYour name:",
        text=login,
    )
    if ok and name.strip():
        settings.setValue("reviewer/name", name.strip())
        return name.strip()
    return ""


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
    while True:  # a folder that is no project is refused and the welcome page comes back
        welcome = WelcomeDialog(recent)
        if not welcome.exec() or welcome.choice is None:
            return None
        kind, folder = welcome.choice
        if kind == "sample" or folder is None:
            return ensure_sample_project(sample_project_dir())
        try:
            return create_project(folder) if kind == "new" else open_project(folder)
        except ProjectError as exc:
            QMessageBox.warning(
                None, "gtreview", f"{exc}.\n\nChoose a project folder, or New project… to create one there."
            )


class _Windows:
    """Keeps the open window alive and swaps it when another project is opened."""

    def __init__(self, settings: QSettings) -> None:
        self.settings = settings
        self.window: MainWindow | None = None

    def show(self, project: Project) -> None:
        remember_project(self.settings, project.folder)
        window = MainWindow(project, self.settings)
        window.open_project_requested.connect(self.switch)
        maximized = window.isMaximized()  # as it was saved
        if self.window is not None:
            old = self.window
            maximized = old.isMaximized()  # another project opens in the window's place, as it was
            if not maximized:
                window.setGeometry(old.geometry())
            old.close()
            old.project.close()
        self.window = window
        show_fitted(window, maximized=maximized)

    def switch(self, folder: Path, create: bool = False) -> None:
        """Open (or, asked to, create) the project in ``folder``; a folder that is not a
        project is refused in one message and the open window stays."""
        try:
            self.show(create_project(folder) if create else open_project(folder))
        except (ProjectError, OSError) as exc:
            hint = (
                "\n\nTo open it, use File > Open project…"
                if create
                else "\n\nTo start one there, use File > New project…"
            )
            verb = "create a project in" if create else "open"
            QMessageBox.warning(self.window, "gtreview", f"Cannot {verb} {folder}: {exc}{hint}")


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
    if QApplication.instance() is None:
        problem = xcb_problem()
        if problem is not None:
            print(problem, file=sys.stderr)
            return 2
    app = QApplication.instance() or QApplication(sys.argv)
    assert isinstance(app, QApplication)
    app.setApplicationName("gtreview")
    app.setOrganizationName("gtreview")
    app.setApplicationVersion(__version__)
    app.setDesktopFileName("gtreview")  # matches packaging/gtreview.desktop, for the window icon on Linux
    icon = resources_dir() / "icons" / "gtreview.svg"
    if icon.exists():
        app.setWindowIcon(QIcon(str(icon)))
    settings = QSettings()
    follow_system_theme(app, settings)  # the theme chosen in Preferences, else the system's
    install_tab_moves_focus(app)  # the welcome page's too
    install_exception_dialog(log_file)
    try:
        opened = choose_project(project, sample, settings)
    except (ProjectError, OSError) as exc:
        QMessageBox.critical(None, "gtreview", f"Cannot open the project: {exc}")
        return 2
    if opened is None:
        return 0
    ensure_reviewer_name(settings)
    windows = _Windows(settings)
    windows.show(opened)
    try:
        return app.exec()
    finally:
        if windows.window is not None:
            windows.window.project.close()


FRAME_ROOM = QSize(16, 48)  # what a window manager's borders and title bar take, about


def show_fitted(window: QWidget, *, maximized: bool = False) -> None:
    """Show the window whole on its screen. One that wants the whole screen (a size saved
    on a larger monitor, the default 1500x950 on a 1280x720 laptop) or was maximised is
    shown maximised: the window manager then fits it below its title bar and panels,
    which a size computed here cannot, as the frame is known only once the manager has
    framed the window (after the first event-loop turn, under some managers later), so
    a window sized to the whole screen would put the status bar below its edge."""
    screen = window.screen()
    if screen is not None:
        room = screen.availableGeometry().size() - window.size()
        maximized = maximized or room.width() < FRAME_ROOM.width() or room.height() < FRAME_ROOM.height()
    if maximized:
        window.showMaximized()
        return
    fit_to_screen(window)
    window.show()
    QTimer.singleShot(0, window, lambda: fit_to_screen(window))  # again, now that its frame is known


def fit_to_screen(window: QWidget) -> None:
    """Never open larger than the screen the window is on, nor partly off it (a size saved
    on a big monitor, or the default 1500x950, on a 1280x720 laptop would put the status
    bar, where every notice is, below the screen's edge). The window frame, known once
    the window is shown, is taken off the size, and the window moved inside the screen."""
    screen = window.screen()
    if screen is None:
        return
    available = screen.availableGeometry()
    frame, inner = window.frameGeometry(), window.geometry()
    extra = frame.size() - inner.size()  # the title bar and borders (none before the window is shown)
    window.resize(window.size().boundedTo(available.size() - extra))
    frame = window.frameGeometry()
    x = max(available.left(), min(frame.left(), available.right() + 1 - frame.width()))
    y = max(available.top(), min(frame.top(), available.bottom() + 1 - frame.height()))
    if (x, y) != (frame.left(), frame.top()):
        window.move(x, y)
