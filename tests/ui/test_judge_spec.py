"""The judge model is chosen with Browse as in the Run dialog, not only typed."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication, QFileDialog

from gtreview.app.project_settings import project_judge
from gtreview.ui.dialogs.judge_spec import JudgeSpecDialog
from tests.ui.waiting import settle


def test_browse_fills_in_the_file_as_a_llama_spec_and_opens_in_the_model_folder(  # type: ignore[no-untyped-def]
    qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened_in: list[str] = []

    def choose(_parent, _title, folder, _filter):  # type: ignore[no-untyped-def]
        opened_in.append(folder)
        return str(tmp_path / "judge.gguf"), ""

    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(choose))
    dialog = JudgeSpecDialog("", [tmp_path / "missing", tmp_path])
    qtbot.addWidget(dialog)
    assert not dialog.ok.isEnabled()  # no spec yet: nothing to accept
    dialog.browse.click()
    assert dialog.spec() == f"llama:{tmp_path / 'judge.gguf'}" and dialog.ok.isEnabled()
    assert opened_in == [str(tmp_path)]  # the first model folder that exists


def test_the_edit_menus_judge_dialog_saves_the_spec_chosen(  # type: ignore[no-untyped-def]
    qtbot, sample_window, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    window = sample_window
    chosen = tmp_path / "models" / "judge.gguf"
    chosen.parent.mkdir()
    chosen.write_bytes(b"GGUF")
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *_args: (str(chosen), "")))
    window.menu_actions["judge"].trigger()
    qtbot.waitUntil(
        lambda: any(isinstance(w, JudgeSpecDialog) and w.isVisible() for w in QApplication.topLevelWidgets())
    )
    (dialog,) = [w for w in QApplication.topLevelWidgets() if isinstance(w, JudgeSpecDialog) and w.isVisible()]
    dialog.browse.click()
    dialog.ok.click()
    qtbot.waitUntil(lambda: project_judge(window.project.engine) == f"llama:{chosen}", timeout=5000)
    settle(qtbot, window)


def test_a_missing_model_file_is_refused_in_one_line_and_the_dialog_stays(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    dialog = JudgeSpecDialog("", [tmp_path])
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.spec_edit.setText(f"llama:{tmp_path / 'gone.gguf'}")
    accepted: list[bool] = []
    dialog.accepted.connect(lambda: accepted.append(True))
    dialog.ok.click()
    assert not accepted and dialog.isVisible()
    assert dialog.error.isVisible() and "not found" in dialog.error.text() and "gone.gguf" in dialog.error.text()
    (tmp_path / "judge.gguf").write_bytes(b"GGUF")
    dialog.spec_edit.setText("llama:judge.gguf")  # a relative path is found in the model folder
    dialog.ok.click()
    assert accepted and dialog.spec() == f"llama:{tmp_path / 'judge.gguf'}"


def test_enter_after_browse_accepts_instead_of_reopening_the_chooser(  # type: ignore[no-untyped-def]
    qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from PySide6.QtCore import Qt

    chosen = tmp_path / "judge.gguf"
    chosen.write_bytes(b"GGUF")
    opened: list[str] = []

    def choose(_parent, _title, folder, _filter):  # type: ignore[no-untyped-def]
        opened.append(folder)
        return str(chosen), ""

    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(choose))
    dialog = JudgeSpecDialog("", [])
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.activateWindow()
    qtbot.waitUntil(dialog.isActiveWindow)
    dialog.browse.setFocus()
    qtbot.keyClick(dialog.browse, Qt.Key.Key_Space)  # Browse from the keyboard
    assert opened == [str(Path.home())]  # no model folder set: home, not the folder the app started in
    with qtbot.waitSignal(dialog.accepted, timeout=1000):
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Return)
    assert len(opened) == 1 and dialog.spec() == f"llama:{chosen}"
    again = JudgeSpecDialog(dialog.spec(), [])  # the chooser opens where the judge file is
    qtbot.addWidget(again)
    again.browse.click()
    assert opened[-1] == str(tmp_path)
