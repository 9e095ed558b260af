"""Review actions (approve, request changes, retire, sign off) with their dialogs.

Each slot asks for what the action needs (a comment, a confirmation), calls one
workflow service, and reports the outcome; the rules live in the service.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QInputDialog, QWidget

from gtreview.inference.backend import CompletionBackend
from gtreview.judging.calibration import QuestionCalibration
from gtreview.app import workflow
from gtreview.app.question_calibration import calibrate_questions
from gtreview.app.workflow import WorkflowError
from gtreview.store import sets_repo
from gtreview.store.project import Project
from gtreview.store.settings_repo import JUDGE_SPEC, get_setting, set_setting
from gtreview.ui.workers import Worker
from gtreview.ui.workers import start as start_worker

CommentAsker = Callable[[str, str], "str | None"]


def ask_comment_dialog(parent: QWidget) -> CommentAsker:
    def ask(title: str, prompt: str) -> str | None:
        text, ok = QInputDialog.getMultiLineText(parent, title, prompt)
        return text if ok else None

    return ask


class ReviewController(QObject):
    changed = Signal(int, str)  # set id, question id (empty for the whole set)
    message = Signal(str)
    calibrated = Signal(int, list)  # set id, question ids

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
        self.open_backend: Callable[[str], CompletionBackend] = _open_backend
        self.busy = False
        self._worker: Worker | None = None

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

    # -- calibration -------------------------------------------------------------
    def judge_spec(self) -> str | None:
        spec = get_setting(self.project.engine, JUDGE_SPEC)
        if isinstance(spec, str) and spec.strip():
            return spec
        answer = self.ask_comment(
            "Judge model", "Judge model spec (llama:PATH.gguf, openai:URL#MODEL, anthropic:MODEL):"
        )
        if answer is None or not answer.strip():
            return None
        set_setting(self.project.engine, JUDGE_SPEC, answer.strip())
        return answer.strip()

    def calibrate_question(self) -> None:
        set_id, qid = self.current()
        if set_id is not None and qid is not None:
            self._calibrate(set_id, [qid])

    def calibrate_set(self) -> None:
        set_id, _ = self.current()
        if set_id is not None:
            active = [
                s.qid
                for s in sets_repo.list_questions(self.project.engine, set_id)
                if s.review_status in workflow.ACTIVE
            ]
            self._calibrate(set_id, active)

    def _calibrate(self, set_id: int, qids: list[str]) -> None:
        if self.busy:
            self.message.emit("A calibration is already running.")
            return
        spec = self.judge_spec()
        if spec is None:
            return
        engine, opener = self.project.engine, self.open_backend

        def work() -> list[QuestionCalibration]:
            backend = opener(spec)
            try:
                return calibrate_questions(engine, backend, set_id, qids)
            finally:
                backend.close()

        def done(results: list[QuestionCalibration]) -> None:
            self.busy = False
            ok = sum(1 for r in results if r.reproduced)
            self.message.emit(f"Calibration with {spec}: {ok} of {len(results)} question(s) reproduced.")
            self.calibrated.emit(set_id, [r.question_id for r in results])

        def failed(reason: str) -> None:
            self.busy = False
            self.message.emit(f"Calibration failed: {reason}")

        self.busy = True
        self.message.emit(f"Calibrating {len(qids)} question(s) with {spec}…")
        self._worker = start_worker(work, done, failed)


def _open_backend(spec: str) -> CompletionBackend:
    from gtreview.inference.factory import open_backend

    return open_backend(spec)
