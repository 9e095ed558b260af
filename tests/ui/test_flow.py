"""A new project is no dead end: File > New project… and Open project… are separate (Open
refuses a folder that is not a project and the app stays open), the corpus and a rubric
are imported from the File menu through the CLI's use cases with progress, and an
empty project says what to do next."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, QThreadPool
from PySide6.QtWidgets import QMessageBox

from gtreview.app.corpus_import import collect_files
from gtreview.app.sample_project import SAMPLE_CORPUS_FOLDERS, sample_rubric_path
from gtreview.corpus.readers import CorpusImportError
from gtreview.paths import sample_corpus_dir
from gtreview.store import sets
from gtreview.store.corpus_repo import list_documents
from gtreview.store.db import reading
from gtreview.store.project import DB_FILE, ProjectError, create_project
from gtreview.ui import app as app_module
from gtreview.ui.dialogs.welcome import WelcomeDialog
from gtreview.ui.widgets.corpus_view import NO_CORPUS
from gtreview.ui.widgets.navigator import NO_CORPUS as NAV_NO_CORPUS
from gtreview.ui.widgets.navigator import NO_SETS
from tests.ui.waiting import settle


@pytest.fixture()
def empty_window(qtbot, tmp_path: Path, settings: QSettings):  # type: ignore[no-untyped-def]
    from gtreview.ui.main_window import MainWindow

    project = create_project(tmp_path / "fresh")
    settings.setValue("reviewer/name", "Dr Test")
    window = MainWindow(project, settings)
    qtbot.addWidget(window)
    window.show()
    settle(qtbot, window)
    yield window
    settle(qtbot, window, timeout=60000)
    QThreadPool.globalInstance().waitForDone(60000)
    window.close()
    project.close()


def children(item) -> list[str]:  # type: ignore[no-untyped-def]
    return [item.child(i).text(0) for i in range(item.childCount())]


def sample_folders() -> list[Path]:
    return [sample_corpus_dir() / name for name in SAMPLE_CORPUS_FOLDERS]


def test_an_empty_project_says_what_to_do_next(qtbot, empty_window) -> None:  # type: ignore[no-untyped-def]
    window = empty_window
    assert children(window.navigator.corpus_item) == [NAV_NO_CORPUS]
    assert children(window.navigator.sets_item) == [NO_SETS]
    assert "File > Import rubric…" in window.question_view.toPlainText()
    assert "File > Import rubric…" in window.question_list.empty_hint.text()  # the list too, not a blank grid
    window.show_corpus()
    settle(qtbot, window)
    assert window.pages.currentWidget() is window.corpus_view
    assert window.corpus_view.summary.text() == NO_CORPUS
    assert "Import corpus" in window.corpus_view.report.toPlainText()
    asked: list[str] = []
    window.ask_import_corpus = lambda files=False: asked.append("corpus")  # type: ignore[method-assign]
    window.ask_import_rubric = lambda: asked.append("rubric")  # type: ignore[method-assign]
    window.navigator._clicked(window.navigator.sets_item.child(0))  # the empty branch leads to the import
    window.navigator._clicked(window.navigator.corpus_item.child(0))
    assert asked == ["rubric", "corpus"]


def test_file_menu_imports_the_corpus_then_a_rubric(qtbot, empty_window, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    window = empty_window
    actions = window.menu_actions
    assert {"new_project", "open", "import_corpus", "import_corpus_files", "import_rubric"} <= set(actions)
    assert actions["import_corpus"].text() == "Import &corpus…" and actions["import_rubric"].text() == "Import r&ubric…"
    folders = sample_folders()
    picked = iter([str(folders[0]), str(folders[1])])
    monkeypatch.setattr("gtreview.ui.flow.QFileDialog.getExistingDirectory", lambda *a, **k: next(picked))
    said: list[str] = []
    window.ops.notice.connect(said.append)
    actions["import_corpus"].trigger()  # the reports, then the tables
    settle(qtbot, window)
    actions["import_corpus"].trigger()
    settle(qtbot, window)
    expected = [name for _path, name in collect_files(folders)]
    with reading(window.project.engine) as session:
        stored = sorted(d.name for d in list_documents(session))
    assert stored == sorted(expected)  # the CLI's `corpus import` of the same folders stores these
    tables = len(collect_files([folders[1]]))
    assert window.import_progress == [(n, tables) for n in range(tables + 1)]  # every file, then storing
    assert len(children(window.navigator.corpus_item)) == len(expected)

    monkeypatch.setattr("gtreview.ui.flow.QFileDialog.getOpenFileName", lambda *a, **k: (str(sample_rubric_path()), ""))
    actions["import_rubric"].trigger()
    settle(qtbot, window)
    with reading(window.project.engine) as session:
        (imported,) = sets.list_sets(session)
    assert window.set_id == imported.id  # the new set opens
    assert window.question_list.model.rowCount() == imported.question_count > 0
    assert children(window.navigator.sets_item) == [f"{imported.name} ({imported.question_count})"]
    assert said[-1].startswith(f"Imported {imported.question_count} questions as set {imported.id}")
    assert said[0].startswith(f"Imported {len(collect_files([folders[0]]))} documents")


def test_a_corpus_that_cannot_be_read_is_refused_in_one_line(qtbot, empty_window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    window = empty_window
    said: list[str] = []
    window.ops.notice.connect(said.append)
    (tmp_path / "empty").mkdir()
    window.import_corpus([tmp_path / "empty"])
    settle(qtbot, window)
    assert said[-1].startswith("Corpus not imported:") and "nothing was imported" in said[-1]
    with reading(window.project.engine) as session:
        assert list_documents(session) == []
    with pytest.raises(CorpusImportError):  # the same refusal the CLI prints
        from gtreview.app.corpus_import import import_corpus

        import_corpus(window.project.engine, [tmp_path / "empty"])


def test_open_refuses_a_folder_that_is_not_a_project_and_the_window_stays(
    qtbot, empty_window, tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    warned: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda _parent, _title, text: warned.append(text))
    windows = app_module._Windows(empty_window.settings)
    windows.window = empty_window
    plain = tmp_path / "holiday photos"
    plain.mkdir()
    monkeypatch.setattr("gtreview.ui.menus.QFileDialog.getExistingDirectory", lambda *a, **k: str(plain))
    monkeypatch.setattr("gtreview.ui.menus.ask_new_folder", lambda *a, **k: plain)
    empty_window.open_project_requested.connect(windows.switch)
    empty_window.menu_actions["open"].trigger()
    assert not (plain / DB_FILE).exists()  # nothing created
    assert windows.window is empty_window and empty_window.isVisible()
    assert "is not a gtreview project" in warned[0] and "File > New project" in warned[0]

    empty_window.menu_actions["new_project"].trigger()  # File > New project… creates it there
    assert (plain / DB_FILE).exists()
    assert windows.window is not empty_window and windows.window.project.folder == plain
    settle(qtbot, windows.window)
    windows.window.close()
    windows.window.project.close()


def test_the_welcome_page_refuses_a_non_project_folder_and_stays(
    qtbot, tmp_path: Path, settings: QSettings, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(app_module, "default_project_dir", lambda: tmp_path / "default")
    monkeypatch.setattr(app_module, "sample_project_dir", lambda: tmp_path / "sample")
    warned: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda _parent, _title, text: warned.append(text))
    plain = tmp_path / "not a project"
    plain.mkdir()
    choices = iter([("open", plain), ("sample", None)])

    def choose(dialog: WelcomeDialog) -> int:
        dialog._choose(*next(choices))
        return 1

    monkeypatch.setattr(WelcomeDialog, "exec", choose)
    project = app_module.choose_project(None, False, settings)  # no exception: the app does not quit
    assert project is not None and project.folder == tmp_path / "sample"
    project.close()
    assert not (plain / DB_FILE).exists() and "is not a gtreview project" in warned[0]


def test_a_named_project_that_is_not_one_is_refused_not_created(tmp_path: Path, settings: QSettings) -> None:
    typo = tmp_path / "projcet"  # `gtreview gui --project projcet`
    with pytest.raises(ProjectError, match="does not exist"):
        app_module.choose_project(typo, False, settings)
    assert not typo.exists()
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / DB_FILE).write_bytes(b"")
    with pytest.raises(ProjectError, match=r"is empty \(0 bytes\)"):
        app_module.choose_project(empty, False, settings)
    assert (empty / DB_FILE).read_bytes() == b""


def test_the_import_notice_counts_the_errors_the_list_shows(qtbot, empty_window, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Without a corpus neither the list nor the notice counts unresolved locators as
    errors, and the notice says when they will be checked."""
    from gtreview.ui.models.question_table import COLUMNS

    window = empty_window
    said: list[str] = []
    window.ops.notice.connect(said.append)
    monkeypatch.setattr("gtreview.ui.flow.QFileDialog.getOpenFileName", lambda *a, **k: (str(sample_rubric_path()), ""))
    window.menu_actions["import_rubric"].trigger()
    settle(qtbot, window)
    model = window.question_list.model

    def listed() -> int:
        return sum(int(model.index(r, COLUMNS.index("Errors")).data()) for r in range(model.rowCount()))

    assert listed() == 0 and "0 errors, 0 warnings; no corpus yet: its" in said[-1]


