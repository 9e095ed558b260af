"""The review rules as one table: every status x every action against the matrix written out."""

from __future__ import annotations

import pytest

from gtreview.core import review_flow
from gtreview.core.review_flow import Refusal, ReviewAction, ReviewStatus, Rule, decide, sign_off_refusal

D, IR, CR, AP, RT = (
    ReviewStatus.DRAFT,
    ReviewStatus.IN_REVIEW,
    ReviewStatus.CHANGES_REQUESTED,
    ReviewStatus.APPROVED,
    ReviewStatus.RETIRED,
)
NO = Rule.RETIRED_STAYS_RETIRED
ACTIONS = (
    ReviewAction.START_REVIEW,
    ReviewAction.APPROVE,
    ReviewAction.REQUEST_CHANGES,
    ReviewAction.RETIRE,
    ReviewAction.REOPEN,
    ReviewAction.EDIT,
    ReviewAction.PARAPHRASE,
)
# fmt: off
EXPECTED = {  # status: the outcome of each action in ACTIONS' order
    #    start  approve  changes  retire  reopen  edit  paraphrase
    D:  (IR,    AP,      CR,      RT,     D,      D,    D),
    IR: (IR,    AP,      CR,      RT,     D,      IR,   IR),
    CR: (IR,    AP,      CR,      RT,     D,      CR,   CR),
    AP: (IR,    AP,      CR,      RT,     D,      D,    AP),  # an edit voids an approval
    RT: (NO,    NO,      NO,      NO,     NO,     NO,   NO),  # retired stays retired
}
# fmt: on


def test_the_matrix_covers_every_status_and_every_action() -> None:
    assert set(EXPECTED) == set(ReviewStatus) and set(ACTIONS) == set(ReviewAction)
    assert set(review_flow.TABLE) == {(s, a) for s in ReviewStatus for a in ReviewAction}


@pytest.mark.parametrize("status", list(ReviewStatus))
def test_every_transition_is_the_expected_one(status: ReviewStatus) -> None:
    for action, expected in zip(ACTIONS, EXPECTED[status], strict=True):
        assert review_flow.TABLE[(status, action)] == expected, (status, action)
        outcome = decide(status, action, qid="Q7", comment="because")
        if isinstance(expected, Rule):
            assert isinstance(outcome, Refusal) and outcome.rule is expected, (status, action)
            assert not review_flow.allows(status, action)
        else:
            assert outcome is expected, (status, action)
            assert review_flow.allows(status, action)


@pytest.mark.parametrize(
    ("action", "message"),
    [
        (ReviewAction.APPROVE, "Q7 is retired; retired questions stay retired"),
        (ReviewAction.REOPEN, "Q7 is retired; retired questions stay retired"),
        (ReviewAction.RETIRE, "Q7 is retired; retired questions stay retired"),
        (ReviewAction.EDIT, "Q7 is retired; retired questions are not edited"),
        (ReviewAction.PARAPHRASE, "Q7 is retired; retired questions get no paraphrases"),
    ],
)
def test_a_refusal_is_the_one_line_the_user_is_shown(action: ReviewAction, message: str) -> None:
    refusal = decide(RT, action, qid="Q7", comment="")  # retired is said first, before any missing comment
    assert isinstance(refusal, Refusal) and refusal.message == str(refusal) == message


@pytest.mark.parametrize("status", sorted(review_flow.ACTIVE))
def test_requesting_changes_and_retiring_need_a_comment(status: ReviewStatus) -> None:
    for action, message in (
        (ReviewAction.REQUEST_CHANGES, "requesting changes needs a comment saying what to change"),
        (ReviewAction.RETIRE, "retiring a question needs a comment saying why"),
    ):
        assert decide(status, action, qid="Q7", comment="  \n") == Refusal(Rule.COMMENT_REQUIRED, message)
    for action in set(ReviewAction) - set(review_flow.COMMENT_REQUIRED):
        assert isinstance(decide(status, action, qid="Q7"), ReviewStatus), action


def test_sign_off_needs_active_questions_all_approved() -> None:
    assert sign_off_refusal([("A1", AP), ("A2", RT)]) is None
    assert sign_off_refusal([]) == Refusal(Rule.NOTHING_TO_SIGN, "the set has no active questions to sign off")
    assert sign_off_refusal([("A1", RT)]) == Refusal(
        Rule.NOTHING_TO_SIGN, "the set has no active questions to sign off"
    )
    pending = sign_off_refusal([("A1", AP), ("A2", D), ("A3", RT), ("A4", CR), ("A5", IR)])
    assert pending == Refusal(Rule.NOT_ALL_APPROVED, "3 active questions are not approved: A2, A4, A5")
    many = sign_off_refusal([(f"B{n}", D) for n in range(7)])
    assert many is not None and many.message == "7 active questions are not approved: B0, B1, B2, B3, B4 ..."
    assert review_flow.AWAITING_APPROVAL == {D, IR, CR} and review_flow.ACTIVE == {D, IR, CR, AP}
