"""Another writer saved the question meanwhile: the GUI's edit is refused as a conflict in
a notice, the typed text stays in its field, and committing it again saves it on top."""

from __future__ import annotations

from PySide6.QtCore import Qt

from gtreview.app import editing
from gtreview.store import sets
from gtreview.store.db import reading, unit_of_work
from gtreview.store.project import open_project
from tests.ui.waiting import settle


def test_a_stale_gui_edit_is_a_notice_and_keeps_the_typed_text(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    editor = window.editor
    window.tabs.setCurrentWidget(editor)
    settle(qtbot, window)
    engine, set_id = window.project.engine, window.set_id
    with reading(engine) as session:
        before = sets.list_versions(session, set_id, "A1")[-1].version

    script = open_project(window.project.folder)  # another process on the same project
    try:
        editing.apply_edit(script.engine, set_id, "A1", ("title",), "The script's title", author="script")
    finally:
        script.close()

    editor.pass_condition.setFocus()
    editor.pass_condition.moveCursor(editor.pass_condition.textCursor().MoveOperation.End)
    qtbot.keyClicks(editor.pass_condition, " Typed in the GUI.")
    editor.commit_pending()
    settle(qtbot, window)

    kind, conflict = window.notices.recent[-1]
    assert kind == "warning" and "A1 was changed by script" in conflict
    assert f"now version {before + 1}" in conflict and "kept in its field" in conflict
    with reading(engine) as session:
        saved = sets.load_question(session, set_id, "A1")
    assert saved.title == "The script's title"  # the script's version stands, nothing undone
    assert not saved.gate.pass_condition.endswith(" Typed in the GUI.")
    assert editor.title_edit.text() == "The script's title"  # the newer version is shown...
    assert editor.pass_condition.toPlainText().endswith(" Typed in the GUI.")  # ...with the typed text kept

    editor.commit_pending()  # leaving the field saves it, now on the newer version
    settle(qtbot, window)
    with reading(engine) as session:
        saved = sets.load_question(session, set_id, "A1")
    assert saved.title == "The script's title" and saved.gate.pass_condition.endswith(" Typed in the GUI.")
    with reading(engine) as session:
        assert sets.list_versions(session, set_id, "A1")[-1].version == before + 2
    assert window.notices.recent[-1] == ("success", f"Saved A1 as version {before + 2}.")


def test_the_guis_own_edits_in_a_row_are_no_conflict(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    editor = window.editor
    window.tabs.setCurrentWidget(editor)
    settle(qtbot, window)
    for text in ("First", "Second", "Third"):  # each made before the previous one has come back
        editor.title_edit.setFocus()
        editor.title_edit.selectAll()
        qtbot.keyClicks(editor.title_edit, text)
        qtbot.keyClick(editor.title_edit, Qt.Key.Key_Tab)
    settle(qtbot, window)
    with reading(window.project.engine) as session:
        assert sets.load_question(session, window.set_id, "A1").title == "Third"
    assert not [said for _kind, said in window.notices.recent if "changed by" in said]
    window.session.undo_stack.undo()  # undo is an edit made on the GUI's own latest version
    settle(qtbot, window)
    with reading(window.project.engine) as session:
        assert sets.load_question(session, window.set_id, "A1").title == "Second"


def test_approving_what_another_writer_has_just_changed_is_refused(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    from gtreview.app import workflow

    window = sample_window
    engine, set_id = window.project.engine, window.set_id
    script = open_project(window.project.folder)
    try:
        editing.apply_edit(script.engine, set_id, "A1", ("title",), "Changed under the reviewer", author="script")
    finally:
        script.close()
    window.menu_actions["approve"].trigger()  # the pane still shows the version before the script's
    settle(qtbot, window)
    kind, said = window.notices.recent[-1]
    assert kind == "warning" and "A1 was changed by script" in said and "not approved" in said
    assert workflow.history(engine, set_id, "A1")[-1].action != "approved"
    assert window.editor.title_edit.text() == "Changed under the reviewer"  # the newer version is shown


def test_a_stale_fixture_edit_keeps_the_typed_fixture_and_the_other_writers_change(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    fixtures = window.fixtures
    window.tabs.setCurrentWidget(fixtures)
    settle(qtbot, window)
    engine, set_id = window.project.engine, window.set_id
    fixtures.fixture_list.setCurrentRow(0)
    first = str(fixtures._fixtures[0]["fixture_id"])
    second = str(fixtures._fixtures[1]["fixture_id"])

    script = open_project(window.project.folder)  # another writer changes the second fixture
    try:
        with reading(script.engine) as session:
            question = sets.load_question(session, set_id, "A1")
        changed = [
            f.model_copy(update={"rationale": "The script's rationale."}) if f.fixture_id == second else f
            for f in question.calibration
        ]
        with unit_of_work(script.engine) as tx:
            sets.save_question(tx, set_id, question.model_copy(update={"calibration": changed}), author="script")
    finally:
        script.close()

    fixtures.rationale.setFocus()
    fixtures.rationale.setPlainText("Typed in the GUI.")
    fixtures._commit()  # leaving the field: the edit was made on the older version
    settle(qtbot, window)
    kind, conflict = window.notices.recent[-1]
    assert kind == "warning" and "changed by script" in conflict and "kept in its field" in conflict
    assert fixtures.rationale.toPlainText() == "Typed in the GUI."  # the typed text is still there
    assert str(fixtures._fixtures[1].get("rationale")) == "The script's rationale."  # the newer version is shown

    fixtures._commit()  # leaving the field again saves it, on top of the newer version
    settle(qtbot, window)
    with reading(engine) as session:
        saved = {f.fixture_id: f for f in sets.load_question(session, set_id, "A1").calibration}
    assert saved[first].rationale == "Typed in the GUI." and saved[second].rationale == "The script's rationale."