def test_with_a_corpus_the_import_notice_counts_the_unresolved_locators_as_the_list_does(  # type: ignore[no-untyped-def]
    qtbot, empty_window, monkeypatch
) -> None:
    import re

    from gtreview.ui.models.question_table import COLUMNS

    window = empty_window
    said: list[str] = []
    window.ops.notice.connect(said.append)
    tables = sample_folders()[1]  # a corpus that resolves some of the sample's locators, not all
    monkeypatch.setattr("gtreview.ui.flow.QFileDialog.getExistingDirectory", lambda *a, **k: str(tables))
    window.menu_actions["import_corpus"].trigger()
    settle(qtbot, window)
    monkeypatch.setattr("gtreview.ui.flow.QFileDialog.getOpenFileName", lambda *a, **k: (str(sample_rubric_path()), ""))
    window.menu_actions["import_rubric"].trigger()
    settle(qtbot, window)
    model = window.question_list.model
    listed = sum(int(model.index(r, COLUMNS.index("Errors")).data()) for r in range(model.rowCount()))
    found = re.search(r": (\d+) errors \((\d+) of them evidence locators the corpus does not resolve\)", said[-1])
    assert found is not None, said[-1]
    assert int(found.group(1)) == listed > 0


def _copy_offer(window) -> QMessageBox | None:  # type: ignore[no-untyped-def]
    boxes = [b for b in window.findChildren(QMessageBox, "import_copy") if b.isVisible()]
    return boxes[0] if boxes else None


def test_a_rubric_imported_again_opens_its_set_and_offers_a_new_copy(qtbot, empty_window) -> None:  # type: ignore[no-untyped-def]
    window = empty_window
    window.import_rubric(sample_rubric_path())
    settle(qtbot, window)
    with reading(window.project.engine) as session:
        (first,) = sets.list_sets(session)
    window.import_rubric(sample_rubric_path())  # the same file: nothing is added, the set opens
    settle(qtbot, window)
    qtbot.waitUntil(lambda: _copy_offer(window) is not None)
    offer = _copy_offer(window)
    assert offer is not None and window.set_id == first.id
    with reading(window.project.engine) as session:
        assert [s.id for s in sets.list_sets(session)] == [first.id]
    assert offer.defaultButton().text() == f"Open set {first.id}"  # Enter keeps the set: a copy is asked for
    (copy,) = [b for b in offer.buttons() if "new copy" in b.text()]
    copy.click()
    settle(qtbot, window)
    with reading(window.project.engine) as session:
        summaries = sets.list_sets(session)
    assert len(summaries) == 2 and window.set_id == summaries[-1].id != first.id  # the copy is a set of its own, opened
    assert summaries[-1].question_count == first.question_count
