"""The window opens whole on a small screen and keeps its maximised state when another
project is opened in its place."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings, QSize
from PySide6.QtWidgets import QApplication

from gtreview.store.project import create_project
from gtreview.ui import app as app_module
from tests.ui.waiting import settle


def _close(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    settle(qtbot, window)
    window.close()
    window.project.close()


def test_a_window_as_large_as_the_screen_opens_maximised(qtbot, tmp_path: Path, settings: QSettings) -> None:  # type: ignore[no-untyped-def]
    settings.setValue("reviewer/name", "Dr Test")
    screen = QApplication.primaryScreen().availableGeometry().size()
    settings.setValue("main_window/size", screen)  # saved on this screen, or the default on a small one
    windows = app_module._Windows(settings)
    windows.show(create_project(tmp_path / "one"))
    window = windows.window
    assert window is not None
    qtbot.addWidget(window)
    qtbot.waitUntil(window.isMaximized)  # the window manager fits it below its title bar
    _close(qtbot, window)


def test_opening_another_project_keeps_the_window_maximised(qtbot, tmp_path: Path, settings: QSettings) -> None:  # type: ignore[no-untyped-def]
    settings.setValue("reviewer/name", "Dr Test")
    settings.setValue("main_window/size", QSize(600, 500))  # the offscreen screen is 800x800
    windows = app_module._Windows(settings)
    windows.show(create_project(tmp_path / "one"))
    first = windows.window
    assert first is not None and not first.isMaximized()
    qtbot.addWidget(first)
    first.showMaximized()
    qtbot.waitUntil(first.isMaximized)
    settle(qtbot, first)
    windows.switch(tmp_path / "two", create=True)
    second = windows.window
    assert second is not None and second is not first
    qtbot.addWidget(second)
    qtbot.waitUntil(second.isMaximized)
    second.showNormal()
    qtbot.waitUntil(lambda: not second.isMaximized())
    settle(qtbot, second)
    windows.switch(tmp_path / "one")  # a normal window stays normal
    third = windows.window
    assert third is not None
    qtbot.addWidget(third)
    assert not third.isMaximized()
    _close(qtbot, third)


def test_the_shortcut_sheet_fits_the_screen_with_its_ok_button(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtCore import QPoint
    from PySide6.QtWidgets import QDialogButtonBox, QPushButton

    from gtreview.ui.menus import show_shortcut_sheet

    window = sample_window
    actions = {**window.menu_actions, **{f"{k}_again": a for k, a in window.menu_actions.items()}}  # twice as many
    show_shortcut_sheet(window, actions)
    sheet = window.findChildren(QDialogButtonBox)[-1].window()
    qtbot.waitExposed(sheet)
    available = sheet.screen().availableGeometry()
    assert sheet.frameGeometry().height() <= available.height()
    ok = next(b for b in sheet.findChildren(QPushButton) if b.text().replace("&", "") == "OK")
    bottom = ok.mapTo(sheet, QPoint(0, ok.height()))
    assert ok.isVisible() and sheet.rect().contains(bottom - QPoint(0, 1))
    assert sheet.geometry().bottom() <= available.bottom()
    sheet.accept()
