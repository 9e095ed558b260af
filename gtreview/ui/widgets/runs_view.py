"""The Runs view: the project's passes (a running one listed with its live counts), the
one in progress with its cancel button, and Resume for a stopped or interrupted pass.

The window re-reads the runs every few seconds while this page is shown, so a pass run
by another process (the CLI) shows as running, and one whose process died as
"stopped (interrupted)".
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gtreview.app.passes import PassEvent
from gtreview.app.results import RunSummary

NO_PASS = "No pass running."


COLUMNS = [
    "Run",
    "Name",
    "Started",
    "Models",
    "Judge",
    "Duration",
    "Source",
    "Status",
    "Answers",
    "Judgements",
    "Pairs",
]
STATUS_COLUMN = COLUMNS.index("Status")
JUDGE_COLUMN = COLUMNS.index("Judge")
DURATION_TIP = "How long the pass ran: the time of each attempt (its start and every resume) summed"
WIDEST_TEXT_COLUMN = 220  # px: a long name or spec is elided (whole in its tooltip), the counts stay on screen
NO_PASSES = "No passes yet. Open a set and choose Run > Run a pass… (Ctrl+Shift+P)."
STARTING = "Starting a pass…"


class RunsTable(QTableWidget):
    """The runs: Enter opens the selected one's results, as a double click does."""

    open_requested = Signal(int)  # run id

    def keyPressEvent(self, event: QKeyEvent) -> None:
        item = self.item(self.currentRow(), 0) if self.currentRow() >= 0 else None
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and item is not None:
            self.open_requested.emit(int(item.text()))
            return
        super().keyPressEvent(event)


def duration_text(seconds: float | None) -> str:
    if seconds is None:
        return ""
    minutes, secs = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min" if hours else f"{minutes} min {secs:02d} s" if minutes else f"{secs} s"


def judge_text(spec: str) -> str:
    """A judge as a column shows it: its file's name, not its whole path nor its options."""
    kind, _, rest = spec.partition(":")
    return rest.split("?", 1)[0].rsplit("/", 1)[-1] if kind in ("llama", "hf") and rest else spec


