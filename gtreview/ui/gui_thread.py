"""Keeping the GUI thread first while workers run Python beside it."""

from __future__ import annotations

import gc
import sys
import time
import weakref
from collections.abc import Callable
from typing import Protocol

import shiboken6
from PySide6.QtCore import QCoreApplication, QObject, QTimer


class Working(Protocol):
    def working(self) -> bool: ...


class GuiThreadCollector(QObject):
    """Collects cyclic garbage on the GUI thread only (as Anki does), and never while
    the user is at work.

    Python's automatic collector runs in whichever thread happens to allocate, and a
    worker that collects a cycle holding a Qt object destroys that object off its
    thread: a deadlock or a crash. With workers reading thousands of records, that is
    not rare. So automatic collection is off while the app runs, and a timer on the GUI
    thread does it instead.

    Collecting the young objects a worker left (70,000 to 100,000 after reading a
    2,000-question set) took 60-220 ms on the GUI thread, one freeze per action. So
    young objects are not examined one generation at a time: every tick that finds
    some, ``gc.freeze()`` moves them out of the collector's way (constant time, nothing
    examined; reference counting still frees them). Cyclic garbage among them is found
    by one full collection, done when the heap has grown by a quarter since the last
    one (CPython's own rule for full collections) and the app is quiet (no burst of
    new objects for ``quiet_s``); under sustained work, after ``longest_wait_s`` at the
    first tick with no read or change in flight (between two actions, not inside one).
    """

    def __init__(
        self,
        parent: QObject | None,
        interval_ms: int = 250,
        *,
        quiet_s: float = 1.0,
        longest_wait_s: float = 60.0,
        min_growth: int = 50_000,
        growth: float = 0.25,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(parent)
        self.thresholds = gc.get_threshold()
        self.was_enabled = gc.isenabled()
        self.quiet_s, self.longest_wait_s = quiet_s, longest_wait_s
        self.min_growth, self.growth = min_growth, growth
        self.clock = clock
        gc.disable()
        self.full_collections = 0
        self.full_seconds = self.longest_full = 0.0  # what the full collections took (a benchmark reads it)
        self._base = gc.get_freeze_count()  # frozen objects after the last full collection
        self._grown = 0  # young objects frozen since (about: allocations less deallocations)
        self._hubs: weakref.WeakSet[Working] = weakref.WeakSet()
        self._last_full = self._last_burst = clock()
        self.timer = QTimer(self, interval=interval_ms)
        self.timer.timeout.connect(self.collect)
        self.timer.start()

    BURST = 2_000  # new young objects in one tick that mean someone is working
    OVERDUE_FACTOR = 10  # work in flight without a pause is interrupted after this many longest waits

    def collect(self) -> None:
        now = self.clock()
        young = gc.get_count()[0]
        in_flight = any(hub.working() for hub in list(self._hubs))
        if young > self.BURST or in_flight:
            self._last_burst = now
        if young > self.thresholds[0]:
            gc.freeze()
            self._grown += young  # counting the frozen list itself walks all of it
        if self._grown <= max(int(self._base * self.growth), self.min_growth):
            return
        quiet = now - self._last_burst >= self.quiet_s
        waited = now - self._last_full
        # Past the longest wait, the first moment no read or change is in flight will do
        # (a collection inside one delays its result by the collection's length); only
        # work that never pauses is interrupted, at ten times the longest wait.
        overdue = waited >= self.longest_wait_s and not in_flight
        if quiet or overdue or waited >= self.OVERDUE_FACTOR * self.longest_wait_s:
            self.collect_all()

    def note_activity(self) -> None:
        """Work started or is under way: not quiet yet."""
        self._last_burst = self.clock()

    def watch(self, hub: Working) -> None:
        """Count ``hub``'s reads and changes as work while they run (held weakly)."""
        self._hubs.add(hub)

    def collect_all(self) -> None:
        """One full collection of everything, frozen objects included; the survivors
        are frozen again (the new base the heap's growth is measured from)."""
        began = self.clock()
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        self._base, self._grown = gc.get_freeze_count(), 0
        self._last_full = self.clock()
        self.full_collections += 1
        self.full_seconds += self._last_full - began
        self.longest_full = max(self.longest_full, self._last_full - began)

    def stop(self) -> None:
        self.timer.stop()
        gc.unfreeze()
        if self.was_enabled:
            gc.enable()


GUI_SWITCH_INTERVAL_S = 0.001
_collector: GuiThreadCollector | None = None
_switch_interval: float | None = None


def install_gui_thread_first() -> GuiThreadCollector:
    """Once per application (every window's hub makes sure of it): garbage is collected
    on the GUI thread only, and a worker running Python hands the interpreter lock over
    within a millisecond when the GUI thread asks for it (the default, 5 ms, is felt as
    lag on every callback while a read or an analysis runs beside it; a worker alone
    is not interrupted, so reads take no longer)."""
    global _collector, _switch_interval
    if _collector is None or not shiboken6.isValid(_collector):
        _collector = GuiThreadCollector(QCoreApplication.instance())
        _switch_interval = sys.getswitchinterval()
        sys.setswitchinterval(min(_switch_interval, GUI_SWITCH_INTERVAL_S))
    return _collector


def watch_work(hub: Working) -> None:
    """No full collection while ``hub`` reads or changes (a window's operations)."""
    install_gui_thread_first().watch(hub)


def remove_gui_thread_first() -> None:
    """Back to the interpreter's defaults (tests that end their Qt part)."""
    global _collector, _switch_interval
    if _collector is not None and shiboken6.isValid(_collector):
        _collector.stop()
        _collector.deleteLater()
    if _switch_interval is not None:
        sys.setswitchinterval(_switch_interval)
    _collector, _switch_interval = None, None
    gc.collect()


__all__ = ["GuiThreadCollector", "install_gui_thread_first", "remove_gui_thread_first", "watch_work"]
