"""Operations off the GUI thread: failures with their exception, changes one at a time,
the broadcast of what changed, and reads where the newest request wins."""

from __future__ import annotations

import logging
import threading

import pytest
from PySide6.QtCore import QObject, QThread

from gtreview.core.errors import UserError
from gtreview.ui.ops import CollectionOp, LatestQuery, OpChanges, OpHub, OpResult, QueryOp


class Refused(UserError):
    pass


@pytest.fixture()
def owner(qtbot):  # type: ignore[no-untyped-def]
    """An object with its own hub, as a window has."""
    parent = QObject()
    hub = OpHub(parent)
    notices: list[str] = []
    hub.notice.connect(notices.append)
    parent.notices = notices  # type: ignore[attr-defined]
    yield parent
    qtbot.waitUntil(hub.idle, timeout=10000)


def hub_of(owner: QObject) -> OpHub:
    return OpHub.of(owner)


def test_a_query_runs_off_the_gui_thread_and_succeeds_on_it(qtbot, owner) -> None:  # type: ignore[no-untyped-def]
    gui = QThread.currentThread()
    seen: dict[str, object] = {}

    def read() -> int:
        seen["worker"] = QThread.currentThread()
        return 42

    def done(value: int) -> None:
        seen["value"], seen["callback"] = value, QThread.currentThread()

    QueryOp(owner, op=read, success=done).run_in_background()
    qtbot.waitUntil(lambda: "value" in seen, timeout=5000)
    assert seen["worker"] is not gui and seen["callback"] is gui and seen["value"] == 42


def test_the_failure_handler_gets_the_exception_and_it_is_logged(qtbot, owner, caplog) -> None:  # type: ignore[no-untyped-def]
    boom = KeyError("no such run")
    caught: list[BaseException] = []

    def read() -> None:
        raise boom

    with caplog.at_level(logging.ERROR, logger="gtreview.ui.ops"):
        QueryOp(owner, op=read, success=lambda _v: None).failure(caught.append).run_in_background()
        qtbot.waitUntil(lambda: bool(caught), timeout=5000)
    assert caught[0] is boom  # the real exception, not a string
    (record,) = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert record.exc_info is not None and record.exc_info[1] is boom
    assert "Traceback" in caplog.text and "in read" in caplog.text  # the worker's own traceback


def test_default_failure_handler_says_one_line(qtbot, owner, caplog) -> None:  # type: ignore[no-untyped-def]
    def refuse() -> None:
        raise Refused("A1 has 1 validation error(s); fix them before approving\nsecond line")

    def crash() -> None:
        raise ZeroDivisionError("division by zero")

    with caplog.at_level(logging.DEBUG, logger="gtreview.ui.ops"):
        CollectionOp(owner, refuse).run_in_background()
        CollectionOp(owner, crash).run_in_background()
        qtbot.waitUntil(lambda: len(owner.notices) == 2, timeout=5000)
    assert owner.notices[0] == "A1 has 1 validation error(s); fix them before approving"  # as it is
    assert owner.notices[1] == "ZeroDivisionError: division by zero (details in the log)"
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and isinstance(errors[0].exc_info[1], ZeroDivisionError)  # the user's mistake is no bug
    # the refusal: one line at INFO, no traceback, nothing at WARNING to bury the real errors
    (refusal,) = [r for r in caplog.records if "refused" in r.getMessage()]
    assert refusal.levelno == logging.INFO and refusal.exc_info is None
    assert "A1 has 1 validation error(s)" in refusal.getMessage()
    assert not [r for r in caplog.records if r.levelno == logging.WARNING]


