"""Blind grading as the grader meets it: the answer read first, beside the marking block
and on screen at 1280x720, and a queue the grader can walk back through (the grade given
stays editable) or skip in (the answer comes back at the end), from the keyboard."""

from __future__ import annotations

import json

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QApplication, QTextBrowser, QWidget

from gtreview.app.adjudication import GradingItem
from gtreview.store import adjudication_repo, sets
from gtreview.store.db import reading
from gtreview.ui.dialogs.shortcut_sheet import ShortcutSheet
from gtreview.ui.widgets.grading_view import GradingView
from tests.ui.test_adjudication_ui import run_flagging_pass
from tests.ui.waiting import settle

BACK = (Qt.Key.Key_Left, Qt.KeyboardModifier.AltModifier)
SKIP = (Qt.Key.Key_Right, Qt.KeyboardModifier.AltModifier)
SAVE = (Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)


def answer_on_screen(view: QWidget, answer: str) -> bool:
    """Whether the answer's first line is drawn inside the window without scrolling: in a
    shown text browser, inside its viewport as it opens, and inside the window."""
    window = view.window()
    for browser in view.findChildren(QTextBrowser):
        found = browser.document().find(answer[:30])
        if not browser.isVisible() or found.isNull():
            continue
        start = QTextCursor(browser.document())
        start.setPosition(found.selectionStart())
        line = browser.cursorRect(start)  # in the viewport's coordinates, at the scroll shown
        viewport = browser.viewport()
        inside = line.top() >= 0 and line.bottom() <= viewport.height()
        corners = (viewport.mapTo(window, line.topLeft()), viewport.mapTo(window, line.bottomRight()))
        return inside and all(window.rect().contains(corner) for corner in corners)
    return False


def items_of(sample_window, count: int = 4) -> list[GradingItem]:  # type: ignore[no-untyped-def]
    with reading(sample_window.project.engine) as session:
        questions = sets.export_rubric(session, sample_window.set_id).questions[:count]
    return [
        GradingItem(generation_key=f"g{n}", qid=q.id, question=q, answer=f"Answer number {n} about the reef.")
        for n, q in enumerate(questions)
    ]


def shown(qtbot, view: GradingView) -> None:  # type: ignore[no-untyped-def]
    """The view as the active window (the page's keys work where the focus is)."""
    view.show()
    view.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is view)


def first_spin(view: GradingView):  # type: ignore[no-untyped-def]
    return next(iter(view.form.spins.values()))


def test_the_answer_is_on_screen_beside_the_marking_block_at_1280x720(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    window.resize(1280, 720)
    run_flagging_pass(qtbot, window)
    window.menu_actions["grading"].trigger()
    settle(qtbot, window)
    view = window.adjudication.grading_view
    QApplication.processEvents()
    for _ in range(3):  # the first answers, whatever the length of their marking blocks
        assert answer_on_screen(view, view.items[view.position].answer)
        qtbot.keyClick(view.form.gate, *SKIP)


def test_back_shows_the_grade_given_editable_and_saving_again_replaces_it(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    run_flagging_pass(qtbot, window)
    window.menu_actions["grading"].trigger()
    settle(qtbot, window)
    view = window.adjudication.grading_view
    first = view.items[0]
    view.form.gate.setChecked(True)
    first_spin(view).setValue(2)
    view.form.reason.setText("cites the gossan")
    qtbot.keyClick(view.form.gate, *SAVE)
    settle(qtbot, window)
    assert view.position == 1
    qtbot.keyClick(view.form.gate, *BACK)
    assert view.position == 0 and view.items[0] is first
    assert view.form.gate.isChecked() and first_spin(view).value() == 2  # the grade given, to change
    assert view.form.reason.text() == "cites the gossan" and "graded" in view.progress.text()
    component = next(iter(view.form.spins))
    first_spin(view).setValue(0)
    qtbot.keyClick(view.form.gate, *SAVE)
    settle(qtbot, window)
    assert view.position == 1
    with reading(window.project.engine) as session:
        (grade,) = adjudication_repo.grades(session, 1)  # the later grade replaces the first
    assert grade.generation_key == first.generation_key and json.loads(grade.awards_json)[component] == 0
    assert grade.comment == "cites the gossan"


def test_skip_sends_the_answer_to_the_end_of_the_queue(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    view = GradingView()
    qtbot.addWidget(view)
    saved: list[str] = []
    view.save_requested.connect(lambda item, _gate, _awards, _comment: saved.append(item.generation_key))
    shown(qtbot, view)
    view.start(items_of(sample_window))
    qtbot.keyClick(view.form.gate, *SKIP)
    assert [i.generation_key for i in view.items] == ["g1", "g2", "g3", "g0"]
    assert view.position == 0 and "Answer 1 of 4" in view.progress.text()
    assert "Answer number 1" in view.answer.toPlainText() and saved == []
    for _ in range(3):
        qtbot.keyClick(view.form.gate, *SAVE)
    assert "Answer number 0" in view.answer.toPlainText()  # the skipped one, last
    assert not view.skip_button.isEnabled()  # nothing after it to skip to
    qtbot.keyClick(view.form.gate, *SAVE)
    assert saved == ["g1", "g2", "g3", "g0"] and "All 4 sampled answers graded" in view.progress.text()


def test_what_is_typed_and_left_unsaved_is_kept_and_back_stops_at_the_first(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    view = GradingView()
    qtbot.addWidget(view)
    saved: list[tuple[str, int]] = []
    view.save_requested.connect(lambda item, _g, awards, _c: saved.append((item.generation_key, sum(awards.values()))))
    shown(qtbot, view)
    view.start(items_of(sample_window))
    assert not view.back_button.isEnabled()
    qtbot.keyClick(view.form.gate, *SAVE)
    first_spin(view).setValue(1)  # on the second answer, not saved
    qtbot.keyClick(view.form.gate, *BACK)
    qtbot.keyClick(view.form.gate, *SAVE)  # unchanged: on without writing it again
    assert view.position == 1 and first_spin(view).value() == 1  # the value typed is back
    assert saved == [("g0", 0)]


def test_back_and_skip_name_their_keys_in_tooltips_and_the_shortcut_sheet(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    view = sample_window.adjudication.grading_view
    assert "Alt+Left" in view.back_button.toolTip() and "Alt+Right" in view.skip_button.toolTip()
    assert "Ctrl+S" in view.save_button.toolTip()
    sample_window.menu_actions["shortcuts"].trigger()  # F1
    sheet = sample_window.findChildren(ShortcutSheet)[-1]
    listed = sheet.table.toPlainText()
    for text in ("Blind grading: back", "Blind grading: skip", "Blind grading: save and next", "Alt+Left"):
        assert text in listed
    sheet.accept()


def test_the_answer_comes_before_the_marking_block(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    view = GradingView()
    qtbot.addWidget(view)
    view.resize(1000, 560)
    view.show()
    item = items_of(sample_window, 1)[0]
    view.start([item])
    qtbot.waitExposed(view)
    assert "QUESTION" not in view.answer.toPlainText()
    answer_at = view.answer.mapTo(view, QPoint(0, 0))
    block_at = view.marking.mapTo(view, QPoint(0, 0))
    assert answer_at.x() < block_at.x() or answer_at.y() < block_at.y()  # left of it or above it
    assert answer_on_screen(view, item.answer)
