"""A question retired by another process while it is being approved is never approved.

Two real processes (``tests/review_race.py``): the approver is held at a barrier in its
write transaction's entry while the retirer retires the question, then let go. Before
the review intents read the status in the transaction that writes the decision, the
approver had checked "not retired" in an earlier read and then wrote "approved" over
the retirement.
"""

from __future__ import annotations

from pathlib import Path

from tests.review_race import race


def never_approved_after_retirement(actions: list[str]) -> bool:
    return "retired" not in actions or "approved" not in actions[actions.index("retired") :]


def test_an_approval_waiting_to_write_is_refused_once_the_question_is_retired(tmp_path: Path) -> None:
    """The approver has done every check it makes outside its transaction; the retirement
    commits; the approver's transaction reads "retired" and refuses, in the one line shown."""
    result = race(tmp_path / "p", "before")
    assert result.retirer == {"ok": True}
    assert result.approver == {
        "ok": False,
        "error": "ReviewRefused",
        "message": "A1 is retired; retired questions stay retired",
    }
    assert result.status == "retired" and result.actions == ["import", "retired"]
    assert never_approved_after_retirement(result.actions)


def test_a_retirement_waits_for_an_approval_being_written_and_then_retires(tmp_path: Path) -> None:
    """The other order: the approver holds the write lock, so the retirer waits, then reads
    "approved" in its own transaction and retires the question."""
    result = race(tmp_path / "p", "inside")
    assert result.approver == {"ok": True} and result.retirer == {"ok": True}
    assert result.actions == ["import", "approved", "retired"] and result.status == "retired"
    assert never_approved_after_retirement(result.actions)
