"""First run, preferences, About, theme, the exception dialog."""

import logging
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication, QMessageBox

from gtreview.core.errors import UserError
from gtreview.store.project import DB_FILE
from gtreview.ui import app as app_module
from gtreview.ui.dialogs.preferences import PreferencesDialog, runtime_defaults
from gtreview.ui.dialogs.welcome import WelcomeDialog
from gtreview.ui.menus import remember_project, versions
from gtreview.ui.theme import DARK, apply_theme
from tests.ui.waiting import settle


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


# -- preferences that are used, the reviewer's name, Qt's system libraries ------------------


def test_every_preference_label_names_its_field(qtbot, settings: QSettings) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtWidgets import QLabel

    dialog = PreferencesDialog(settings)
    qtbot.addWidget(dialog)
    labels = [label for label in dialog.findChildren(QLabel) if "&" in label.text()]
    assert {label.text() for label in labels} >= {"&Signing key", "Reviewer &name", "&GPU layers"}
    for label in labels:  # a mnemonic without a buddy is shown as a literal "&"
        assert label.buddy() is not None, label.text()
    signing = next(label for label in labels if label.text() == "&Signing key")
    assert signing.buddy() is dialog.key


def test_gpu_layers_zero_stays_zero(qtbot, settings: QSettings) -> None:  # type: ignore[no-untyped-def]
    from gtreview.app.passes import with_runtime
    from gtreview.runs.plan import ModelEntry, PassConfig

    dialog = PreferencesDialog(settings)
    qtbot.addWidget(dialog)
    dialog.gpu_layers.setValue(0)  # CPU only
    dialog._save()
    again = PreferencesDialog(settings)  # the same session
    qtbot.addWidget(again)
    assert again.gpu_layers.value() == 0 and again.gpu_layers.text() == "0"
    assert runtime_defaults(settings)["n_gpu_layers"] == 0
    config = PassConfig(name="p", models=[ModelEntry(label="m", spec="llama:/m.gguf")], judge="llama:/j.gguf")
    assert with_runtime(config, runtime_defaults(settings)).models[0].spec == "llama:/m.gguf?n_gpu_layers=0"


def test_the_model_folder_is_where_the_run_dialog_looks(
    qtbot, settings: QSettings, tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    from gtreview.ui.dialogs.preferences import model_folders
    from gtreview.ui.dialogs.run_dialog import RunDialog

    (tmp_path / "judge.gguf").write_bytes(b"GGUF")
    dialog = PreferencesDialog(settings)
    qtbot.addWidget(dialog)
    dialog.folders.setPlainText(f"{tmp_path}\n")
    dialog._save()
    assert model_folders(settings) == [tmp_path]
    starts: list[str] = []
    monkeypatch.setattr(
        "gtreview.ui.dialogs.model_files.QFileDialog.getOpenFileName",
        lambda _p, _t, start, _f: (starts.append(start), ("", ""))[1],
    )
    run = RunDialog("Set", model_folders=model_folders(settings))
    qtbot.addWidget(run)
    run.browse_judge.click()
    assert starts == [str(tmp_path)]
    run.models.setPlainText("base=openai:http://127.0.0.1:8000#m")
    run.judge.setText("llama:judge.gguf")  # relative: found in the model folder
    run._accept()
    assert run.config is not None and run.config.judge == f"llama:{tmp_path / 'judge.gguf'}"


def test_a_release_is_signed_with_the_preferences_key(qtbot, sample_window, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    said: list[str] = []
    window.ops.notice.connect(said.append)
    window.publish_release(tmp_path / "release")
    assert said[-1] == "Choose or create a signing key in Edit > Preferences first."
    asked: list[tuple[int, str, Path, Path]] = []

    def release(_engine, set_id, *, key, out_dir, project_folder):  # type: ignore[no-untyped-def]
        asked.append((set_id, key, out_dir, project_folder))
        raise UserError("the set has no sign-off yet")

    monkeypatch.setattr("gtreview.ui.flow.create_release_bundle", release)
    window.settings.setValue("reviewer/signing_key", "Dr-Test")
    window.publish_release(tmp_path / "release")
    settle(qtbot, window)
    assert asked == [(window.set_id, "Dr-Test", tmp_path / "release", window.project.folder)]  # the project trusts it
    assert said[-1] == "No release: the set has no sign-off yet"


def test_the_first_run_asks_for_the_reviewers_name(qtbot, settings: QSettings, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtWidgets import QInputDialog

    asked: list[str] = []

    def answer(_parent, _title, label, text=""):  # type: ignore[no-untyped-def]
        asked.append(label)
        return "Dr E. Marlowe", True

    monkeypatch.setattr(QInputDialog, "getText", answer)
    assert settings.value("reviewer/name") is None
    assert app_module.ensure_reviewer_name(settings) == "Dr E. Marlowe"
    assert settings.value("reviewer/name") == "Dr E. Marlowe" and "Your name" in asked[0]
    assert app_module.ensure_reviewer_name(settings) == "Dr E. Marlowe" and len(asked) == 1  # asked once


def test_missing_qt_libraries_are_named_in_one_line() -> None:
    from gtreview.ui.app import XCB_LIBRARIES, xcb_problem

    present = set(XCB_LIBRARIES) - {"libxcb-cursor.so.0", "libxkbcommon-x11.so.0"}
    problem = xcb_problem({"DISPLAY": ":0"}, "linux", present.__contains__)
    assert problem is not None and "\n" not in problem
    assert "libxcb-cursor.so.0, libxkbcommon-x11.so.0" in problem
    assert "sudo apt install libxcb-cursor0 libxkbcommon-x11-0`" in problem
    assert xcb_problem({"DISPLAY": ":0"}, "linux", lambda _name: True) is None
    assert xcb_problem({"QT_QPA_PLATFORM": "offscreen"}, "linux", lambda _name: False) is None
    assert xcb_problem({}, "darwin", lambda _name: False) is None
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    assert all(package in readme for package in XCB_LIBRARIES.values())  # the quick start names the same list
