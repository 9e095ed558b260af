"""New project and Publish signed release take a typed new folder name, and a new project
never goes into a folder that holds the user's files."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from gtreview.store.project import DB_FILE, ProjectError
from gtreview.ui import app as app_module
from gtreview.ui.dialogs.new_folder import NewFolderDialog
from tests.ui.waiting import settle


@pytest.fixture(autouse=True)
def folder_chooser_refuses_new_names(monkeypatch: pytest.MonkeyPatch) -> None:
    """Qt's folder chooser: a typed name of a folder not there is "Directory not found",
    and the user can only cancel."""
    monkeypatch.setattr("PySide6.QtWidgets.QFileDialog.getExistingDirectory", lambda *a, **k: "")


def _answer_with(qtbot, folder: Path) -> None:  # type: ignore[no-untyped-def]
    """Type ``folder`` into the folder dialog when it opens, and press OK."""

    def answer() -> None:
        dialog = next(
            (w for w in QApplication.topLevelWidgets() if isinstance(w, NewFolderDialog) and w.isVisible()), None
        )
        if dialog is None:
            QTimer.singleShot(10, answer)
            return
        dialog.path_edit.setText(str(folder))
        dialog.ok.click()

    QTimer.singleShot(0, answer)


def test_new_project_takes_a_typed_new_folder_and_refuses_one_with_files(  # type: ignore[no-untyped-def]
    qtbot, sample_window, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    warned: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda _parent, _title, text: warned.append(text))
    windows = app_module._Windows(sample_window.settings)
    windows.window = sample_window
    sample_window.open_project_requested.connect(windows.switch)

    mine = tmp_path / "my files"
    mine.mkdir()
    (mine / "notes.txt").write_text("the user's own")
    _answer_with(qtbot, mine)
    sample_window.menu_actions["new_project"].trigger()
    assert not (mine / DB_FILE).exists() and warned and "is not empty" in warned[-1]
    assert windows.window is sample_window

    typed = tmp_path / "projects" / "basin study"  # neither folder exists yet
    _answer_with(qtbot, typed)
    sample_window.menu_actions["new_project"].trigger()
    assert (typed / DB_FILE).exists()
    assert windows.window is not sample_window and windows.window.project.folder == typed
    settle(qtbot, windows.window)
    windows.window.close()
    windows.window.project.close()


def test_publish_release_takes_a_typed_new_folder(  # type: ignore[no-untyped-def]
    qtbot, sample_window, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    window = sample_window
    asked: list[Path] = []

    def release(_engine, _set_id, *, key, out_dir, project_folder):  # type: ignore[no-untyped-def]
        asked.append(out_dir)
        raise ProjectError("stop here")

    monkeypatch.setattr("gtreview.ui.flow.create_release_bundle", release)
    window.settings.setValue("reviewer/signing_key", "Dr-Test")
    typed = tmp_path / "releases" / "first release"
    _answer_with(qtbot, typed)
    window.publish_release()
    settle(qtbot, window)
    assert asked == [typed]
