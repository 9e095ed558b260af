"""Recall measures on hand-made strings whose answers are known, and the shuffle control."""

from __future__ import annotations

import pytest

from gtreview.core.recall import exact_match, longest_common_token_run, ngram_overlap, shuffle_within_sentences


def test_longest_common_run_finds_the_shared_stretch_anywhere() -> None:
    assert longest_common_token_run("a b c d e", "x c d e y") == 3
    assert longest_common_token_run([1, 2, 3], [4, 5]) == 0
    assert longest_common_token_run([], [1]) == 0
    # a continuation one token out of step still shows the recited run
    assert longest_common_token_run([7, 8, 9, 10, 11], [0, 7, 8, 9, 10]) == 4


def test_ngram_overlap_is_the_share_of_reference_ngrams_reproduced() -> None:
    reference = "the gold ore is in the quartz vein"  # 5 four-grams
    assert ngram_overlap(reference, reference, 4) == 1.0
    assert ngram_overlap(reference, "the gold ore is in a granite dyke", 4) == pytest.approx(2 / 5)
    assert ngram_overlap(reference, "vein quartz the in is ore gold the", 4) == 0.0
    assert ngram_overlap("a b", "a b", 4) == 0.0  # too short to have a 4-gram


def test_ngram_overlap_clips_repeated_ngrams() -> None:
    # the candidate repeats "a b" three times; the reference has it once of two bigrams
    assert ngram_overlap("a b c", "a b a b a b", 2) == pytest.approx(1 / 2)
    with pytest.raises(ValueError):
        ngram_overlap("a", "a", 0)


def test_exact_match() -> None:
    assert exact_match("gold in quartz", "gold  in quartz")
    assert not exact_match("gold in quartz", "gold in quartz vein")
    assert exact_match([1, 2, 3], (1, 2, 3))


def test_shuffle_keeps_the_words_of_each_sentence_and_is_deterministic() -> None:
    text = (
        "The gold ore lies in a quartz vein near the shear zone. Drill hole two cut the lode at depth! Was it sampled?"
    )
    shuffled = shuffle_within_sentences(text, seed=3)
    assert shuffled == shuffle_within_sentences(text, seed=3)
    assert shuffled != text
    assert sorted(shuffled.split()) == sorted(text.split())
    first_sentence = "The gold ore lies in a quartz vein near the shear zone.".split()
    assert sorted(shuffled.split()[: len(first_sentence)]) == sorted(first_sentence)  # words stay in their sentence
    assert shuffle_within_sentences(text, seed=4) != shuffled
