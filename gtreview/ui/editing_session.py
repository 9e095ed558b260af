"""Edits as undoable commands: each one sets one field and saves a new version.

The undo stack spans every question of the session, so Ctrl+Z walks back through
the expert's edits in order, whichever question they were made on. Commands hold a
shared reference to their question, so a later rename does not orphan them.

Each save is a ``CollectionOp``: it runs in a worker, after any edit still being saved
(changes run one at a time, in order), and reads the question's id when it runs, so an
edit typed right after a rename goes to the renamed question.

The history stops at a review decision: an approval, a retirement or a sign-off
``seal``s it (the stack is cleared, and the action says so), so no undo or redo ever
turns what was approved or signed back into a draft. An undo or redo is saved as a
version like any edit, and its history entry says which (``app.editing.edit_comment``). ``refusals`` counts the edits that
could not be saved, so a review action queued after an edit can tell that it was refused.

Each edit is made on the version the editor showed (``seen``, then each of this session's
own saves): when someone else (a script, another expert on a shared folder) saved a newer
version meanwhile, the edit is refused as a conflict rather than undoing their change
unseen, and ``conflicted`` hands the unsaved value back so the editor can keep it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import shiboken6
from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack
from sqlalchemy import Engine

from gtreview.app import editing
from gtreview.core.jsonpath import Path
from gtreview.ui.ops import CollectionOp, OpResult, failure_message


@dataclass
class QuestionRef:
    set_id: int
    qid: str
    version: int | None = None  # the version the next edit is made on (None: not seen yet)


@dataclass(frozen=True)
class _Saved:
    old_qid: str
    qid: str
    version: int
    withdrawn: str  # the review status the save took away ("" when it kept it)


class EditSession(QObject):
    saved = Signal(int, str, int)  # set id, question id, version
    withdrawn = Signal(str, str)  # question id, the review status an edit took away (it is a draft again)
    failed = Signal(str)  # one-line reason
    conflicted = Signal(int, str, object, object, str)  # set id, question id, path, unsaved value, one line
    renamed = Signal(int, str, str)  # set id, old id, new id

    def __init__(self, engine: Engine, author: Callable[[], str], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.engine = engine
        self.author = author
        self.undo_stack = QUndoStack(self)
        self._refs: dict[tuple[int, str], QuestionRef] = {}
        self.refusals = 0  # edits not saved so far (read by review actions, in their worker)
        self._versions = threading.Lock()  # ref versions move in the save worker and on the GUI thread

    def seal(self) -> bool:
        """A review decision was recorded: the undo history ends here. True if there was one."""
        had = self.undo_stack.count() > 0
        self.undo_stack.clear()
        return had

    def ref(self, set_id: int, qid: str) -> QuestionRef:
        return self._refs.setdefault((set_id, qid), QuestionRef(set_id, qid))

    def seen(self, set_id: int, qid: str, version: int) -> None:
        """The editor shows ``version`` of the question: its next edit is made on it. A
        read that comes back after this session's own newer save does not move it back."""
        ref = self.ref(set_id, qid)
        with self._versions:
            ref.version = max(ref.version or 0, version)

    def version_of(self, set_id: int, qid: str) -> int | None:
        """The newest version of the question this session has shown or saved (None: none)."""
        with self._versions:
            ref = self._refs.get((set_id, qid))
            return ref.version if ref is not None else None

    def edit(self, set_id: int, qid: str, path: Path, old: Any, new: Any, label: str) -> None:
        """Push (and so apply and save) one field edit."""
        self.undo_stack.push(_EditCommand(self, self.ref(set_id, qid), path, old, new, label))

    def apply(
        self,
        ref: QuestionRef,
        path: Path,
        value: Any,
        refused: Callable[[], None] | None = None,
        *,
        kind: editing.EditKind = "edit",
        of_version: Callable[[], int | None] = lambda: None,
        saved_as: Callable[[int], None] | None = None,
    ) -> None:
        """Save ``value`` at ``path`` in the background; ``refused`` runs if it is not saved.
        ``kind`` and ``of_version`` (asked when the save runs, after the saves before it)
        say what the history records; ``saved_as`` hears the version saved, in the worker."""
        engine, author, set_id = self.engine, self.author(), ref.set_id

        def save() -> OpResult[_Saved]:
            qid = ref.qid  # as it is now: earlier edits (a rename) have been applied
            with self._versions:
                base = ref.version
            result = editing.apply_edit(
                engine, set_id, qid, path, value, author=author, base_version=base, kind=kind, of_version=of_version()
            )
            if saved_as is not None:
                saved_as(result.version)
            with self._versions:
                ref.version = max(ref.version or 0, result.version)
            return OpResult(
                _Saved(qid, result.qid, result.version, result.withdrawn.value if result.withdrawn else ""),
                result.changes,
            )

        def done(result: OpResult[_Saved]) -> None:
            saved = result.value
            if saved.qid != saved.old_qid:
                self._refs.pop((set_id, saved.old_qid), None)
                ref.qid = saved.qid
                self._refs[(set_id, saved.qid)] = ref
                self.renamed.emit(set_id, saved.old_qid, saved.qid)
            self.saved.emit(set_id, saved.qid, saved.version)
            if saved.withdrawn:
                self.withdrawn.emit(saved.qid, saved.withdrawn)

        def failed(error: BaseException) -> None:
            self.refusals += 1
            if refused is not None:
                refused()
            if isinstance(error, editing.EditConflictError):
                self.conflicted.emit(set_id, ref.qid, path, value, failure_message(error))
            else:
                self.failed.emit(failure_message(error))

        CollectionOp(self, save).success(done).failure(failed).run_in_background(initiator=self)


class _EditCommand(QUndoCommand):
    def __init__(self, session: EditSession, ref: QuestionRef, path: Path, old: Any, new: Any, label: str) -> None:
        super().__init__(f"{ref.qid}: {label}")
        self.session, self.ref, self.path, self.old, self.new = session, ref, path, old, new
        self.refused = False
        self.pushed = False  # the stack's first redo() is the edit itself; later ones are redos
        # The versions this step saved, written by the save worker and read by the later
        # saves that undo or redo it (saves run one at a time, in order).
        self.edit_version: int | None = None
        self.last_version: int | None = None  # the latest save of the new value (edit or redo)

    def redo(self) -> None:
        if self.refused:
            return
        if not self.pushed:
            self.pushed = True
            self.session.apply(self.ref, self.path, self.new, self._refuse, saved_as=self._edit_saved)
        else:
            self.session.apply(
                self.ref, self.path, self.new, kind="redo", of_version=lambda: self.edit_version, saved_as=self._redone
            )

    def undo(self) -> None:
        if not self.refused:
            self.session.apply(self.ref, self.path, self.old, kind="undo", of_version=lambda: self.last_version)

    def _edit_saved(self, version: int) -> None:
        self.edit_version = self.last_version = version

    def _redone(self, version: int) -> None:
        self.last_version = version

    def _refuse(self) -> None:
        """Nothing was saved: no undo step for it (an obsolete step does nothing and the
        stack drops it when it is reached; on top, which is where it usually is, at once)."""
        self.refused = True
        if not shiboken6.isValid(self):
            return  # the history was sealed while the edit was being saved: no step to drop
        self.setObsolete(True)
        stack = self.session.undo_stack
        if stack.index() > 0 and stack.command(stack.index() - 1) is self:
            stack.undo()
