"""The History tab tells an edit, its undo and its redo apart, and starts with the import."""

from PySide6.QtCore import Qt

from gtreview.app import workflow
from gtreview.app.sample_project import SAMPLE_RUBRIC
from gtreview.store import sets
from gtreview.store.db import reading
from tests.ui.waiting import settle

IMPORTED = f"imported {SAMPLE_RUBRIC.name}"  # the set-level entry the sample's import wrote


def rows(window) -> list[tuple[str, str, str]]:  # type: ignore[no-untyped-def]
    """The History table, newest first: (action, version, comment) per row."""
    log = window.history.log
    return [(log.item(r, 2).text(), log.item(r, 3).text(), log.item(r, 4).text()) for r in range(log.rowCount())]


def retitle(qtbot, window, title: str) -> None:  # type: ignore[no-untyped-def]
    editor = window.editor
    window.tabs.setCurrentWidget(editor)
    editor.title_edit.setFocus()
    editor.title_edit.selectAll()
    qtbot.keyClicks(editor.title_edit, title)
    with qtbot.waitSignal(window.session.saved, timeout=3000):
        qtbot.keyClick(editor.title_edit, Qt.Key.Key_Return)
    settle(qtbot, window)


def test_history_starts_with_the_import(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    window.tabs.setCurrentWidget(window.history)
    settle(qtbot, window)
    assert rows(window) == [("import", "1", IMPORTED)]
    entry = workflow.history(window.project.engine, window.set_id, "A1")[0]
    with reading(window.project.engine) as session:
        (first,) = sets.list_versions(session, window.set_id, "A1")
    assert entry.content_hash == first.content_hash  # the question's version 1, not the file's hash
    retitle(qtbot, window, "Where to sink on a saddle reef")
    window.tabs.setCurrentWidget(window.history)
    settle(qtbot, window)
    assert [row[0] for row in rows(window)] == ["edit title", "import"]  # the import stays the oldest line


def test_undo_and_redo_are_recorded_and_shown_as_such(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    retitle(qtbot, window, "Where to sink on a saddle reef")
    window.menu_actions["undo"].trigger()
    settle(qtbot, window)
    window.menu_actions["redo"].trigger()
    settle(qtbot, window)
    window.menu_actions["undo"].trigger()
    settle(qtbot, window)
    comments = [e.comment for e in workflow.history(window.project.engine, window.set_id, "A1")]
    assert comments == [
        IMPORTED,
        "field $.title",
        "undo of version 2: field $.title",
        "redo of version 2: field $.title",
        "undo of version 4: field $.title",  # the version the redo saved
    ]
    window.tabs.setCurrentWidget(window.history)
    settle(qtbot, window)
    assert rows(window) == [
        ("undo: edit title", "5", "undoes version 4"),
        ("redo: edit title", "4", "redoes version 2"),
        ("undo: edit title", "3", "undoes version 2"),
        ("edit title", "2", ""),
        ("import", "1", IMPORTED),
    ]
    labels = [window.history.to_version.itemText(i) for i in range(window.history.to_version.count())]
    assert [label.split(" · ")[0] for label in labels] == [
        "v1",
        "v2",
        "v3 (undo of v2)",
        "v4 (redo of v2)",
        "v5 (undo of v4)",
    ]
