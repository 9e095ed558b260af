"""Drafting a set from the app: a dialog, a worker with progress and cancel, and the
source-authority ranking the drafts are written with."""

from __future__ import annotations

import getpass
import threading
import time
from datetime import UTC, datetime

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLineEdit,
    QListWidget,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from gtreview.app.backends import OpenBackend, open_model
from gtreview.app.drafting import (
    AuthorityContract,
    DraftingCancelled,
    DraftResult,
    draft_new_set,
    project_contract,
    set_contract_order,
)
from gtreview.app.projects import Project
from gtreview.core.activity import JobKind, JobProgress, short_spec
from gtreview.core.redaction import redact
from gtreview.core.rubric import AccessMode
from gtreview.core.wording import plural
from gtreview.ui.activity import ActivityBoard
from gtreview.ui.ops import (
    BackgroundJob,
    CollectionOp,
    OpResult,
    QueryOp,
    failure_kind,
    failure_message,
    notify,
)


class DraftDialog(QDialog):
    def __init__(self, judge_hint: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Draft a set from the corpus")
        self.model = QLineEdit(judge_hint)
        self.model.setPlaceholderText("anthropic:claude-... or llama:/models/big.gguf or openai:URL#MODEL")
        self.questions = QSpinBox(minimum=1, maximum=200, value=10)
        self.name = QLineEdit(f"Draft set {datetime.now(UTC).date().isoformat()}")
        self.mode = QComboBox()
        self.mode.addItems([m.value for m in AccessMode])
        form = QFormLayout(self)
        form.addRow("Drafting &model", self.model)
        form.addRow("&Questions", self.questions)
        form.addRow("Set &name", self.name)
        form.addRow("Candidate &access mode", self.mode)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)


class AuthorityDialog(QDialog):
    """Drag the source classes into order of authority (highest first)."""

    def __init__(self, labels: list[tuple[str, str]], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Source authority (highest first)")
        self.list = QListWidget()
        self.list.setDragDropMode(QListWidget.DragDropMode.InternalMove)
        for key, label in labels:
            self.list.addItem(label)
            self.list.item(self.list.count() - 1).setData(256, key)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.list)
        layout.addWidget(buttons)

    def keys(self) -> list[str]:
        return [str(self.list.item(row).data(256)) for row in range(self.list.count())]


class DraftController(QObject):
    progress = Signal(str, int, int)
    finished = Signal(str, int)  # message, new set id (0 when nothing was saved)

    def __init__(self, project: Project, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.project = project
        self.open_backend: OpenBackend = open_model
        self._cancel: threading.Event | None = None

    @property
    def running(self) -> bool:
        return self._cancel is not None

    def start(self, spec: str, n_questions: int, name: str, access_mode: str) -> bool:
        if self.running:
            return False
        engine, opener, cancel = self.project.engine, self.open_backend, threading.Event()
        ticket = ActivityBoard.of(self).begin(
            JobKind.DRAFTING, f'Drafting "{name}" with {short_spec(redact(spec))}', cancel
        )
        began: dict[str, float] = {}

        def progress(stage: str, done: int, total: int) -> None:
            self.progress.emit(stage, done, total)
            elapsed = time.monotonic() - began.setdefault(stage, time.monotonic())
            ticket.report(JobProgress(phase=stage, done=done, total=total, elapsed=elapsed))

        def work() -> OpResult[tuple[DraftResult, int]]:
            outcome = draft_new_set(
                engine,
                spec,
                n_questions=n_questions,
                actor=_user(),
                name=name,
                access_mode=access_mode,
                progress=progress,
                cancel=cancel,
                open_backend=opener,
            )
            return OpResult((outcome.result, outcome.set_id or 0), outcome.changes)

        def done(outcome: OpResult[tuple[DraftResult, int]]) -> None:
            self._cancel = None
            result, set_id = outcome.value
            if result.cancelled:
                notify(self, "Drafting cancelled; nothing was saved.", "warning")
                self.finished.emit("Drafting cancelled; nothing was saved.", 0)
                return
            flagged = sum(1 for d in result.drafts if d.flagged)
            said = (
                f"Drafted {plural(len(result.drafts), 'question')} ({flagged} flagged, {len(result.failures)} failed) "
                + (f"as set {set_id}, all in draft for review." if set_id else "; nothing to save.")
            )
            notify(self, said, "success" if set_id and not result.failures else "warning")
            self.finished.emit(said, set_id)

        def failed(error: BaseException) -> None:
            self._cancel = None
            if isinstance(error, DraftingCancelled):
                said = "Drafting cancelled; nothing was saved."
            else:
                said = f"Drafting failed: {failure_message(error)}"
            notify(self, said, failure_kind(error))
            self.finished.emit(said, 0)

        self._cancel = cancel
        BackgroundJob(self, op=work, success=done, ticket=ticket).failure(failed).run_in_background()
        return True

    def cancel(self) -> None:
        if self._cancel is not None:
            self._cancel.set()

    def edit_authority(self, parent: QWidget | None = None) -> None:
        """Read the ranking in a worker, let the expert reorder it, save it in another."""
        engine = self.project.engine

        def ask(contract: AuthorityContract) -> None:
            dialog = AuthorityDialog([(c.key, c.label) for c in contract.classes], parent)
            dialog.accepted.connect(lambda: self._save_authority(dialog.keys()))
            dialog.open()

        QueryOp(self, op=lambda: project_contract(engine), success=ask).run_in_background()

    def _save_authority(self, keys: list[str]) -> None:
        engine = self.project.engine

        def save() -> OpResult[AuthorityContract]:
            return set_contract_order(engine, keys)

        CollectionOp(self, save).success(
            lambda _changes: notify(self, "Source authority saved; new drafts use it.", "success")
        ).run_in_background(initiator=self)


def _user() -> str:
    try:
        return getpass.getuser()
    except Exception:  # noqa: BLE001 - no user name on some systems
        return "gtreview"
