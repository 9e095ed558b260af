"""The expert's review workflow: one function per review intent, and sign-off.

The statuses and the transition rules are ``core.review_flow``'s table; here each intent
reads the question's status, asks the table, and records the new status with its audit
entry in ONE unit of work (``store.db.unit_of_work``, BEGIN IMMEDIATE), so no
other writer can retire, approve or reopen the question between the check and the
write. It returns what changed (``ReviewChange``).

The preconditions of an approval that depend on the content rather than the status
are checked here, before that transaction (they read the corpus and may take a while):
no validation errors, a reproduced calibration where the project asks for one, and the
expert's reason for evidence whose locators do not resolve (kept with the approval).
The transaction then refuses the approval unless the version checked is still the
current one. Every action lands in the append-only review log with the content hash of
the version it concerns.
"""

from __future__ import annotations

from pydantic import BaseModel
from sqlalchemy import Engine

from gtreview.app.in_set import read_in_set
from gtreview.app.question_calibration import approval_requires_calibration, latest_calibration
from gtreview.app.review import checks_locators, corpus_index, resolve_evidence
from gtreview.core.changes import OpChanges
from gtreview.core.errors import UserError
from gtreview.core.findings import Finding, count_errors
from gtreview.core.jsonmodel import canonical_hash
from gtreview.core.locator_findings import unresolved_findings, waiver_note
from gtreview.core.review_flow import Refusal, ReviewAction, ReviewStatus, decide, is_active, sign_off_refusal
from gtreview.core.rubric import Rubric, rubric_to_json_text
from gtreview.core.wording import plural
from gtreview.corpus.locators import CorpusIndex
from gtreview.store import sets
from gtreview.store.db import reading, unit_of_work
from gtreview.store.sets import HistoryEntry, QuestionSummary, SignoffInfo


class WorkflowError(UserError):
    """An action the workflow does not allow now; the message says why, in one line."""


class ReviewRefused(WorkflowError):
    """An action the review rules refuse (``core.review_flow``); ``refusal`` says which rule."""

    def __init__(self, refusal: Refusal) -> None:
        self.refusal = refusal
        super().__init__(refusal.message)


class ReviewChange(BaseModel):
    """What a review decision changed: the question, its status before and after, and the
    version the decision is recorded on (what the GUI refreshes and the CLI prints)."""

    set_id: int
    qid: str
    action: ReviewAction
    before: ReviewStatus
    after: ReviewStatus
    version: int

    @property
    def changes(self) -> OpChanges:
        return OpChanges.of_questions(self.set_id, self.qid)


class UnresolvedEvidence(WorkflowError):
    """Approval refused until the expert says why evidence that does not resolve is acceptable."""

    def __init__(self, qid: str, findings: list[Finding]) -> None:
        self.qid, self.findings = qid, findings
        first = findings[0].message.rstrip(".")
        more = f" (and {len(findings) - 1} more)" if len(findings) > 1 else ""
        super().__init__(f"{qid}: {first}{more}; approving it needs a reason")


ReviewConflictError = sets.ReviewConflictError  # a decision on a version no longer current


def _no_question(qid: str) -> WorkflowError:
    return WorkflowError(f"the set has no question {qid}")


def _decide(
    engine: Engine,
    set_id: int,
    qid: str,
    action: ReviewAction,
    *,
    reviewer: str,
    comment: str,
    version: int | None = None,
    calibration_required: bool | None = None,
) -> ReviewChange:
    """One review decision in one write transaction: read the status, apply the table,
    record the new status and its audit entry (on ``version`` when given, and for an
    approval whether calibration was required), commit."""
    with unit_of_work(engine) as tx:
        try:
            state = sets.get_question(tx, set_id, qid)
        except KeyError:
            raise _no_question(qid) from None
        after = decide(state.review_status, action, qid=qid, comment=comment)
        if isinstance(after, Refusal):
            raise ReviewRefused(after)
        recorded = sets.record_review(
            tx,
            set_id,
            qid,
            after,
            actor=reviewer,
            comment=comment,
            version=version,
            calibration_required=calibration_required,
        )
    return ReviewChange(
        set_id=set_id, qid=qid, action=action, before=state.review_status, after=after, version=recorded
    )


