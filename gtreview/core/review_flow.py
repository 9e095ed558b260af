"""The review workflow's statuses and the rules that move a question between them, in one table.

A question is a ``draft`` when imported or added, goes ``in_review`` when an expert takes
it up, and ends ``approved`` or ``changes_requested``; any active question can be
``retired``, and a retired question stays retired (no review action, no edit, no
paraphrase). ``TABLE`` says, for every status and every action, the status the action
leaves or the rule that refuses it; :func:`decide` adds the rules that depend on what
the action carries (a comment) and words each refusal in the one line the GUI and the
CLI show. Sign-off is a rule over the whole set (:func:`sign_off_refusal`).

Transition rules (here, pure, checked inside the write transaction that records the
decision, so nothing can change the status between the check and the write):

- retired stays retired: every action on a retired question is refused;
- only an active question changes status (the same rule seen from the other side);
- requesting changes and retiring need a comment saying why;
- an edit voids an approval (approved -> draft); other statuses survive an edit;
- reopening goes back to draft, starting review goes to in review, from any active status;
- a set is signed off only when it has active questions and every one is approved.

Preconditions the application checks before it records an approval, because they
depend on the question's content and the project, not on its status
(``app.workflow.approve``): zero validation errors (paraphrase findings included),
a calibration of the current version that reproduced its fixtures where the project
asks for one, and a reason for evidence whose locators do not resolve. The version the
reviewer saw must still be the current one (the store's ``ReviewConflictError``), and a
sign-off names its reviewer.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum

from gtreview.core.wording import noun, plural


class ReviewStatus(StrEnum):
    DRAFT = "draft"
    IN_REVIEW = "in_review"
    CHANGES_REQUESTED = "changes_requested"
    APPROVED = "approved"
    RETIRED = "retired"


class ReviewAction(StrEnum):
    """What an expert (or a script) does to a question."""

    START_REVIEW = "start_review"
    APPROVE = "approve"
    REQUEST_CHANGES = "request_changes"
    RETIRE = "retire"
    REOPEN = "reopen"
    EDIT = "edit"  # a new version of the question's content
    PARAPHRASE = "paraphrase"  # a paraphrase of it added to the set (its own status is kept)


class Rule(StrEnum):
    """The rule a refused action breaks."""

    RETIRED_STAYS_RETIRED = "retired-stays-retired"
    COMMENT_REQUIRED = "comment-required"
    NOTHING_TO_SIGN = "nothing-to-sign"
    NOT_ALL_APPROVED = "not-all-approved"


@dataclass(frozen=True)
class Refusal:
    """An action the rules refuse: the rule, and the one line the user is shown."""

    rule: Rule
    message: str

    def __str__(self) -> str:
        return self.message


ACTIVE = frozenset(status for status in ReviewStatus if status is not ReviewStatus.RETIRED)
# The active statuses a sign-off waits on (and "the next unreviewed question" looks for).
AWAITING_APPROVAL = ACTIVE - {ReviewStatus.APPROVED}

_S = ReviewStatus
_A = ReviewAction


def _active_row(status: ReviewStatus) -> dict[ReviewAction, ReviewStatus | Rule]:
    return {
        _A.START_REVIEW: _S.IN_REVIEW,
        _A.APPROVE: _S.APPROVED,
        _A.REQUEST_CHANGES: _S.CHANGES_REQUESTED,
        _A.RETIRE: _S.RETIRED,
        _A.REOPEN: _S.DRAFT,
        _A.EDIT: _S.DRAFT if status is _S.APPROVED else status,  # an edit voids an approval
        _A.PARAPHRASE: status,
    }


#: (status, action) -> the status the action leaves, or the rule that refuses it.
TABLE: Mapping[tuple[ReviewStatus, ReviewAction], ReviewStatus | Rule] = {
    **{(status, action): after for status in ACTIVE for action, after in _active_row(status).items()},
    **{(_S.RETIRED, action): Rule.RETIRED_STAYS_RETIRED for action in ReviewAction},
}

# The actions that must say why, and how their refusal says so.
COMMENT_REQUIRED: Mapping[ReviewAction, str] = {
    _A.REQUEST_CHANGES: "requesting changes needs a comment saying what to change",
    _A.RETIRE: "retiring a question needs a comment saying why",
}

_RETIRED_SAYS: Mapping[ReviewAction, str] = {
    _A.EDIT: "retired questions are not edited",
    _A.PARAPHRASE: "retired questions get no paraphrases",
}


def status_words(status: ReviewStatus | str) -> str:
    """A status as people read it: "changes requested", never the stored ``changes_requested``."""
    return str(status).replace("_", " ")


def is_active(status: ReviewStatus) -> bool:
    """Whether the question is still part of the set (reviewed, calibrated, run, signed)."""
    return status in ACTIVE


def allows(status: ReviewStatus, action: ReviewAction) -> bool:
    """Whether ``action`` may be taken on a question in ``status`` (comments aside)."""
    return isinstance(TABLE[(status, action)], ReviewStatus)


def decide(status: ReviewStatus, action: ReviewAction, *, qid: str, comment: str = "") -> ReviewStatus | Refusal:
    """The status ``action`` leaves question ``qid`` in, or why it is refused.

    The table first (a retired question is refused whatever the action carries), then
    the comment the action needs."""
    after = TABLE[(status, action)]
    if isinstance(after, Rule):
        return Refusal(after, f"{qid} is retired; {_RETIRED_SAYS.get(action, 'retired questions stay retired')}")
    needs = COMMENT_REQUIRED.get(action)
    if needs is not None and not comment.strip():
        return Refusal(Rule.COMMENT_REQUIRED, needs)
    return after


def sign_off_refusal(statuses: Iterable[tuple[str, ReviewStatus]]) -> Refusal | None:
    """Why a set whose questions have these (id, status) pairs cannot be signed off, or None:
    it needs active questions, and every active question approved."""
    active = [(qid, status) for qid, status in statuses if is_active(status)]
    if not active:
        return Refusal(Rule.NOTHING_TO_SIGN, "the set has no active questions to sign off")
    pending = [qid for qid, status in active if status in AWAITING_APPROVAL]
    if pending:
        shown = ", ".join(pending[:5]) + (" ..." if len(pending) > 5 else "")
        return Refusal(
            Rule.NOT_ALL_APPROVED,
            f"{plural(len(pending), 'active question')} {noun(len(pending), 'is', 'are')} not approved: {shown}",
        )
    return None


__all__ = [
    "ACTIVE",
    "AWAITING_APPROVAL",
    "COMMENT_REQUIRED",
    "TABLE",
    "Refusal",
    "ReviewAction",
    "ReviewStatus",
    "Rule",
    "allows",
    "decide",
    "is_active",
    "sign_off_refusal",
]
