"""Help > Check local inference: ``gtreview doctor`` in a window.

The check loads models (seconds to minutes), so it runs as a background job; each step
shows as it starts, Cancel stops it, and the report appears in place when it is done,
selectable for a bug report. The dialog only shows; the check is the app's.
"""

from __future__ import annotations

import threading

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPlainTextEdit, QVBoxLayout, QWidget
from sqlalchemy import Engine

from gtreview.app.doctor import DoctorReport, check_local_inference
from gtreview.core.wording import plural
from gtreview.ui.ops import BackgroundJob, failure_message


class _Progress(QObject):
    step = Signal(str)  # emitted from the job's thread, shown on the GUI thread


class DoctorDialog(QDialog):
    def __init__(self, engine: Engine | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Check local inference")
        self.resize(760, 420)
        self.status = QLabel("Starting…")
        self.status.setWordWrap(True)
        self.report_view = QPlainTextEdit()
        self.report_view.setReadOnly(True)
        self.report_view.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.report_view.setPlaceholderText(
            "Reads the llama.cpp build, probes the CPU, then loads a tiny check model, the project's judge and "
            "its last pass's models, each in a worker process, and asks each for a few tokens."
        )
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.buttons.rejected.connect(self._cancel_or_close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.status)
        layout.addWidget(self.report_view, 1)
        layout.addWidget(self.buttons)
        self.report: DoctorReport | None = None
        self._cancel = threading.Event()
        self._running = False
        self._progress = _Progress(self)
        self._progress.step.connect(lambda text: self.status.setText(f"Checking: {text}…"))
        self._engine = engine

    def start(self) -> None:
        self._running = True
        engine, progress, cancel = self._engine, self._progress, self._cancel
        BackgroundJob(
            self,
            op=lambda: check_local_inference(engine, on_progress=progress.step.emit, cancel=cancel),
            success=self._show,
        ).failure(self._failed).run_in_background()

    def _show(self, report: DoctorReport) -> None:
        self._done()
        self.report = report
        self.report_view.setPlainText("\n".join(report.lines()))
        first = report.problems[0] if report.problems else ""
        self.status.setText(
            "Local inference works here." if report.ok else f"{plural(len(report.problems), 'problem')}: {first}"
        )

    def _failed(self, error: BaseException) -> None:
        self._done()
        self.status.setText(f"The check stopped: {failure_message(error)}")

    def _done(self) -> None:
        self._running = False
        self.buttons.setStandardButtons(QDialogButtonBox.StandardButton.Close)
        self.buttons.button(QDialogButtonBox.StandardButton.Close).setFocus()

    def _cancel_or_close(self) -> None:
        if self._running:
            self._cancel.set()
            self.status.setText("Cancelling after the current step…")
        else:
            self.reject()

    def closeEvent(self, event: object) -> None:
        self._cancel.set()
        super().closeEvent(event)  # type: ignore[arg-type]
