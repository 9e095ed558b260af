"""Operations off the GUI thread, after Anki's ``CollectionOp`` and ``QueryOp``.

A slot gathers its input and hands one ``gtreview.app`` call to an operation; the call
runs in a worker (each app function opens its own database session), and its outcome
comes back to the GUI thread through a queued signal:

- ``QueryOp`` reads. Reads run side by side; ``LatestQuery`` keeps one view's reads in
  order (the newest request wins, superseded answers are dropped).
- ``CollectionOp`` changes the project. Changes run one at a time, in the order they
  were asked for, so two clicks never interleave; each returns an ``OpChanges`` (or an
  ``OpResult`` carrying one) that the window's ``OpHub`` broadcasts once the success
  handler has run, and every view refreshes only what the value names.
- ``BackgroundJob`` is long work with progress and cancel (a pass, drafting,
  calibration, a report or release written): it commits its own records as it goes, so
  it is not serialised with the short changes, and each job runs on a thread of its own,
  so neither the short reads and changes nor another job ever wait behind it (jobs
  shared Qt's global pool once, as many threads as cores: on two cores a pass and a
  calibration held both, and a report asked for meanwhile waited, unsaid, for the pass
  to end). A job begun on the window's ``ActivityBoard`` (``ui/activity.py``) hands its
  ticket to the BackgroundJob, which ends it when the work returns.

A failure reaches the op's failure handler as the real exception. Anything but a
``UserError`` (the user's own mistake, said in one line) or a ``Cancelled`` is a bug
and is logged with its traceback before any handler runs; a ``UserError`` is logged
too (a warning, with its traceback: a refused calibration or a drift check that stopped
a pass is worth reading afterwards), a ``Cancelled`` in one line. The default handler
shows the one-line message as the window's notice.

Notices: ``notify(obj, text, kind)`` is the one way any part of the UI tells the user
something (a refusal, a result, a failure). It reaches the hub of the window ``obj``
belongs to, whose ``noticed`` signal the window shows in its notice area; outside a
window it is logged.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any, Generic, TypeVar

import shiboken6
from PySide6.QtCore import QCoreApplication, QEventLoop, QObject, Qt, QThread, QThreadPool, Signal, Slot

from gtreview.core.changes import OpChanges, OpResult, changes_of
from gtreview.ui.activity import ActivityBoard, JobTicket
from gtreview.ui.failures import NOTICE_KINDS as NOTICE_KINDS  # re-exported: every controller takes them from ops
from gtreview.ui.failures import NoticeKind, failure_kind, failure_message, log_failure
from gtreview.ui.gui_thread import install_gui_thread_first, remove_gui_thread_first, watch_work

log = logging.getLogger("gtreview.ui.ops")

T = TypeVar("T")
Failure = Callable[[BaseException], None]


# -- running work ----------------------------------------------------------------------


class _Task:
    """One piece of work: what it returned or raised, and who hears of it on the GUI thread."""

    def __init__(self, hub: OpHub, work: Callable[[], Any], done: Callable[[_Task], None], job: bool) -> None:
        self.hub, self.work, self.done, self.job = hub, work, done, job
        self.value: Any = None
        self.error: BaseException | None = None

    def run(self) -> None:
        """In a pool thread."""
        try:
            self.value = self.work()
        except BaseException as exc:  # noqa: BLE001 - handed to the GUI thread, never lost (SystemExit too)
            self.error = exc
        _relay().finished.emit(self)


class _Relay(QObject):
    """Brings finished tasks to the GUI thread. One for the whole application, so that no
    sender is ever deleted while a worker is still emitting through it."""

    finished = Signal(object)  # a _Task

    @Slot(object)
    def deliver(self, task: _Task) -> None:
        if shiboken6.isValid(task.hub):  # a window closed meanwhile hears nothing
            task.hub._deliver(task)


_the_relay: _Relay | None = None
_the_pool: QThreadPool | None = None


def _ops_pool() -> QThreadPool:
    """The reads' and changes' threads, for the whole application: a window that goes
    never waits on (or deletes) a thread still finishing one of its reads."""
    global _the_pool
    if _the_pool is None or not shiboken6.isValid(_the_pool):
        _the_pool = QThreadPool(QCoreApplication.instance())
        _the_pool.setMaxThreadCount(max(4, QThread.idealThreadCount()))
    return _the_pool


def _relay() -> _Relay:
    global _the_relay
    if _the_relay is None:
        _the_relay = _Relay(QCoreApplication.instance())  # created on the GUI thread, so it lives there
        _the_relay.finished.connect(_the_relay.deliver, Qt.ConnectionType.QueuedConnection)
    return _the_relay


def _what(work: Callable[..., Any]) -> str:
    return getattr(work, "__qualname__", None) or type(work).__name__


class OpHub(QObject):
    """The window's operations: what is running, the one-at-a-time queue of changes, and the
    broadcast of what changed. Views connect to ``changes_applied``."""

    changes_applied = Signal(object, object)  # OpChanges, initiator (or None)
    busy_changed = Signal(bool)  # a change is running or waiting
    notice = Signal(str)  # a one-line message (every notice, whatever its kind)
    noticed = Signal(str, str)  # the message and its kind (NoticeKind): what the window shows
    settled = Signal()  # every operation has finished, callbacks included

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        install_gui_thread_first()
        watch_work(self)  # no full garbage collection while a read or change runs
        self.pool = _ops_pool()
        self.activities = ActivityBoard(self)  # the window's long jobs (status bar, quitting)
        self._tasks: dict[int, _Task] = {}
        self._changes: deque[CollectionOp[Any]] = deque()
        self._changing: CollectionOp[Any] | None = None

    @staticmethod
    def of(obj: QObject | None) -> OpHub:
        """The hub of the window ``obj`` belongs to (a shared one outside any window)."""
        while obj is not None:
            if isinstance(obj, OpHub):
                return obj
            hub = obj.findChild(OpHub, "", Qt.FindChildOption.FindDirectChildrenOnly)
            if isinstance(hub, OpHub):
                return hub
            obj = obj.parent()
        return _shared_hub()

    # -- state, for closing the window and for tests ----------------------------------
    @property
    def busy(self) -> bool:
        return self._changing is not None or bool(self._changes)

    @property
    def waiting_changes(self) -> int:
        """Changes asked for and not yet started (one runs at a time)."""
        return len(self._changes)

    def idle(self) -> bool:
        """Nothing running or waiting, background jobs included."""
        return not self._tasks and not self.busy

    def working(self) -> bool:
        """A read or a change is running or waiting (background jobs aside: a pass runs for hours)."""
        return self.busy or any(not task.job for task in self._tasks.values())

    def drain(self, timeout_s: float = 60.0) -> bool:
        """Let every read and change finish, callbacks included (closing the window: no
        change is lost and none outlives the project). Jobs are cancelled by their owners."""
        deadline = time.monotonic() + timeout_s
        while self.working():
            if time.monotonic() > deadline:
                log.warning("%d operation(s) still running at close", len(self._tasks))
                return False
            QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.ExcludeUserInputEvents, 20)
            self.pool.waitForDone(5)
        return True

    # -- running ---------------------------------------------------------------------
    def start(self, work: Callable[[], Any], done: Callable[[_Task], None], *, job: bool = False) -> None:
        task = _Task(self, work, done, job)
        self._tasks[id(task)] = task
        _relay()  # made here, on the GUI thread, before any worker needs it
        if job:  # a thread of its own: no job queues behind another (daemon: quitting never hangs on one)
            threading.Thread(target=task.run, name=f"gtreview-job {_what(work)}", daemon=True).start()
        else:
            self.pool.start(task.run)

    def _deliver(self, task: _Task) -> None:
        if self._tasks.get(id(task)) is not task:
            return
        try:
            task.done(task)
        finally:
            del self._tasks[id(task)]  # after the callbacks, so that follow-up reads keep us busy
            if self.idle():
                self.settled.emit()

    def submit_change(self, op: CollectionOp[Any]) -> None:
        was_busy = self.busy
        self._changes.append(op)
        if self._changing is None:
            self._next_change()
        if not was_busy:
            self.busy_changed.emit(True)

    def _next_change(self) -> None:
        if not self._changes:
            return
        self._changing = self._changes.popleft()
        self._changing._begin(self)

    def _change_done(self, op: CollectionOp[Any]) -> None:
        if op is self._changing:
            self._changing = None
        self._next_change()
        if not self.busy:
            self.busy_changed.emit(False)

    def apply(self, changes: OpChanges, initiator: object = None) -> None:
        """Tell every view what changed (also for changes made outside an op)."""
        if not changes.empty:
            self.changes_applied.emit(changes, initiator)

    def notify(self, text: str, kind: NoticeKind = "info") -> None:
        """Tell the user ``text``; the window shows it in its notice area."""
        self.noticed.emit(text, kind if kind in NOTICE_KINDS else "info")
        self.notice.emit(text)

    def report(self, error: BaseException) -> None:
        """The default failure handler: the one line, as an error notice."""
        self.notify(failure_message(error), failure_kind(error))


_shared: OpHub | None = None


def _shared_hub() -> OpHub:
    global _shared
    if _shared is None or not shiboken6.isValid(_shared):
        _shared = OpHub(QCoreApplication.instance())
        _shared.noticed.connect(lambda message, kind: log.warning("%s: %s", kind, message))  # no window to say it in
    return _shared


def notify(obj: QObject | None, text: str, kind: NoticeKind = "info") -> None:
    """The one notice API: tell the user ``text`` in the window ``obj`` belongs to."""
    OpHub.of(obj).notify(text, kind)


def _alive(obj: QObject | None) -> bool:
    return obj is None or shiboken6.isValid(obj)


class _Op(Generic[T]):
    def __init__(self, parent: QObject | None, op: Callable[[], T]) -> None:
        self._parent = parent
        self._op = op
        self._success: Callable[[T], None] | None = None
        self._failure: Failure | None = None

    def _succeeded(self, hub: OpHub, value: T) -> None:
        if self._success is not None and _alive(self._parent):
            try:
                self._success(value)
            except Exception as exc:  # noqa: BLE001 - a bug in a view: logged and said, never silent
                log_failure(exc, f"showing the outcome of {_what(self._op)}")
                hub.report(exc)

    def _failed(self, hub: OpHub, error: BaseException) -> None:
        log_failure(error, _what(self._op))
        if not _alive(self._parent):
            return
        if self._failure is not None:
            try:
                self._failure(error)
            except Exception as exc:  # noqa: BLE001 - as above
                log_failure(exc, f"reporting the failure of {_what(self._op)}")
                hub.report(exc)
        else:
            hub.report(error)


class QueryOp(_Op[T]):
    """A read in a worker; ``success`` gets its value on the GUI thread."""

    def __init__(self, parent: QObject | None, *, op: Callable[[], T], success: Callable[[T], None]) -> None:
        super().__init__(parent, op)
        self._success = success

    def failure(self, handler: Failure) -> QueryOp[T]:
        self._failure = handler
        return self

    def run_in_background(self) -> None:
        hub = OpHub.of(self._parent)
        hub.start(self._op, lambda task: self._finish(hub, task))

    def _finish(self, hub: OpHub, task: _Task) -> None:
        if task.error is not None:
            self._failed(hub, task.error)
        else:
            self._succeeded(hub, task.value)


class CollectionOp(_Op[T]):
    """A change to the project; ``op`` returns ``OpChanges`` or an ``OpResult``.

    Changes run one at a time in the order asked for; after the success handler the
    hub broadcasts what changed, with the initiator, so views refresh only that.
    """

    def __init__(self, parent: QObject | None, op: Callable[[], T]) -> None:
        super().__init__(parent, op)
        self._initiator: object = None

    def success(self, handler: Callable[[T], None]) -> CollectionOp[T]:
        self._success = handler
        return self

    def failure(self, handler: Failure) -> CollectionOp[T]:
        self._failure = handler
        return self

    def run_in_background(self, *, initiator: object = None) -> None:
        self._initiator = initiator
        OpHub.of(self._parent).submit_change(self)

    def _begin(self, hub: OpHub) -> None:
        hub.start(self._op, lambda task: self._finish(hub, task))

    def _finish(self, hub: OpHub, task: _Task) -> None:
        try:
            if task.error is not None:
                self._failed(hub, task.error)
            else:
                try:
                    self._succeeded(hub, task.value)
                finally:
                    hub.apply(changes_of(task.value), self._initiator)
        finally:
            hub._change_done(self)


class BackgroundJob(_Op[T]):
    """Long work (progress, cancel) beside the changes; what it returns is broadcast like a
    change's. ``ticket``: the job's entry on the window's activity board, ended as the
    work returns (before the handlers run, so they see it gone)."""

    def __init__(
        self,
        parent: QObject | None,
        *,
        op: Callable[[], T],
        success: Callable[[T], None],
        ticket: JobTicket | None = None,
    ) -> None:
        super().__init__(parent, op)
        self._success = success
        self._ticket = ticket

    def failure(self, handler: Failure) -> BackgroundJob[T]:
        self._failure = handler
        return self

    def run_in_background(self) -> None:
        hub = OpHub.of(self._parent)
        hub.start(self._op, lambda task: self._finish(hub, task), job=True)

    def _finish(self, hub: OpHub, task: _Task) -> None:
        if self._ticket is not None:
            self._ticket.end()
        if task.error is not None:
            self._failed(hub, task.error)
            return
        try:
            self._succeeded(hub, task.value)
        finally:
            hub.apply(changes_of(task.value))


class LatestQuery:
    """One view's reads, in order: at most one runs, a newer request replaces the one
    waiting, and the answer to a superseded request is dropped (stepping through
    questions with the keyboard starts one read, not one per key press)."""

    def __init__(self, parent: QObject) -> None:
        self._parent = parent
        self._generation = 0
        self._running = False
        self._waiting: tuple[int, Callable[[], Any], Callable[[Any], None], Failure | None] | None = None

    def run(self, op: Callable[[], T], success: Callable[[T], None], failure: Failure | None = None) -> None:
        self._generation += 1
        request = (self._generation, op, success, failure)
        if self._running:
            self._waiting = request
        else:
            self._start(request)

    def cancel(self) -> None:
        """Drop whatever is asked for or running (the view closed or moved on)."""
        self._generation += 1
        self._waiting = None

    @property
    def pending(self) -> bool:
        return self._running or self._waiting is not None

    def _start(self, request: tuple[int, Callable[[], Any], Callable[[Any], None], Failure | None]) -> None:
        generation, op, success, failure = request
        self._running = True

        def done(value: Any) -> None:
            try:
                if generation == self._generation:
                    success(value)
            finally:
                self._next()

        def failed(error: BaseException) -> None:
            try:
                if generation == self._generation:
                    (failure or OpHub.of(self._parent).report)(error)
            finally:
                self._next()

        QueryOp(self._parent, op=op, success=done).failure(failed).run_in_background()

    def _next(self) -> None:
        self._running = False
        waiting, self._waiting = self._waiting, None
        if waiting is not None:
            self._start(waiting)


__all__ = [
    "BackgroundJob",
    "CollectionOp",
    "LatestQuery",
    "NoticeKind",
    "OpChanges",
    "OpHub",
    "OpResult",
    "QueryOp",
    "changes_of",
    "failure_kind",
    "failure_message",
    "install_gui_thread_first",
    "log_failure",
    "notify",
    "remove_gui_thread_first",
]
