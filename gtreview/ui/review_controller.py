"""Review actions (approve, request changes, retire, sign off) with their dialogs.

Each slot asks for what the action needs (a comment, a confirmation) and hands one
workflow call to a ``CollectionOp``; the rules live in ``core.review_flow`` and the
workflow applies them, and the window refreshes the question the returned
``workflow.ReviewChange`` names.

A review action acts only on the question on screen (``current`` says which: none when
the question page is not shown or the filters hide the selected row; the actions are
disabled then). It first commits the field being typed in, so what is approved is what
the expert sees, and it is refused when that edit (or any queued before it) could not be
saved. An approval, a retirement and a sign-off end the undo history, and say so.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from PySide6.QtCore import QObject, Signal, SignalInstance
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QWidget
from sqlalchemy import Engine

from gtreview.app import workflow
from gtreview.app.backends import OpenBackend, open_model
from gtreview.app.project_settings import project_judge, set_project_judge
from gtreview.app.projects import Project
from gtreview.app.question_calibration import CalibratedQuestions, calibrate_set
from gtreview.core.activity import JobKind, short_spec
from gtreview.core.errors import Cancelled
from gtreview.core.redaction import redact
from gtreview.core.wording import plural
from gtreview.ui.activity import ActivityBoard
from gtreview.ui.dialogs.comment import ask_comment
from gtreview.ui.dialogs.judge_spec import ask_judge_spec
from gtreview.ui.editing_session import EditSession
from gtreview.ui.flow import uncalibrated_note
from gtreview.ui.ops import (
    BackgroundJob,
    CollectionOp,
    OpChanges,
    OpHub,
    OpResult,
    QueryOp,
    changes_of,
    failure_kind,
    failure_message,
    notify,
)
from gtreview.ui.project_index import SharedIndex

CommentAsker = Callable[[str, str], "str | None"]

#: Actions on the question shown, and on its set: enabled only while there is one on screen.
# What the notice says an action did ("Cannot <verb> A1" when it is refused).
DONE = {
    "start review of": "review started",
    "approve": "approved",
    "reopen": "reopened as a draft",
    "request changes on": "changes requested",
    "retire": "retired",
}
QUESTION_ACTIONS = (
    "start_review",
    "approve",
    "request_changes",
    "reopen",
    "retire",
    "calibrate",
    "new_paraphrase",
    "update_paraphrase",
    "go_original",
)
SET_ACTIONS = ("sign_off", "calibrate_set")
CALIBRATE_ACTIONS = ("calibrate", "calibrate_set")
NOTHING_SHOWN = "No question is on screen: show the question page and select a question the filters show."
SEALED = " Undo history cleared: undo does not reach back past a review decision."


SIGN_OFF_TITLE = "Sign off the set"  # the one comment that may be left empty (a sign-off note)


def ask_comment_dialog(parent: QWidget) -> CommentAsker:
    return lambda title, prompt: ask_comment(parent, title, prompt, required=title != SIGN_OFF_TITLE)


class ReviewController(QObject):
    message = Signal(str)
    calibrated = Signal(int, list)  # set id, question ids
    approved = Signal(int, str)  # set id, question id: the window may move on
    stale = Signal(int, str)  # set id, question id: a decision was refused, someone saved a newer version

    def __init__(
        self,
        project: Project,
        current: Callable[[], tuple[int | None, str | None]],
        reviewer: Callable[[], str],
        ask_comment: CommentAsker,
        parent: QObject | None = None,
        *,
        edits: EditSession | None = None,
        commit_pending: Callable[[], None] | None = None,
        index: SharedIndex | None = None,
        ask_judge: Callable[[str], str | None] | None = None,
    ) -> None:
        super().__init__(parent)
        self.project = project
        self.current = current  # the question on screen: (set, question), either None when there is none
        self.reviewer = reviewer
        self.ask_comment = ask_comment
        # the judge spec when the project has none: typed, or a GGUF file chosen with Browse
        self.ask_judge = ask_judge or (lambda current: ask_judge_spec(None, current, []))
        self.edits = edits  # the undo history and its refused saves
        self.commit_pending = commit_pending or (lambda: None)  # the field being typed in
        self.index = index  # the corpus index, for the locator check of an approval
        self.open_backend: OpenBackend = open_model
        self.busy = False
        self._actions: dict[str, QAction] = {}

    # -- what the actions act on -----------------------------------------------------
    def bind_actions(self, actions: dict[str, QAction], *changed: SignalInstance) -> None:
        """Enable the review actions only while there is something on screen to act on;
        ``changed`` are the signals after which that may differ (page, selection, filter)."""
        self._actions = actions
        for signal in changed:
            signal.connect(self.refresh_actions)
        self.refresh_actions()

    def refresh_actions(self) -> None:
        set_id, qid = self.current()
        for name in QUESTION_ACTIONS:
            if name in self._actions:
                self._actions[name].setEnabled(set_id is not None and qid is not None)
        for name in SET_ACTIONS:
            if name in self._actions:
                self._actions[name].setEnabled(set_id is not None)
        for name in CALIBRATE_ACTIONS:  # one calibration at a time: its Cancel is in the status bar
            if name in self._actions and self.busy:
                self._actions[name].setEnabled(False)

    def _prepare(self) -> int:
        """Commit the field being typed in (its save is queued before the action); the
        count of refused saves before it, to refuse the action if one is refused since."""
        before = self.edits.refusals if self.edits is not None else 0
        self.commit_pending()
        return before

    def _seal(self) -> str:
        return SEALED if self.edits is not None and self.edits.seal() else ""

    def _run(
        self,
        verb: str,
        action: Callable[[int, str], workflow.ReviewChange],
        *,
        refusals: int | None = None,
        seal: bool = False,
        refused: Callable[[BaseException], bool] | None = None,
        then: Callable[[int, str], None] | None = None,
    ) -> None:
        set_id, qid = self.current()
        if set_id is None or qid is None:
            notify(self, NOTHING_SHOWN, "warning")
            return
        before = self._prepare() if refusals is None else refusals
        reviewer, edits = self.reviewer(), self.edits

        def act() -> workflow.ReviewChange:
            if edits is not None and edits.refusals != before:  # set on the GUI thread before this ran
                raise workflow.WorkflowError("an edit just made was not saved; check the field and try again")
            return action(set_id, qid)

        def done(_change: workflow.ReviewChange) -> None:
            notify(self, f"{qid}: {DONE.get(verb, verb)} by {reviewer}." + (self._seal() if seal else ""), "success")
            if then is not None:
                then(set_id, qid)

        def failed(error: BaseException) -> None:
            if isinstance(error, workflow.ReviewConflictError):
                self.stale.emit(set_id, qid)  # show the newer version
            if refused is None or not refused(error):
                notify(self, f"Cannot {verb} {qid}: {failure_message(error)}", failure_kind(error))

        CollectionOp(self, act).success(done).failure(failed).run_in_background(initiator=self)

    def start_review(self) -> None:
        engine, reviewer = self.project.engine, self.reviewer()
        self._run("start review of", lambda s, q: workflow.start_review(engine, s, q, reviewer=reviewer))

    def approve(self) -> None:
        """Approve the question on screen; one whose evidence does not all resolve asks why,
        and the reason is kept with the approval."""
        self._approve("")

    def _approve(self, reason: str) -> None:
        engine, reviewer, shared, edits = self.project.engine, self.reviewer(), self.index, self.edits

        def act(set_id: int, qid: str) -> workflow.ReviewChange:
            index = shared.get() if shared is not None else None
            seen = edits.version_of(set_id, qid) if edits is not None else None  # after the edits queued before
            return workflow.approve(
                engine, set_id, qid, reviewer=reviewer, index=index, unresolved_reason=reason, version=seen
            )

        self._run(
            "approve", act, seal=True, refused=None if reason.strip() else self._ask_reason, then=self.approved.emit
        )

    def _ask_reason(self, error: BaseException) -> bool:
        """An approval refused for unresolved evidence: ask why, and approve again with the reason."""
        if not isinstance(error, workflow.UnresolvedEvidence):
            return False
        if self.current()[1] != error.qid:
            notify(self, f"{error.qid} not approved: it is no longer on screen.", "warning")
            return True
        locators = "\n".join(f"• {f.message}" for f in error.findings)
        reason = self.ask_comment(
            f"Approve {error.qid} with unresolved evidence",
            f"{locators}\n\nWhy approve it anyway? The reason is kept with the approval.",
        )
        if reason is None or not reason.strip():
            notify(self, f"{error.qid} not approved: unresolved evidence needs a reason to approve.", "warning")
            return True
        self._approve(reason)
        return True

    def reopen(self) -> None:
        engine, reviewer = self.project.engine, self.reviewer()
        self._run("reopen", lambda s, q: workflow.reopen(engine, s, q, reviewer=reviewer))

    def request_changes(self) -> None:
        self._with_comment("request changes on", "What should change?", workflow.request_changes)

    def retire(self) -> None:
        self._with_comment(
            "retire", "Why retire this question? Retired questions stay retired.", workflow.retire, seal=True
        )

    def _with_comment(
        self, verb: str, prompt: str, action: Callable[..., workflow.ReviewChange], *, seal: bool = False
    ) -> None:
        _, qid = self.current()
        if qid is None:
            notify(self, NOTHING_SHOWN, "warning")
            return
        before = self._prepare()  # what is being typed is saved before the dialog opens
        comment = self.ask_comment(f"{verb.capitalize()} {qid}", prompt)
        if comment is None:
            return
        engine, reviewer = self.project.engine, self.reviewer()
        self._run(
            verb, lambda s, q: action(engine, s, q, reviewer=reviewer, comment=comment), refusals=before, seal=seal
        )

    def sign_off(self) -> None:
        set_id, _ = self.current()
        if set_id is None:
            notify(self, "Open the set's question page to sign it off.", "warning")
            return
        before = self._prepare()
        engine = self.project.engine

        # Whether the set can be signed is asked first (after the edits queued before it),
        # so no note is typed in vain.
        def check() -> OpResult[None]:
            workflow.check_ready_to_sign(engine, set_id)
            return OpResult(None)  # a check: nothing changed

        CollectionOp(self, check).success(lambda _ready: self._sign_off(set_id, before)).failure(
            self._sign_refused
        ).run_in_background(initiator=self)

    def _sign_refused(self, error: BaseException) -> None:
        notify(self, f"Cannot sign off: {failure_message(error)}", failure_kind(error))

    def _sign_off(self, set_id: int, before: int) -> None:
        comment = self.ask_comment(SIGN_OFF_TITLE, "Sign-off note, if any (the set is frozen as it is now):")
        if comment is None:
            return
        engine, reviewer, edits = self.project.engine, self.reviewer(), self.edits

        def sign() -> OpResult[workflow.SignoffInfo]:
            if edits is not None and edits.refusals != before:
                raise workflow.WorkflowError("an edit just made was not saved; check the field and try again")
            signed = workflow.sign_off(engine, set_id, reviewer=reviewer, comment=comment)
            return OpResult(signed, signed.changes)

        def done(result: OpResult[workflow.SignoffInfo]) -> None:
            signed = result.value
            notify(
                self,
                f"Signed off as #{signed.number}: {signed.question_count} questions, hash {signed.content_hash[:12]}…"
                + uncalibrated_note(signed.approved_without_calibration)
                + self._seal(),
                "warning" if signed.approved_without_calibration else "success",
            )

        CollectionOp(self, sign).success(done).failure(self._sign_refused).run_in_background(initiator=self)

    # -- calibration -------------------------------------------------------------
    def calibrate_question(self) -> None:
        set_id, qid = self.current()
        if set_id is not None and qid is not None:
            self._calibrate(set_id, [qid])
        else:
            notify(self, NOTHING_SHOWN, "warning")

    def calibrate_set(self) -> None:
        set_id, _ = self.current()
        if set_id is not None:
            self._calibrate(set_id, None)  # the active questions, read in the job
        else:
            notify(self, "Open the set's question page to calibrate it.", "warning")

    def _calibrate(self, set_id: int, qids: list[str] | None) -> None:
        if self.busy:
            notify(self, "A calibration is already running.", "warning")
            return
        engine = self.project.engine
        self._set_busy(True)
        QueryOp(
            self, op=lambda: project_judge(engine), success=lambda spec: self._with_judge(spec, set_id, qids)
        ).failure(self._calibration_failed).run_in_background()

    def _set_busy(self, busy: bool) -> None:
        self.busy = busy
        self.refresh_actions()

    def _with_judge(self, spec: object, set_id: int, qids: list[str] | None) -> None:
        chosen = spec.strip() if isinstance(spec, str) else ""
        if not chosen:
            answer = self.ask_judge("")
            if answer is None or not answer.strip():
                self._set_busy(False)
                return
            chosen = answer.strip()
            engine = self.project.engine
            CollectionOp(self, lambda: _remember_judge(engine, chosen)).run_in_background(initiator=self)
        self._start_calibration(chosen, set_id, qids)

    def _start_calibration(self, spec: str, set_id: int, qids: list[str] | None) -> None:
        engine, opener, cancel = self.project.engine, self.open_backend, threading.Event()
        count = "the active" if qids is None else str(len(qids))
        what = f"{qids[0]}" if qids is not None and len(qids) == 1 else f"{count} questions"
        ticket = ActivityBoard.of(self).begin(
            JobKind.CALIBRATION, f"Calibrating {what} with {short_spec(redact(spec))}", cancel
        )

        def work() -> CalibratedQuestions:
            return calibrate_set(
                engine, set_id, qids, judge=spec, open_backend=opener, progress=ticket.report, cancel=cancel
            )

        def done(outcome: CalibratedQuestions) -> None:
            self._set_busy(False)
            results = outcome.questions
            ok = sum(1 for r in results if r.reproduced)
            notify(
                self,
                f"Calibration with {spec}: {ok} of {plural(len(results), 'question')} reproduced.",
                "success" if ok == len(results) else "warning",
            )
            self.calibrated.emit(set_id, [r.question_id for r in results])

        notify(self, f"Calibrating {what} with {redact(spec)}… (progress and Cancel in the status bar)")
        failed = self._calibration_failed_in(set_id)
        BackgroundJob(self, op=work, success=done, ticket=ticket).failure(failed).run_in_background()

    def _calibration_failed(self, error: BaseException) -> None:
        self._set_busy(False)
        notify(self, f"Calibration failed: {failure_message(error)}", failure_kind(error))

    def _calibration_failed_in(self, set_id: int) -> Callable[[BaseException], None]:
        """A calibration that stopped: cancelled (the questions it finished are kept, so
        their views are read again) or failed."""

        def failed(error: BaseException) -> None:
            if not isinstance(error, Cancelled):
                self._calibration_failed(error)
                return
            self._set_busy(False)
            notify(self, "Calibration cancelled; every question it finished is kept.", "warning")
            OpHub.of(self).apply(changes_of(error))  # the questions it finished

        return failed


def _remember_judge(engine: Engine, spec: str) -> OpChanges:
    return set_project_judge(engine, spec)
