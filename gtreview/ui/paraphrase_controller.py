"""Paraphrases from the question page: New paraphrase… (a dialog that starts from the
original's wording), Update paraphrase from its original, and Go to the original.

Each slot gathers what the action needs and hands one ``app.paraphrases`` call to an
op; the rules (what can be a paraphrase, what is refused) live there. A new paraphrase
is a new row of the set: the set is read again with it selected.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QWidget

from gtreview.app import paraphrases
from gtreview.app.projects import Project
from gtreview.core.paraphrases import same_wording
from gtreview.ui.dialogs.comment import CommentDialog
from gtreview.ui.ops import CollectionOp, QueryOp, failure_kind, failure_message, notify
from gtreview.ui.question_controller import QuestionController

NOTHING_SHOWN = "No question is on screen: show the question page and select a question the filters show."


class ParaphraseDialog(CommentDialog):
    """The new paraphrase's wording, starting from the original's; Ctrl+Return adds it,
    Escape cancels. OK waits for a wording that differs from the original's."""

    def __init__(self, qid: str, wording: str, parent: QWidget | None = None) -> None:
        self.original = wording  # read by _enable_ok, which the base's constructor calls
        super().__init__(
            f"New paraphrase of {qid}",
            f"Reword {qid}: ask for exactly the same, in other words and another sentence structure. "
            f"The paraphrase gets {qid}'s rubric and is a draft to review like any question.",
            parent,
            hint="Ctrl+Return to add the paraphrase, Escape to cancel",
        )
        self.text.setPlainText(wording)
        self.text.selectAll()  # typing replaces the original; the arrows keep it to edit
        self.resize(560, 280)

    def wording(self) -> str:
        return self.comment()

    def _enable_ok(self) -> None:
        self.ok.setEnabled(not same_wording(self.wording(), self.original) and bool(self.wording().strip()))


class ParaphraseController(QObject):
    def __init__(
        self,
        project: Project,
        questions: QuestionController,
        current: Callable[[], tuple[int | None, str | None]],
        reviewer: Callable[[], str],
        parent: QWidget,
    ) -> None:
        super().__init__(parent)
        self.project, self.questions, self.current, self.reviewer = project, questions, current, reviewer
        self.window = parent
        self.dialog: ParaphraseDialog | None = None  # the one open, for the keyboard to reach

    def _target(self) -> tuple[int, str] | None:
        set_id, qid = self.current()
        if set_id is None or qid is None:
            notify(self, NOTHING_SHOWN, "warning")
            return None
        return set_id, qid

    def _read(self, then: Callable[[int, paraphrases.ParaphraseSource], None]) -> None:
        target = self._target()
        if target is None:
            return
        engine, (set_id, qid) = self.project.engine, target
        QueryOp(
            self, op=lambda: paraphrases.paraphrase_source(engine, set_id, qid), success=lambda s: then(set_id, s)
        ).failure(lambda error: notify(self, failure_message(error), failure_kind(error))).run_in_background()

    # -- New paraphrase… -------------------------------------------------------------
    def new_paraphrase(self) -> None:
        self.questions.w.editor.commit_pending()  # the dialog starts from what is saved
        self._read(self._ask)

    def _ask(self, set_id: int, source: paraphrases.ParaphraseSource) -> None:
        if source.paraphrase_of is not None:
            notify(
                self,
                f"{source.qid} is itself a paraphrase of {source.paraphrase_of}; paraphrase the original.",
                "warning",
            )
            return
        dialog = ParaphraseDialog(source.qid, source.wording, self.window)
        dialog.accepted.connect(lambda: self._add(set_id, source.qid, dialog.wording()))
        dialog.finished.connect(lambda _result: setattr(self, "dialog", None))
        self.dialog = dialog
        dialog.open()

    def _add(self, set_id: int, qid: str, wording: str) -> None:
        engine, author = self.project.engine, self.reviewer()

        def add() -> paraphrases.ParaphraseAdded:
            return paraphrases.add_paraphrase(engine, set_id, qid, wording, author=author)

        def done(added: paraphrases.ParaphraseAdded) -> None:
            self.questions.expect(set_id, added.qid)  # the set is read again with it selected
            notify(self, f"Added {added.qid}, a draft paraphrase of {qid} with its rubric.", "success")

        CollectionOp(self, add).success(done).failure(
            lambda error: notify(self, f"No paraphrase of {qid}: {failure_message(error)}", failure_kind(error))
        ).run_in_background(initiator=self)

    # -- Update paraphrase from its original -------------------------------------------
    def update_from_original(self) -> None:
        target = self._target()
        if target is None:
            return
        self.questions.w.editor.commit_pending()  # saved before the update, which builds on it
        engine, author, (set_id, qid) = self.project.engine, self.reviewer(), target

        def update() -> paraphrases.ParaphraseUpdate:
            return paraphrases.update_from_original(engine, set_id, qid, author=author)

        def done(saved: paraphrases.ParaphraseUpdate) -> None:
            if not saved.changed:
                notify(self, f"{qid} already has {saved.original}'s rubric.", "info")
                return
            withdrawn = (
                f"; its {saved.withdrawn.value.replace('_', ' ')} status was withdrawn" if saved.withdrawn else ""
            )
            notify(self, f"{qid} has {saved.original}'s rubric again (version {saved.version}){withdrawn}.", "success")

        CollectionOp(self, update).success(done).failure(
            lambda error: notify(self, f"Cannot update {qid}: {failure_message(error)}", failure_kind(error))
        ).run_in_background(initiator=self)

    # -- Go to the original -------------------------------------------------------------
    def go_to_original(self) -> None:
        target = self._target()
        if target is None:
            return
        row = next((r for r in self.questions.w.question_list.model.rows() if r.qid == target[1]), None)
        if row is None or not row.paraphrase_of:
            notify(self, f"{target[1]} is not a paraphrase; it has no original to go to.", "info")
            return
        self.questions.go_to(row.paraphrase_of)
