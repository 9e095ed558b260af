import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QSettings

from gtreview.app.corpus_import import import_corpus
from gtreview.interop.rubric_files import read_rubric_file, to_rubric
from gtreview.store import sets
from gtreview.store.db import unit_of_work
from gtreview.store.project import Project, create_project
from tests.ui.waiting import settle


@pytest.fixture(scope="session", autouse=True)
def gui_thread_first(qapp):  # type: ignore[no-untyped-def]
    """As in the app: garbage is collected on the GUI thread only, never in a worker
    (where collecting a window left by an earlier test would destroy Qt objects off
    their thread); the interpreter's defaults are back for whatever runs after."""
    from gtreview.ui.ops import install_gui_thread_first, remove_gui_thread_first

    install_gui_thread_first()
    yield
    remove_gui_thread_first()


@pytest.fixture()
def settings(tmp_path: Path) -> QSettings:
    return QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)


@pytest.fixture()
def interop_project(tmp_path: Path, interop_dir: Path):  # type: ignore[no-untyped-def]
    project: Project = create_project(tmp_path / "project")
    import_corpus(project.engine, [interop_dir / "corpus" / "yudnamutana"])
    rubric_file = read_rubric_file(interop_dir / "rubrics" / "Yudnamutana_QA_grading_key.json")
    with unit_of_work(project.engine) as tx:
        sets.import_rubric(
            tx, to_rubric(rubric_file), source_name="y.json", source_sha256=rubric_file.sha256, actor="t"
        )
    yield project
    project.close()


@pytest.fixture()
def sample_window(qtbot, tmp_path: Path, settings: QSettings):  # type: ignore[no-untyped-def]
    """The main window on a fresh copy of the sample project, comments answered by the test."""
    from gtreview.app.sample_project import ensure_sample_project
    from gtreview.ui.main_window import MainWindow

    project = ensure_sample_project(tmp_path / "sample")
    settings.setValue("reviewer/name", "Dr Test")
    window = MainWindow(project, settings)
    window.answers = []  # type: ignore[attr-defined]
    window.controller.ask_comment = lambda _title, _prompt: window.answers.pop(0) if window.answers else None  # type: ignore[attr-defined]
    window.controller.ask_judge = lambda _current: window.answers.pop(0) if window.answers else None  # type: ignore[attr-defined]
    # A job a failed test left is cancelled when pytest-qt closes the window, never asked about in a modal box.
    qtbot.addWidget(window, before_close_func=lambda w: setattr(w, "ask_stop_jobs", lambda _parent, _jobs: True))
    window.show()
    settle(qtbot, window)  # the set, its first question and the navigator are read in workers
    yield window
    from PySide6.QtCore import QThreadPool

    settle(qtbot, window, timeout=60000)  # no op of this test outlives its project
    QThreadPool.globalInstance().waitForDone(60000)
    window.close()
    project.close()
