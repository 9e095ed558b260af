"""Guards against a Qt binding that would corrupt the interpreter during long sessions."""

import sys

from PySide6.QtWidgets import QApplication


def test_process_events_keeps_reference_counts(qapp: QApplication) -> None:
    # PySide6 6.12.0 released one reference to None on each processEvents() call, so a
    # long review session (or the test suite) eventually aborted the interpreter.
    before = sys.getrefcount(None)
    for _ in range(500):
        qapp.processEvents()
    assert sys.getrefcount(None) >= before - 50
