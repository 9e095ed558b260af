"""Numbering and ordering as people read them."""

from gtreview.core.numbering import difficulty_rank, natural_key, sample_number


def test_samples_count_from_one() -> None:
    assert [sample_number(i) for i in range(3)] == [1, 2, 3]


def test_ids_sort_with_their_numbers_as_numbers() -> None:
    assert sorted(["D10", "D9", "A2", "a1", "D1"], key=natural_key) == ["a1", "A2", "D1", "D9", "D10"]


def test_difficulty_sorts_by_rank_with_unknown_words_after_and_none_last() -> None:
    words = ["Hard", "", "Easy", "Fiendish", "Moderate"]
    assert sorted(words, key=difficulty_rank) == ["Easy", "Moderate", "Hard", "Fiendish", ""]
