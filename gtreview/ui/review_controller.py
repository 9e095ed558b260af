"""Review actions (approve, request changes, retire, sign off) with their dialogs.

Each slot asks for what the action needs (a comment, a confirmation) and hands one
workflow call to a ``CollectionOp``; the rules live in the workflow, and the window
refreshes what the op says changed.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QInputDialog, QWidget
from sqlalchemy import Engine

from gtreview.app import workflow
from gtreview.app.project_settings import project_judge, set_project_judge
from gtreview.app.question_calibration import calibrate_set
from gtreview.inference.backend import CompletionBackend
from gtreview.inference.factory import open_backend
from gtreview.judging.calibration import QuestionCalibration
from gtreview.store.project import Project
from gtreview.ui.ops import BackgroundJob, CollectionOp, OpChanges, OpResult, QueryOp, failure_message

CommentAsker = Callable[[str, str], "str | None"]


def ask_comment_dialog(parent: QWidget) -> CommentAsker:
    def ask(title: str, prompt: str) -> str | None:
        text, ok = QInputDialog.getMultiLineText(parent, title, prompt)
        return text if ok else None

    return ask


class ReviewController(QObject):
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
        self.open_backend: Callable[[str], CompletionBackend] = open_backend
        self.busy = False

    def _run(self, verb: str, action: Callable[[int, str], None]) -> None:
        set_id, qid = self.current()
        if set_id is None or qid is None:
            self.message.emit("Select a question first.")
            return
        reviewer = self.reviewer()

        def act() -> OpChanges:
            action(set_id, qid)
            return OpChanges.of_questions(set_id, qid)

        CollectionOp(self, act).success(
            lambda _changes: self.message.emit(f"{qid}: {verb} recorded by {reviewer}.")
        ).failure(lambda error: self.message.emit(f"Cannot {verb} {qid}: {failure_message(error)}")).run_in_background(
            initiator=self
        )

    def start_review(self) -> None:
        engine, reviewer = self.project.engine, self.reviewer()
        self._run("start review of", lambda s, q: workflow.start_review(engine, s, q, reviewer=reviewer))

    def approve(self) -> None:
        engine, reviewer = self.project.engine, self.reviewer()
        self._run("approve", lambda s, q: workflow.approve(engine, s, q, reviewer=reviewer))

    def reopen(self) -> None:
        engine, reviewer = self.project.engine, self.reviewer()
        self._run("reopen", lambda s, q: workflow.reopen(engine, s, q, reviewer=reviewer))

    def request_changes(self) -> None:
        self._with_comment("request changes on", "What should change?", workflow.request_changes)

    def retire(self) -> None:
        self._with_comment("retire", "Why retire this question? Retired questions stay retired.", workflow.retire)

    def _with_comment(self, verb: str, prompt: str, action: Callable[..., None]) -> None:
        _, qid = self.current()
        comment = self.ask_comment(f"{verb.capitalize()} {qid or ''}".strip(), prompt)
        if comment is None:
            return
        engine, reviewer = self.project.engine, self.reviewer()
        self._run(verb, lambda s, q: action(engine, s, q, reviewer=reviewer, comment=comment))

    def sign_off(self) -> None:
        set_id, _ = self.current()
        if set_id is None:
            return
        comment = self.ask_comment("Sign off the set", "Sign-off note (the set is frozen as it is now):")
        if comment is None:
            return
        engine, reviewer = self.project.engine, self.reviewer()

        def sign() -> OpResult[workflow.SignoffInfo]:
            signed = workflow.sign_off(engine, set_id, reviewer=reviewer, comment=comment)
            return OpResult(signed, OpChanges(sets=frozenset({set_id})))

        def done(result: OpResult[workflow.SignoffInfo]) -> None:
            signed = result.value
            self.message.emit(
                f"Signed off as #{signed.number}: {signed.question_count} questions, hash {signed.content_hash[:12]}…"
            )

        CollectionOp(self, sign).success(done).failure(
            lambda error: self.message.emit(f"Cannot sign off: {failure_message(error)}")
        ).run_in_background(initiator=self)

    # -- calibration -------------------------------------------------------------
    def calibrate_question(self) -> None:
        set_id, qid = self.current()
        if set_id is not None and qid is not None:
            self._calibrate(set_id, [qid])

    def calibrate_set(self) -> None:
        set_id, _ = self.current()
        if set_id is not None:
            self._calibrate(set_id, None)  # the active questions, read in the job

    def _calibrate(self, set_id: int, qids: list[str] | None) -> None:
        if self.busy:
            self.message.emit("A calibration is already running.")
            return
        engine = self.project.engine
        self.busy = True
        QueryOp(
            self, op=lambda: project_judge(engine), success=lambda spec: self._with_judge(spec, set_id, qids)
        ).failure(self._calibration_failed).run_in_background()

    def _with_judge(self, spec: object, set_id: int, qids: list[str] | None) -> None:
        chosen = spec.strip() if isinstance(spec, str) else ""
        if not chosen:
            answer = self.ask_comment(
                "Judge model", "Judge model spec (llama:PATH.gguf, openai:URL#MODEL, anthropic:MODEL):"
            )
            if answer is None or not answer.strip():
                self.busy = False
                return
            chosen = answer.strip()
            engine = self.project.engine
            CollectionOp(self, lambda: _remember_judge(engine, chosen)).run_in_background(initiator=self)
        self._start_calibration(chosen, set_id, qids)

    def _start_calibration(self, spec: str, set_id: int, qids: list[str] | None) -> None:
        engine, opener = self.project.engine, self.open_backend

        def work() -> OpResult[list[QuestionCalibration]]:
            results = calibrate_set(engine, set_id, qids, judge=spec, open_backend=opener)
            return OpResult(results, OpChanges.of_questions(set_id, *(r.question_id for r in results)))

        def done(outcome: OpResult[list[QuestionCalibration]]) -> None:
            self.busy = False
            results = outcome.value
            ok = sum(1 for r in results if r.reproduced)
            self.message.emit(f"Calibration with {spec}: {ok} of {len(results)} question(s) reproduced.")
            self.calibrated.emit(set_id, [r.question_id for r in results])

        count = "the active" if qids is None else str(len(qids))
        self.message.emit(f"Calibrating {count} question(s) with {spec}…")
        BackgroundJob(self, op=work, success=done).failure(self._calibration_failed).run_in_background()

    def _calibration_failed(self, error: BaseException) -> None:
        self.busy = False
        self.message.emit(f"Calibration failed: {failure_message(error)}")


def _remember_judge(engine: Engine, spec: str) -> OpChanges:
    return OpChanges(settings=frozenset({set_project_judge(engine, spec)}))
