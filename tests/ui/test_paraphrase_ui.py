"""Paraphrases from the keyboard: New paraphrase… starts from the original's wording, the
paraphrase is listed and selected, the views link the two, and an edit of the original
is brought over with Update paraphrase from its original."""

from __future__ import annotations

from PySide6.QtCore import Qt, QUrl

from gtreview.app import editing
from gtreview.store import sets
from gtreview.store.db import reading
from gtreview.store.sets import ReviewStatus
from gtreview.ui.models.question_table import COLUMNS
from gtreview.ui.paraphrase_controller import ParaphraseDialog
from tests.ui.waiting import settle

CTRL_SHIFT = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
WORDING = "In other words: what does the reef do here"


def cell(window, qid: str, column: str) -> str:  # type: ignore[no-untyped-def]
    proxy = window.question_list.proxy
    rows = [r for r in range(proxy.rowCount()) if proxy.index(r, 0).data() == qid]
    return str(proxy.index(rows[0], COLUMNS.index(column)).data())


def test_a_new_paraphrase_from_the_keyboard(qtbot, sample_window, qtmodeltester) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    engine, set_id = window.project.engine, window.set_id
    original = window.qid
    assert original is not None
    with reading(engine) as session:
        wording = sets.load_question(session, set_id, original).question
    qtbot.keyClick(window, Qt.Key.Key_R, CTRL_SHIFT)  # Edit > New paraphrase…
    qtbot.waitUntil(lambda: window.paraphrases.dialog is not None, timeout=10000)
    dialog = window.paraphrases.dialog
    assert isinstance(dialog, ParaphraseDialog) and dialog.wording() == wording  # prefilled with the original
    assert not dialog.ok.isEnabled()  # the original's own wording is no paraphrase
    qtbot.keyClicks(dialog.text, WORDING)  # the whole text was selected: typing replaces it
    assert dialog.ok.isEnabled()
    qtbot.keyClick(dialog.text, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    settle(qtbot, window)
    new = f"{original}-P1"
    assert window.qid == new  # listed after its original, and shown
    with reading(engine) as session:
        made = sets.load_question(session, set_id, new)
    assert made.question == WORDING and made.paraphrase_of == original
    with reading(engine) as session:
        assert {s.qid: s.review_status for s in sets.list_questions(session, set_id)}[new] is ReviewStatus.DRAFT
    assert cell(window, new, "Paraphrase of") == original and cell(window, original, "Paraphrase of") == ""
    qtmodeltester.check(window.question_list.model)
    window.tabs.setCurrentWidget(window.question_view)
    settle(qtbot, window)
    assert f"Paraphrase of {original}" in window.question_view.toPlainText()

    window.activateWindow()  # back from the dialog: the window's shortcuts apply again
    qtbot.waitUntil(window.isActiveWindow, timeout=5000)
    qtbot.keyClick(window, Qt.Key.Key_O, CTRL_SHIFT)  # Go > Original of this paraphrase
    settle(qtbot, window)
    assert window.qid == original
    assert f"Paraphrases: {new}" in window.question_view.toPlainText()
    window.question_view.anchorClicked.emit(QUrl(f"question:{new}"))  # the link in the view
    settle(qtbot, window)
    assert window.qid == new


def test_an_edited_original_is_brought_over_from_the_keyboard(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    from gtreview.app.paraphrases import add_paraphrase

    window = sample_window
    engine, set_id, original = window.project.engine, window.set_id, window.qid
    added = add_paraphrase(engine, set_id, original, WORDING, author="Dr Test")
    editing.apply_edit(engine, set_id, original, ("do_not_credit",), ["Blames the assayer."], author="Dr Test")
    window.open_set(set_id)
    settle(qtbot, window)
    assert window.question_list.select(added.qid)
    settle(qtbot, window)
    window.tabs.setCurrentWidget(window.question_view)
    assert "paraphrase-rubric-stale" in window.question_view.toPlainText()
    qtbot.keyClick(window, Qt.Key.Key_U, CTRL_SHIFT)  # Edit > Update paraphrase from its original
    settle(qtbot, window)
    with reading(engine) as session:
        assert sets.load_question(session, set_id, added.qid).do_not_credit == ["Blames the assayer."]
    with reading(engine) as session:
        assert sets.load_question(session, set_id, added.qid).question == WORDING
    assert "paraphrase-rubric-stale" not in window.question_view.toPlainText()
    assert "rubric again" in window.statusBar().currentMessage()