class RunsView(QWidget):
    cancel_requested = Signal()
    resume_requested = Signal(int)  # run id

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.runs: list[RunSummary] = []
        self.own_pass = False  # a pass of this window is running (its events fill the phase line)
        self.table = RunsTable(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        duration_header = self.table.horizontalHeaderItem(COLUMNS.index("Duration"))
        if duration_header is not None:
            duration_header.setToolTip(DURATION_TIP)
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.itemSelectionChanged.connect(self._update_resume)
        self.phase = QLabel(NO_PASS)
        self.phase.setWordWrap(True)  # a long failure wraps instead of widening the window
        self.phase.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.progress = QProgressBar()
        self.progress.setVisible(False)
        self.cancel_button = QPushButton("Cancel pass")
        self.cancel_button.setToolTip("Stop the pass; everything finished so far is stored (Shift+F5)")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel_requested.emit)
        self.resume_button = QPushButton("Resu&me selected pass")  # Alt+R is the Review menu
        self.resume_button.setToolTip(
            "Run the selected stopped pass again as it was stored: it carries on where it stopped (F5)"
        )
        self.resume_button.setEnabled(False)
        self.resume_button.clicked.connect(self.resume_selected)
        row = QHBoxLayout()
        row.addWidget(self.phase, 1)
        row.addWidget(self.progress, 2)
        row.addWidget(self.cancel_button)
        row.addWidget(self.resume_button)
        self.empty = QLabel(NO_PASSES)
        self.empty.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(self.empty)
        layout.addWidget(self.table)

    def show_runs(self, runs: list[RunSummary]) -> None:
        selected = self.selected_run()
        self.runs = list(runs)
        self.table.blockSignals(True)
        self.table.setRowCount(len(runs))
        for position, run in enumerate(reversed(runs)):
            started = f"{run.started_at.astimezone():%Y-%m-%d %H:%M}" if run.started_at else ""
            values = (
                run.id,
                run.name,
                started,
                ", ".join(run.models),
                judge_text(run.judge),
                duration_text(run.duration_s),
                run.source,
                run.shown_status,
                run.generations,
                run.judgements,
                run.pairs,
            )
            for column, value in enumerate(values):
                item = QTableWidgetItem(str(value))
                if column == JUDGE_COLUMN:
                    item.setToolTip(run.judge)
                elif column == 1 or column == 3:  # a name and models are elided too when long
                    item.setToolTip(str(value))
                if column == STATUS_COLUMN and run.owner and (run.live or run.interrupted):
                    item.setToolTip(f"held by {run.owner}" if run.live else f"was running in {run.owner}")
                self.table.setItem(position, column, item)
            if run.id == selected:
                self.table.selectRow(position)
        self.table.blockSignals(False)
        self.table.resizeColumnsToContents()
        for column in (1, 3, JUDGE_COLUMN):
            self.table.setColumnWidth(column, min(self.table.columnWidth(column), WIDEST_TEXT_COLUMN))
        self.empty.setText(STARTING if self.own_pass and not runs else NO_PASSES)
        self.empty.setVisible(not runs)
        if not self.own_pass:
            self._show_other_processes()
        self._update_resume()

    def _show_other_processes(self) -> None:
        """A pass another process is running (the CLI) shows as running here too."""
        live = [r for r in self.runs if r.live]
        if not live:
            if self.phase.text().startswith("Run ") and " is running in " in self.phase.text():
                self.phase.setText(NO_PASS)
            return
        self.phase.setText(
            " ".join(
                f"Run {r.id} ({r.name}) is running in {r.owner}: {r.generations} answers, "
                f"{r.judgements} judgements, {r.pairs} pairs so far."
                for r in live
            )
        )

    def selected_run(self) -> int | None:
        rows = self.table.selectionModel().selectedRows()
        if not rows:
            return None
        item = self.table.item(rows[0].row(), 0)
        return int(item.text()) if item is not None else None

    def select_run(self, run_id: int) -> None:
        for row in range(self.table.rowCount()):
            item = self.table.item(row, 0)
            if item is not None and item.text() == str(run_id):
                self.table.selectRow(row)

    def _selected_summary(self) -> RunSummary | None:
        run_id = self.selected_run()
        return next((r for r in self.runs if r.id == run_id), None)

    def _update_resume(self) -> None:
        run = self._selected_summary()
        self.resume_button.setEnabled(run is not None and run.resumable and not self.own_pass)

    def resume_selected(self) -> bool:
        """Resume the selected pass; False when none that can be resumed is selected."""
        run = self._selected_summary()
        if run is not None and run.resumable and not self.own_pass:
            self.resume_requested.emit(run.id)
            return True
        return False

    def started(self, name: str) -> None:
        self.own_pass = True
        self.phase.setText(f"{name}: starting…")
        self.empty.setText(STARTING)  # until the run exists, "No passes yet" would be wrong
        self.progress.setVisible(True)
        self.progress.setRange(0, 0)
        self.cancel_button.setEnabled(True)
        self._update_resume()

    def show_event(self, event: PassEvent) -> None:
        self.progress.setRange(0, event.total)  # 0 of 0: busy (a model loading, waiting for another pass)
        self.progress.setValue(event.done)
        if event.waiting_for:
            self.phase.setText(event.describe())
            return
        later = event.still_to_come()  # what the pass still has to do after this phase
        self.phase.setText(f"{event.heading()}: {event.describe()}" + (f" · {later}" if later else ""))

    def finished(self, message: str) -> None:
        self.own_pass = False
        self.phase.setText(message)
        self.progress.setVisible(False)
        self.cancel_button.setEnabled(False)
        self._update_resume()
