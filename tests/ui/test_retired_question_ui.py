"""A retired question says who retired it, when and why, above the question and over the
editor it locks; a status reads as words ("changes requested"), never its stored name."""

from __future__ import annotations

from PySide6.QtCore import Qt

from gtreview.app import workflow
from tests.ui.waiting import settle


def test_a_retired_question_says_who_when_and_why(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    window.answers.append("Duplicates A1")
    qtbot.keyClick(window, Qt.Key.Key_Down, Qt.KeyboardModifier.AltModifier)
    assert window.qid == "A2"
    window.menu_actions["retire"].trigger()
    settle(qtbot, window)
    retired = workflow.history(window.project.engine, window.set_id, "A2")[-1]
    said = f"Retired by {retired.actor} on {retired.at:%Y-%m-%d %H:%M}: Duplicates A1"
    window.tabs.setCurrentWidget(window.question_view)
    qtbot.waitUntil(lambda: "Retired by" in window.question_view.toPlainText(), timeout=10000)
    assert said in window.question_view.toPlainText(), window.question_view.toPlainText()[:300]
    assert "status retired" in window.question_view.toPlainText()
    window.tabs.setCurrentWidget(window.editor)
    notice = window.editor.locked_notice
    assert notice.isVisible() and notice.text().startswith(said) and "cannot be edited" in notice.text()
    assert notice.isEnabled() and not window.editor.general_findings.isEnabled()

    qtbot.keyClick(window, Qt.Key.Key_Up, Qt.KeyboardModifier.AltModifier)  # an active question: editable again
    settle(qtbot, window)
    assert window.qid == "A1" and not window.editor.locked_notice.isVisible()
    assert window.editor.general_findings.isEnabled()


def test_the_status_reads_as_words(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    window.answers.append("Cite the 1874 section drawing too.")
    window.menu_actions["request_changes"].trigger()
    settle(qtbot, window)
    window.tabs.setCurrentWidget(window.question_view)
    qtbot.waitUntil(lambda: "status changes requested" in window.question_view.toPlainText(), timeout=10000)
    assert "changes_requested" not in window.question_view.toPlainText()