def _refuse_early(engine: Engine, set_id: int, qid: str, action: ReviewAction, comment: str) -> None:
    """Refuse an action the status already rules out before its slower checks run (the
    transaction that records it asks the table again)."""
    try:
        with reading(engine) as session:
            status = sets.get_question(session, set_id, qid).review_status
    except KeyError:
        raise _no_question(qid) from None
    after = decide(status, action, qid=qid, comment=comment)
    if isinstance(after, Refusal):
        raise ReviewRefused(after)


def start_review(engine: Engine, set_id: int, qid: str, *, reviewer: str, comment: str = "") -> ReviewChange:
    return _decide(engine, set_id, qid, ReviewAction.START_REVIEW, reviewer=reviewer, comment=comment)


def approve(
    engine: Engine,
    set_id: int,
    qid: str,
    *,
    reviewer: str,
    comment: str = "",
    index: CorpusIndex | None = None,
    unresolved_reason: str = "",
    version: int | None = None,
) -> ReviewChange:
    """Approve the current version; refused while the validator reports errors, and
    while an evidence locator does not resolve in the corpus (``index``, read from the
    project when not given; a project without documents has nothing to check against)
    unless ``unresolved_reason`` says why; the reason and the locators it covers are kept
    as the approval's comment.

    The version approved is the one checked here (or ``version``, the one the reviewer
    saw): when another writer saves a newer one meanwhile, the approval is refused
    (``sets.ReviewConflictError``) rather than given to content nobody checked. The
    status is read again, and the approval recorded, in one write transaction: a question
    retired meanwhile is not approved."""
    _refuse_early(engine, set_id, qid, ReviewAction.APPROVE, comment)
    with reading(engine) as session:
        checked, question = sets.load_current(session, set_id, qid)
    if version is not None and version != checked:
        with reading(engine) as session:
            newest = sets.list_versions(session, set_id, qid)[-1]
        raise ReviewConflictError(qid, version, checked, newest.author, "approved")
    content = question.to_json_dict()
    # the findings the question list shows: a paraphrase of no question of the set (or of
    # another paraphrase), an id or fixture id used twice, are errors like any other
    errors = count_errors(read_in_set(engine, set_id, content).findings(content))
    if errors:
        raise WorkflowError(f"{qid} has {plural(errors, 'validation error')}; fix them before approving")
    required = approval_requires_calibration(engine)
    if required:
        latest = latest_calibration(engine, set_id, qid)
        if latest is None:
            raise WorkflowError(f"{qid} has not been calibrated in this version; run Calibrate first")
        judge, result = latest
        if not result.reproduced:
            missed = ", ".join(f.fixture_id for f in result.fixtures if not f.reproduced)
            raise WorkflowError(f"{judge} did not reproduce {qid}'s fixtures {missed}")
    corpus = (index or corpus_index(engine)) if question.evidence else None
    resolutions = resolve_evidence(corpus, content) if corpus is not None and checks_locators(corpus) else []
    unresolved = unresolved_findings(qid, resolutions)
    if unresolved:
        if not unresolved_reason.strip():
            raise UnresolvedEvidence(qid, unresolved)
        covered = ", ".join(
            f"evidence {n + 1} ({r.locator})" for n, r in enumerate(resolutions) if not r.resolved and r.locator.strip()
        )
        note = waiver_note(covered, unresolved_reason.strip())
        comment = f"{note}\n{comment}" if comment.strip() else note
    return _decide(
        engine,
        set_id,
        qid,
        ReviewAction.APPROVE,
        reviewer=reviewer,
        comment=comment,
        version=checked,
        calibration_required=required,  # an approval under Require calibration switched off says so
    )


def request_changes(engine: Engine, set_id: int, qid: str, *, reviewer: str, comment: str) -> ReviewChange:
    return _decide(engine, set_id, qid, ReviewAction.REQUEST_CHANGES, reviewer=reviewer, comment=comment)


def retire(engine: Engine, set_id: int, qid: str, *, reviewer: str, comment: str) -> ReviewChange:
    return _decide(engine, set_id, qid, ReviewAction.RETIRE, reviewer=reviewer, comment=comment)


