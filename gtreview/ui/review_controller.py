"""Review actions (approve, request changes, retire, sign off) with their dialogs.

Each slot asks for what the action needs (a comment, a confirmation), calls one
workflow service, and reports the outcome; the rules live in the service.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QInputDialog, QWidget

from gtreview.services import workflow
from gtreview.services.workflow import WorkflowError
from gtreview.store.project import Project

CommentAsker = Callable[[str, str], "str | None"]


def ask_comment_dialog(parent: QWidget) -> CommentAsker:
    def ask(title: str, prompt: str) -> str | None:
        text, ok = QInputDialog.getMultiLineText(parent, title, prompt)
        return text if ok else None

    return ask


class ReviewController(QObject):
    changed = Signal(int, str)  # set id, question id (empty for the whole set)
    message = Signal(str)

    def __init__(
        self,
        project: Project,
        current: Callable[[], tuple[int | None, str | None]],
        reviewer: Callable[[], str],
        ask_comment: CommentAsker,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.project = project
        self.current = current
        self.reviewer = reviewer
        self.ask_comment = ask_comment

    def _run(self, verb: str, action: Callable[[int, str], None]) -> None:
        set_id, qid = self.current()
        if set_id is None or qid is None:
            self.message.emit("Select a question first.")
            return
        try:
            action(set_id, qid)
        except WorkflowError as exc:
            self.message.emit(f"Cannot {verb} {qid}: {exc}")
            return
        self.message.emit(f"{qid}: {verb} recorded by {self.reviewer()}.")
        self.changed.emit(set_id, qid)

    def start_review(self) -> None:
        self._run(
            "start review of", lambda s, q: workflow.start_review(self.project.engine, s, q, reviewer=self.reviewer())
        )

    def approve(self) -> None:
        self._run("approve", lambda s, q: workflow.approve(self.project.engine, s, q, reviewer=self.reviewer()))

    def reopen(self) -> None:
        self._run("reopen", lambda s, q: workflow.reopen(self.project.engine, s, q, reviewer=self.reviewer()))

    def request_changes(self) -> None:
        self._with_comment("request changes on", "What should change?", workflow.request_changes)

    def retire(self) -> None:
        self._with_comment("retire", "Why retire this question? Retired questions stay retired.", workflow.retire)

    def _with_comment(self, verb: str, prompt: str, action: Callable[..., None]) -> None:
        _, qid = self.current()
        comment = self.ask_comment(f"{verb.capitalize()} {qid or ''}".strip(), prompt)
        if comment is None:
            return
        self._run(verb, lambda s, q: action(self.project.engine, s, q, reviewer=self.reviewer(), comment=comment))

    def sign_off(self) -> None:
        set_id, _ = self.current()
        if set_id is None:
            return
        comment = self.ask_comment("Sign off the set", "Sign-off note (the set is frozen as it is now):")
        if comment is None:
            return
        try:
            signed = workflow.sign_off(self.project.engine, set_id, reviewer=self.reviewer(), comment=comment)
        except WorkflowError as exc:
            self.message.emit(f"Cannot sign off: {exc}")
            return
        self.message.emit(
            f"Signed off as #{signed.number}: {signed.question_count} questions, hash {signed.content_hash[:12]}…"
        )
        self.changed.emit(set_id, "")
