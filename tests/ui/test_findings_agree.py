"""The app's findings are the file check's: an id that collides with another under the
harness's digits rule, or a title pasted over several lines, is flagged in the editor, the
question list and by ``rubric validate`` alike; and a rename is saved only when the Id
field is left, never on a pause in the typing."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt

from gtreview.app.rubric_files import validate_rubric_file
from gtreview.app.rubrics import export_set
from tests.ui.waiting import settle


def _codes_of(findings, qid: str) -> list[str]:  # type: ignore[no-untyped-def]
    return sorted(f.code for f in findings if f.question_id == qid)


def _row(window, qid: str):  # type: ignore[no-untyped-def]
    return next(r for r in window.question_list.model.rows() if r.qid == qid)


def test_an_id_that_collides_in_the_harness_is_flagged_as_the_file_check_flags_it(
    qtbot, sample_window, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    editor = window.editor
    qtbot.keyClick(window, Qt.Key.Key_2, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(editor.id_edit.isVisible)
    assert "B5" in {r.qid for r in window.question_list.model.rows()}
    editor.id_edit.setFocus()
    qtbot.waitUntil(editor.id_edit.hasFocus)
    editor.id_edit.selectAll()
    qtbot.keyClicks(editor.id_edit, "5")
    qtbot.wait(editor._timer.interval() * 2)  # a pause in the typing renames nothing
    settle(qtbot, window)
    assert window.session.undo_stack.count() == 0
    live = next(b.findings for b in editor._bindings if b.path == ("id",))
    assert live.isVisible() and "question-id-digits-collision" in live.text()  # said while typing
    qtbot.keyClick(editor.id_edit, Qt.Key.Key_Return)  # the rename is committed
    qtbot.waitUntil(lambda: "5" in {r.qid for r in window.question_list.model.rows()}, timeout=10000)
    settle(qtbot, window)

    exported = export_set(window.project.engine, tmp_path / "set.json", set_id=window.set_id)
    checked = validate_rubric_file(exported.path).findings
    for qid in ("5", "B5"):
        row = _row(window, qid)
        assert _codes_of(checked, qid) == ["question-id-digits-collision"]
        assert (row.errors, row.warnings) == (0, 1)  # the list counts what the file check finds
    assert _codes_of(editor.checks(editor._content), "5") == _codes_of(checked, "5")


def test_a_title_pasted_over_lines_is_one_line_and_an_empty_title_is_flagged(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    editor = window.editor
    qtbot.keyClick(window, Qt.Key.Key_2, Qt.KeyboardModifier.ControlModifier)
    qid = editor._content["id"]
    before = _row(window, qid).warnings
    title = editor.title_edit
    title.setFocus()
    qtbot.waitUntil(title.hasFocus)
    title.selectAll()
    title.insert("Gossan\ncolour\n")  # what a paste of two lines types
    title.textEdited.emit(title.text())
    qtbot.keyClick(title, Qt.Key.Key_Tab)
    qtbot.waitUntil(lambda: editor._content.get("title") == "Gossan colour ", timeout=10000)
    settle(qtbot, window)
    title.setFocus()
    qtbot.waitUntil(title.hasFocus)
    title.selectAll()
    qtbot.keyClick(title, Qt.Key.Key_Delete)
    qtbot.keyClick(title, Qt.Key.Key_Tab)
    qtbot.waitUntil(lambda: editor._content.get("title") == "", timeout=10000)
    settle(qtbot, window)
    live = next(b.findings for b in editor._bindings if b.path == ("title",))
    assert live.isVisible() and "title-empty" in live.text()
    qtbot.waitUntil(lambda: _row(window, qid).warnings == before + 1, timeout=10000)


def test_the_components_heading_shows_the_points_as_they_total_now(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    editor = window.editor
    qtbot.keyClick(window, Qt.Key.Key_2, Qt.KeyboardModifier.ControlModifier)
    assert editor.components_box.title() == "Components (total 10)"
    table = editor.components.table
    cell = table.item(0, 1)
    cell.setText(str(int(cell.text()) + 2))  # as a cell edit commits it
    assert editor.components_box.title() == "Components (total 12; must be 10)"
    settle(qtbot, window)
    assert "total 12, not 10" in next(b.findings for b in editor._bindings if b.path == ("components",)).text()