def reopen(engine: Engine, set_id: int, qid: str, *, reviewer: str, comment: str = "") -> ReviewChange:
    """Back to draft (from approved or changes requested)."""
    return _decide(engine, set_id, qid, ReviewAction.REOPEN, reviewer=reviewer, comment=comment)


def _frozen(summaries: list[QuestionSummary], rubric: Rubric) -> Rubric:
    """``rubric`` less the questions that are not active, its question count to match."""
    retired = {s.qid for s in summaries if not is_active(s.review_status)}
    rubric.questions = [q for q in rubric.questions if q.id not in retired]
    if rubric.benchmark.question_count is not None:
        rubric.benchmark.question_count = len(rubric.questions)
    return rubric


def frozen_rubric(engine: Engine, set_id: int) -> Rubric:
    """The set as a sign-off freezes it and a pass runs it: its active questions (retired
    ones left out, the question count to match), so a pass over a signed-off set carries
    the sign-off's content hash."""
    with reading(engine) as session:
        return _frozen(sets.list_questions(session, set_id), sets.export_rubric(session, set_id))


def _refuse_sign_off(summaries: list[QuestionSummary]) -> None:
    refusal = sign_off_refusal((s.qid, s.review_status) for s in summaries)
    if refusal is not None:
        raise ReviewRefused(refusal)


def check_ready_to_sign(engine: Engine, set_id: int) -> None:
    """Raise WorkflowError, saying why, unless every active question is approved (asked
    before the sign-off note, so the note is not typed in vain)."""
    with reading(engine) as session:
        _refuse_sign_off(sets.list_questions(session, set_id))


def sign_off(engine: Engine, set_id: int, *, reviewer: str, comment: str = "") -> SignoffInfo:
    """Freeze the set: every active question approved, retired ones left out.

    The statuses are checked, the set read and frozen, and the sign-off recorded in one
    write transaction, so no question is edited, reopened or retired between the check
    and what is signed. The frozen rubric is stored whole with its hash, so later edits
    (which start a new draft of the set) cannot change what was signed.
    """
    if not reviewer.strip():
        raise WorkflowError("a sign-off needs the reviewer's name")
    with unit_of_work(engine) as tx:
        summaries = sets.list_questions(tx, set_id)
        _refuse_sign_off(summaries)
        rubric = _frozen(summaries, sets.export_rubric(tx, set_id))
        text = rubric_to_json_text(rubric)
        content_hash = canonical_hash(rubric.to_json_dict())
        hashes = {canonical_hash(q.to_json_dict()): q.id for q in rubric.questions}
        number = sets.record_signoff(
            tx,
            set_id,
            text,
            content_hash,
            len(rubric.questions),
            reviewer=reviewer,
            comment=comment,
            uncalibrated=sets.approved_without_calibration(tx, set_id, hashes),
        )
        tx.flush()
        return next(s for s in sets.signoffs(tx, set_id) if s.number == number)


def history(engine: Engine, set_id: int, qid: str) -> list[HistoryEntry]:
    """A question's audit trail, oldest first."""
    with reading(engine) as session:
        return sets.history(session, set_id, qid)


def signoffs(engine: Engine, set_id: int) -> list[SignoffInfo]:
    """The set's sign-offs, in number order."""
    with reading(engine) as session:
        return sets.signoffs(session, set_id)


def signed_rubric_text(engine: Engine, set_id: int, number: int) -> str:
    """The exact rubric file frozen by sign-off ``number`` (NoSuchSignoff when it has none)."""
    with reading(engine) as session:
        return sets.signed_rubric_text(session, set_id, number)


__all__ = [
    "HistoryEntry",
    "ReviewChange",
    "ReviewRefused",
    "SignoffInfo",
    "UnresolvedEvidence",
    "WorkflowError",
    "approve",
    "check_ready_to_sign",
    "frozen_rubric",
    "history",
    "reopen",
    "request_changes",
    "retire",
    "sign_off",
    "signed_rubric_text",
    "signoffs",
    "start_review",
]
