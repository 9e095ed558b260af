"""Edits as undoable commands: each one sets one field and saves a new version.

The undo stack spans every question of the session, so Ctrl+Z walks back through
the expert's edits in order, whichever question they were made on. Commands hold a
shared reference to their question, so a later rename does not orphan them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack
from sqlalchemy import Engine

from gtreview.core.jsonpath import Path
from gtreview.app import editing


@dataclass
class QuestionRef:
    set_id: int
    qid: str


class EditSession(QObject):
    saved = Signal(int, str, int)  # set id, question id, version
    failed = Signal(str)  # one-line reason
    renamed = Signal(int, str, str)  # set id, old id, new id

    def __init__(self, engine: Engine, author: Callable[[], str], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.engine = engine
        self.author = author
        self.undo_stack = QUndoStack(self)
        self._refs: dict[tuple[int, str], QuestionRef] = {}

    def ref(self, set_id: int, qid: str) -> QuestionRef:
        return self._refs.setdefault((set_id, qid), QuestionRef(set_id, qid))

    def edit(self, set_id: int, qid: str, path: Path, old: Any, new: Any, label: str) -> None:
        """Push (and so apply and save) one field edit."""
        self.undo_stack.push(_EditCommand(self, self.ref(set_id, qid), path, old, new, label))

    def apply(self, ref: QuestionRef, path: Path, value: Any) -> bool:
        try:
            result = editing.apply_edit(self.engine, ref.set_id, ref.qid, path, value, author=self.author())
        except editing.EditError as exc:
            self.failed.emit(str(exc))
            return False
        if path == ("id",) and isinstance(value, str) and value != ref.qid:
            old = ref.qid
            self._refs.pop((ref.set_id, old), None)
            ref.qid = value
            self._refs[(ref.set_id, value)] = ref
            self.renamed.emit(ref.set_id, old, value)
        self.saved.emit(ref.set_id, ref.qid, result.version)
        return True


class _EditCommand(QUndoCommand):
    def __init__(self, session: EditSession, ref: QuestionRef, path: Path, old: Any, new: Any, label: str) -> None:
        super().__init__(f"{ref.qid}: {label}")
        self.session, self.ref, self.path, self.old, self.new = session, ref, path, old, new

    def redo(self) -> None:
        if not self.session.apply(self.ref, self.path, self.new):
            self.setObsolete(True)  # nothing was saved: do not keep an undo step for it

    def undo(self) -> None:
        self.session.apply(self.ref, self.path, self.old)
