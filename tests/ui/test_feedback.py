"""Nothing silent: every refusal, result and failure is a notice the user can see, every
worker failure is in the log with its traceback, and the history says what was done."""

from __future__ import annotations

import logging

from PySide6.QtCore import Qt

from gtreview.core.errors import UserError
from gtreview.ui.ops import BackgroundJob, QueryOp, notify
from tests.ui.waiting import settle


class Refused(UserError):
    pass


def message_room(window) -> int:  # type: ignore[no-untyped-def]
    """The width QStatusBar draws a temporary message in: up to its first permanent widget."""
    return window.status_label.x() - 6


def test_a_notice_has_room_beside_the_status_line(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    window.resize(1280, 720)
    qtbot.waitUntil(lambda: window.width() == 1280, timeout=3000)
    assert "10 questions" in window.status_label.text()  # the status line is still there, in full
    assert message_room(window) > window.statusBar().width() // 2  # the message is not covered
    window.set_reviewer_name("Dr " + "Extremely Long Reviewer Name " * 12)  # a long line never widens the window
    assert window.status_label.sizeHint().width() <= 520 and window.minimumSizeHint().width() < 1280
    assert message_room(window) > window.statusBar().width() // 2
    height = window.statusBar().height()
    window.notify("Cannot approve A1: it has 1 validation error(s)", "warning")
    assert window.statusBar().currentMessage().startswith("Cannot approve A1")
    assert window.notices.kind == "warning" and window.statusBar().height() == height  # the layout never moves


def test_refusals_results_and_failures_are_notices_of_their_kind(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    window.answers.append("   ")
    window.menu_actions["request_changes"].trigger()
    settle(qtbot, window)
    assert window.notices.recent[-1] == (
        "warning",
        "Cannot request changes on A1: requesting changes needs a comment saying what to change",
    )
    window.export_report()  # no results open: said, not dropped
    assert window.notices.recent[-1][0] == "warning" and "open a pass's results first" in window.notices.recent[-1][1]
    window.answers.append("Cite page 3.")
    window.menu_actions["request_changes"].trigger()
    settle(qtbot, window)
    assert window.notices.recent[-1] == ("success", "A1: changes requested by Dr Test.")
    notify(window.adjudication, "from a part of the window", "error")  # the one API, from any part
    assert window.notices.recent[-1] == ("error", "from a part of the window")
    assert window.statusBar().currentMessage() == "from a part of the window"


def test_a_calibration_refused_is_said_and_logged_in_one_line(qtbot, sample_window, caplog) -> None:  # type: ignore[no-untyped-def]
    window = sample_window

    def no_judge(spec: str):  # type: ignore[no-untyped-def]
        raise Refused(f"cannot reach the judge {spec}")

    window.controller.open_backend = no_judge
    window.answers.append("openai:http://judge.invalid/v1#m")
    with caplog.at_level(logging.INFO, logger="gtreview"):
        window.menu_actions["calibrate"].trigger()
        settle(qtbot, window)
    kind, text = window.notices.recent[-1]
    assert kind == "warning" and text.startswith("Calibration failed: cannot reach the judge")
    (record,) = [
        r for r in caplog.records if r.name == "gtreview.ui.ops" and "cannot reach the judge" in r.getMessage()
    ]
    # a refusal (the user's to act on) is logged in one line at INFO: a traceback each would bury bugs
    assert record.levelno == logging.INFO and record.exc_info is None


def test_every_worker_failure_is_logged_even_a_refusal_or_an_exit(qtbot, sample_window, caplog) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    caught: list[BaseException] = []

    def refuse() -> None:
        raise Refused("the judge drifted: 2 of 4 fixtures changed")

    def leave() -> None:
        raise SystemExit(3)

    with caplog.at_level(logging.INFO, logger="gtreview"):
        BackgroundJob(window, op=refuse, success=lambda _v: None).run_in_background()
        QueryOp(window, op=leave, success=lambda _v: None).failure(caught.append).run_in_background()
        settle(qtbot, window)
    refused = [r for r in caplog.records if "drifted" in r.getMessage() and r.name == "gtreview.ui.ops"]
    assert refused and refused[0].levelno == logging.INFO and refused[0].exc_info is None
    assert ("warning", "the judge drifted: 2 of 4 fixtures changed") in window.notices.recent  # the default: said
    assert len(caught) == 1 and isinstance(caught[0], SystemExit)  # reached the GUI thread, not lost in the pool
    assert any(r.levelno == logging.ERROR and r.exc_info for r in caplog.records if "leave" in r.getMessage())


def test_history_names_the_field_an_edit_changed(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    editor = window.editor
    window.tabs.setCurrentWidget(editor)
    editor.title_edit.setFocus()
    editor.title_edit.selectAll()
    qtbot.keyClicks(editor.title_edit, "Where to sink on a saddle reef")
    with qtbot.waitSignal(window.session.saved, timeout=3000):
        qtbot.keyClick(editor.title_edit, Qt.Key.Key_Return)
    settle(qtbot, window)
    window.tabs.setCurrentWidget(window.history)
    assert window.history.log.item(0, 2).text() == "edit title"
    assert window.history.log.item(0, 4).text() == ""  # the field is not repeated as a comment
    assert window.notices.recent[-1] == ("success", "Saved A1 as version 2.")


def test_a_change_request_is_shown_where_the_question_is_reviewed(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    window.tabs.setCurrentWidget(window.question_view)
    window.answers.append("Cite the 1874 section drawing too.")
    window.menu_actions["request_changes"].trigger()
    settle(qtbot, window)
    shown = window.question_view.toPlainText()
    assert "Changes requested" in shown and "Cite the 1874 section drawing too." in shown
    assert shown.index("Cite the 1874") < shown.index("Model answer")  # above the question, not only in History
    window.menu_actions["start_review"].trigger()  # taken up again: the request is dealt with
    settle(qtbot, window)
    assert "Cite the 1874" not in window.question_view.toPlainText()