def test_changes_run_one_at_a_time_in_order(qtbot, owner) -> None:  # type: ignore[no-untyped-def]
    hub = hub_of(owner)
    release = threading.Event()
    log: list[str] = []

    def first() -> OpChanges:
        log.append("first started")
        release.wait(10)
        log.append("first done")
        return OpChanges()

    def second() -> OpChanges:
        log.append("second started")
        return OpChanges()

    busy: list[bool] = []
    hub.busy_changed.connect(busy.append)
    CollectionOp(owner, first).run_in_background()
    CollectionOp(owner, second).run_in_background()
    qtbot.waitUntil(lambda: log == ["first started"], timeout=5000)
    assert hub.waiting_changes == 1  # the second waits in the hub, not started beside the first
    assert log == ["first started"] and busy == [True]
    release.set()
    qtbot.waitUntil(hub.idle, timeout=5000)
    assert log == ["first started", "first done", "second started"] and busy == [True, False]


def test_success_then_broadcast_with_the_initiator(qtbot, owner) -> None:  # type: ignore[no-untyped-def]
    hub = hub_of(owner)
    events: list[object] = []
    hub.changes_applied.connect(lambda changes, initiator: events.append((changes, initiator)))
    initiator = object()
    changed = OpChanges.of_questions(1, "A1") | OpChanges(adjudications=frozenset({3}))

    CollectionOp(owner, lambda: OpResult(7, changed)).success(
        lambda result: events.append(result.value)
    ).run_in_background(initiator=initiator)
    qtbot.waitUntil(lambda: len(events) == 2, timeout=5000)
    assert events == [7, (changed, initiator)]
    assert changed.question_ids(1) == {"A1"} and changed.adjudications == {3}


def test_a_failed_change_is_not_broadcast_and_the_next_still_runs(qtbot, owner) -> None:  # type: ignore[no-untyped-def]
    hub = hub_of(owner)
    broadcast: list[OpChanges] = []
    hub.changes_applied.connect(lambda changes, _i: broadcast.append(changes))

    def fail() -> OpChanges:
        raise Refused("no")

    CollectionOp(owner, fail).failure(lambda _e: None).run_in_background()
    CollectionOp(owner, lambda: OpChanges(runs=frozenset({2}))).run_in_background()
    qtbot.waitUntil(hub.idle, timeout=5000)
    assert broadcast == [OpChanges(runs=frozenset({2}))]


def test_a_bug_in_a_success_handler_is_logged_and_said(qtbot, owner, caplog) -> None:  # type: ignore[no-untyped-def]
    def show(_value: int) -> None:
        raise RuntimeError("widget gone")

    with caplog.at_level(logging.ERROR, logger="gtreview.ui.ops"):
        QueryOp(owner, op=lambda: 1, success=show).run_in_background()
        qtbot.waitUntil(lambda: bool(owner.notices), timeout=5000)
    assert owner.notices == ["RuntimeError: widget gone (details in the log)"] and "Traceback" in caplog.text


def test_latest_query_keeps_only_the_newest_answer(qtbot, owner) -> None:  # type: ignore[no-untyped-def]
    release = threading.Event()
    ran: list[int] = []
    shown: list[int] = []
    latest = LatestQuery(owner)

    def read(n: int):  # type: ignore[no-untyped-def]
        def run() -> int:
            ran.append(n)
            if n == 1:
                release.wait(10)
            return n

        return run

    latest.run(read(1), shown.append)
    qtbot.waitUntil(lambda: ran == [1], timeout=5000)
    latest.run(read(2), shown.append)  # waits, then is replaced by the third
    latest.run(read(3), shown.append)
    release.set()
    qtbot.waitUntil(lambda: hub_of(owner).idle() and not latest.pending, timeout=5000)
    assert ran == [1, 3] and shown == [3]


def test_outside_a_window_ops_use_a_shared_hub(qtbot) -> None:  # type: ignore[no-untyped-def]
    lonely = QObject()
    got: list[str] = []
    QueryOp(lonely, op=lambda: "ok", success=got.append).run_in_background()
    qtbot.waitUntil(lambda: got == ["ok"], timeout=5000)
    assert OpHub.of(lonely) is OpHub.of(None)
