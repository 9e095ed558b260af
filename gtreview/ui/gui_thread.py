"""Keeping the GUI thread first while workers run Python beside it."""

from __future__ import annotations

import gc
import sys

import shiboken6
from PySide6.QtCore import QCoreApplication, QObject, QTimer


class GuiThreadCollector(QObject):
    """Collects cyclic garbage on the GUI thread only (as Anki does).

    Python's automatic collector runs in whichever thread happens to allocate, and a
    worker that collects a cycle holding a Qt object destroys that object off its
    thread: a deadlock or a crash. With workers reading thousands of records, that is
    not rare. So automatic collection is off while the app runs, and a timer on the GUI
    thread collects each generation when its count passes the usual threshold.
    """

    def __init__(self, parent: QObject | None, interval_ms: int = 500) -> None:
        super().__init__(parent)
        self.thresholds = gc.get_threshold()
        self.was_enabled = gc.isenabled()
        gc.disable()
        self.timer = QTimer(self, interval=interval_ms)
        self.timer.timeout.connect(self.collect)
        self.timer.start()

    def collect(self) -> None:
        counts = gc.get_count()
        for generation in (2, 1, 0):
            if counts[generation] > self.thresholds[generation]:
                gc.collect(generation)
                return

    def stop(self) -> None:
        self.timer.stop()
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


__all__ = ["GuiThreadCollector", "install_gui_thread_first", "remove_gui_thread_first"]
