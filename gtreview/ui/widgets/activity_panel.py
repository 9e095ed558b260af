"""The status bar's activity panel: one row per running job (what runs, its phase and
n of N, ETA, how long it has run), a bar, and Cancel.

The rows are redrawn when the board changes and once a second while a job runs, so the
running time and the ETA move even while a phase waits minutes for its first result: a
slow job never reads as a hang. Hidden while nothing runs; its height is the status
bar's, so a job starting or ending never moves the layout above it.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QHBoxLayout, QProgressBar, QToolButton, QWidget

from gtreview.core.activity import Activity
from gtreview.ui.activity import ActivityBoard
from gtreview.ui.widgets.notice import StatusLabel

ROW_TEXT_WIDTH = 380  # px a row's text may take at most (elided, the whole of it in the tooltip)
BAR_WIDTH = 90


class JobRow(QWidget):
    def __init__(self, job_id: int, cancel: Callable[[int], None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.job_id = job_id
        self.line = ""
        self.text = StatusLabel()
        self.text.setMaximumWidth(ROW_TEXT_WIDTH)
        self.bar = QProgressBar()
        self.bar.setFixedWidth(BAR_WIDTH)
        self.bar.setTextVisible(False)
        self.cancel_button = QToolButton()
        self.cancel_button.setText("Cancel")
        self.cancel_button.clicked.connect(lambda: cancel(self.job_id))
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.text, 1)
        layout.addWidget(self.bar)
        layout.addWidget(self.cancel_button)

    def show_job(self, job: Activity, now: float) -> None:
        self.line = job.line(now)
        self.text.setText(f"{job.status(now)} — {job.title}")  # the counter first: the title may be elided
        self.text.setToolTip(self.line)
        fraction = job.fraction
        if fraction is None:
            self.bar.setRange(0, 0)  # busy: nothing counted yet
        else:
            self.bar.setRange(0, 1000)
            self.bar.setValue(int(fraction * 1000))
        self.cancel_button.setEnabled(job.cancellable and not job.cancelling)
        self.cancel_button.setToolTip(
            f"Cancel: {job.title}" if job.cancellable else f"{job.title} cannot be cancelled; it ends by itself"
        )


class ActivityPanel(QWidget):
    def __init__(self, board: ActivityBoard, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.board = board
        self.rows: dict[int, JobRow] = {}
        self._layout = QHBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self.ticker = QTimer(self)
        self.ticker.setInterval(1000)
        self.ticker.timeout.connect(self.refresh)
        board.changed.connect(self.refresh)
        self.setVisible(False)

    def refresh(self) -> None:
        jobs = {job.job_id: job for job in self.board.jobs()}
        for job_id in [j for j in self.rows if j not in jobs]:
            row = self.rows.pop(job_id)
            self._layout.removeWidget(row)
            row.deleteLater()
        now = self.board.clock()
        for job_id, job in jobs.items():
            if job_id not in self.rows:
                self.rows[job_id] = JobRow(job_id, self.board.cancel, self)
                self._layout.addWidget(self.rows[job_id])
            self.rows[job_id].show_job(job, now)
        self.setVisible(bool(jobs))
        if jobs and not self.ticker.isActive():
            self.ticker.start()
        elif not jobs:
            self.ticker.stop()

    def lines(self) -> list[str]:
        """Each job's whole line, its title first (the row shows its status first; the tooltip all)."""
        return [row.line for row in self.rows.values()]


__all__ = ["ActivityPanel", "JobRow"]
