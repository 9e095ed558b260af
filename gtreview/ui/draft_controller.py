"""Drafting a set from the app: a dialog, a worker with progress and cancel, and the
source-authority ranking the drafts are written with."""

from __future__ import annotations

import getpass
import threading
from collections.abc import Callable
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

from gtreview.authoring.pipeline import DraftingCancelled, DraftResult, NothingToSaveError, save_drafts
from gtreview.core.rubric import AccessMode
from gtreview.inference.backend import CompletionBackend
from gtreview.inference.factory import open_backend
from gtreview.app.drafting import draft_from_project, project_contract, set_contract_order
from gtreview.store.project import Project
from gtreview.ui.workers import Worker
from gtreview.ui.workers import start as start_worker


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
        self.open_backend: Callable[[str], CompletionBackend] = open_backend
        self._cancel: threading.Event | None = None
        self._worker: Worker | None = None

    @property
    def running(self) -> bool:
        return self._cancel is not None

    def start(self, spec: str, n_questions: int, name: str, access_mode: str) -> bool:
        if self.running:
            return False
        engine, opener, cancel = self.project.engine, self.open_backend, threading.Event()

        def work() -> tuple[DraftResult, int]:
            backend = opener(spec)
            try:
                result = draft_from_project(
                    engine,
                    backend,
                    n_questions=n_questions,
                    access_mode=access_mode,
                    progress=self.progress.emit,
                    cancel=cancel,
                )
            finally:
                backend.close()
            try:
                return result, save_drafts(engine, result, set_name=name, actor=_user())
            except NothingToSaveError:
                return result, 0

        def done(outcome: tuple[DraftResult, int]) -> None:
            self._cancel = None
            result, set_id = outcome
            flagged = sum(1 for d in result.drafts if d.flagged)
            self.finished.emit(
                f"Drafted {len(result.drafts)} question(s) ({flagged} flagged, {len(result.failures)} failed) "
                + (f"as set {set_id}, all in draft for review." if set_id else "; nothing to save."),
                set_id,
            )

        def failed(reason: str) -> None:
            self._cancel = None
            cancelled = DraftingCancelled.__name__ in reason
            self.finished.emit(
                "Drafting cancelled; nothing was saved." if cancelled else f"Drafting failed: {reason}", 0
            )

        self._cancel = cancel
        self._worker = start_worker(work, done, failed)
        return True

    def cancel(self) -> None:
        if self._cancel is not None:
            self._cancel.set()

    def edit_authority(self, parent: QWidget | None = None) -> bool:
        contract = project_contract(self.project.engine)
        dialog = AuthorityDialog([(c.key, c.label) for c in contract.classes], parent)
        if dialog.exec():
            set_contract_order(self.project.engine, dialog.keys())
            return True
        return False


def _user() -> str:
    try:
        return getpass.getuser()
    except Exception:  # noqa: BLE001 - no user name on some systems
        return "gtreview"
