"""First run, preferences, About, theme, the exception dialog."""

import logging
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication, QMessageBox

from gtreview.store.project import DB_FILE
from gtreview.ui import app as app_module
from gtreview.ui.dialogs.preferences import PreferencesDialog, runtime_defaults
from gtreview.ui.dialogs.welcome import WelcomeDialog
from gtreview.ui.menus import remember_project, versions
from gtreview.ui.theme import DARK, apply_theme


@pytest.fixture()
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(app_module, "default_project_dir", lambda: tmp_path / "default")
    monkeypatch.setattr(app_module, "sample_project_dir", lambda: tmp_path / "sample")
    return tmp_path


def test_first_run_shows_the_welcome_page_and_opens_the_sample(
    qtbot, isolated: Path, settings: QSettings, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    shown = []

    def fake_exec(dialog: WelcomeDialog) -> int:
        shown.append(dialog)
        dialog.sample_button.click()
        return 1

    monkeypatch.setattr(WelcomeDialog, "exec", fake_exec)
    project = app_module.choose_project(None, False, settings)
    assert project is not None and project.folder == isolated / "sample" and len(shown) == 1
    project.close()
    remember_project(settings, isolated / "sample")
    again = app_module.choose_project(None, False, settings)  # the last project opens directly
    assert again is not None and again.folder == isolated / "sample" and len(shown) == 1
    again.close()


def test_welcome_page_new_project_and_closing(qtbot, isolated: Path, settings: QSettings, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(WelcomeDialog, "exec", lambda self: 0)
    assert app_module.choose_project(None, False, settings) is None  # closed: nothing opens

    def choose_new(dialog: WelcomeDialog) -> int:
        dialog._choose("new", isolated / "fresh")
        return 1

    monkeypatch.setattr(WelcomeDialog, "exec", choose_new)
    project = app_module.choose_project(None, False, settings)
    assert project is not None and (isolated / "fresh" / DB_FILE).exists()
    project.close()


def test_preferences_are_saved_and_used(qtbot, settings: QSettings, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr("gtreview.report.signing.default_key_dir", lambda: tmp_path / "keys")
    dialog = PreferencesDialog(settings)
    qtbot.addWidget(dialog)
    dialog.name.setText("Dr E. Marlowe")
    dialog.create_key.click()
    assert dialog.key.currentText() == "Dr-E.-Marlowe" and (tmp_path / "keys" / "Dr-E.-Marlowe.key").exists()
    dialog.judge.setText("openai:http://127.0.0.1:8000#judge")
    dialog.gpu_layers.setValue(20)
    dialog.threads.setValue(6)
    dialog._save()
    assert settings.value("reviewer/name") == "Dr E. Marlowe"
    assert runtime_defaults(settings) == {"n_gpu_layers": 20, "threads": 6}


def test_about_lists_versions() -> None:
    found = versions()
    assert set(found) == {"gtreview", "llama.cpp", "Qt", "PySide6"}
    assert found["llama.cpp"].startswith("llama-cpp-python ")


def test_dark_theme_palette(qapp: QApplication, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr("gtreview.ui.theme.is_dark", lambda: True)
    apply_theme(qapp)
    window_colour = qapp.palette().color(next(iter(DARK)))
    assert window_colour.name() == DARK[next(iter(DARK))]
    monkeypatch.setattr("gtreview.ui.theme.is_dark", lambda: False)
    apply_theme(qapp)
    assert qapp.palette().color(next(iter(DARK))).name() != DARK[next(iter(DARK))]


def test_unexpected_errors_show_the_log_path(tmp_path: Path, monkeypatch, caplog) -> None:  # type: ignore[no-untyped-def]
    shown: list[str] = []
    monkeypatch.setattr(QMessageBox, "critical", lambda parent, title, text: shown.append(text))
    previous = sys.excepthook
    try:
        app_module.install_exception_dialog(tmp_path / "gtreview.log")
        with caplog.at_level(logging.ERROR, logger="gtreview.ui"):
            try:
                raise RuntimeError("boom")
            except RuntimeError as exc:
                sys.excepthook(type(exc), exc, exc.__traceback__)
    finally:
        sys.excepthook = previous
    assert "RuntimeError: boom" in shown[0] and str(tmp_path / "gtreview.log") in shown[0]
    assert "Traceback" in caplog.text
