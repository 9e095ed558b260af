"""Importing a large set: the duplicate-id check is one pass, not one pass per question."""

from __future__ import annotations

from gtreview.store.sets import repeated_ids


def test_repeated_ids_of_a_million_questions() -> None:
    # Counting each id in the whole list took n^2 steps: 200,000 questions never
    # finished; a million is instant in one pass.
    ids = [f"Q{i}" for i in range(1_000_000)]
    assert repeated_ids(ids) == []
    assert repeated_ids([*ids, "Q7", "Q999999", "Q7"]) == ["Q7", "Q999999"]


def test_repeated_ids_are_sorted_and_listed_once() -> None:
    assert repeated_ids(["B", "A", "B", "A", "B", "C"]) == ["A", "B"]
