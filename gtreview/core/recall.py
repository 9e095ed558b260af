"""Measures of verbatim recall, and the shuffled control text they are compared against.

A fine-tune that has learnt its training reports by heart continues a passage with
the passage's own words. These pure functions say how much of a true continuation a
generated one reproduces (longest common run, n-gram overlap, exact match) and build
the control that separates memorised *order* from merely familiar *vocabulary*: the
same words shuffled within each sentence. Inputs are token-id lists or any sequences
of hashable items; a ``str`` is compared word by word (split on whitespace), which is
what hand-made checks and readable reports want.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Hashable, Sequence

Units = str | Sequence[Hashable]

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def _units(value: Units) -> list[Hashable]:
    return list(value.split()) if isinstance(value, str) else list(value)


def longest_common_token_run(a: Units, b: Units) -> int:
    """Length of the longest contiguous run that ``a`` and ``b`` share (anywhere in each).

    Recitation shows as long shared runs even when the continuation drifts out of step
    by a token, which exact match and aligned comparisons would miss.
    """
    x, y = _units(a), _units(b)
    best = 0
    previous = [0] * (len(y) + 1)
    for item in x:
        current = [0] * (len(y) + 1)
        for j, other in enumerate(y, start=1):
            if item == other:
                current[j] = previous[j - 1] + 1
                if current[j] > best:
                    best = current[j]
        previous = current
    return best


def ngram_overlap(reference: Units, candidate: Units, n: int) -> float:
    """Share of the reference's n-grams that the candidate reproduces (counts clipped, as
    in BLEU, so repeating one n-gram earns it once per occurrence in the reference).

    0.0 when the reference has fewer than ``n`` items: nothing could be reproduced.
    """
    if n < 1:
        raise ValueError("n must be at least 1")
    ref, cand = _units(reference), _units(candidate)
    ref_grams = Counter(tuple(ref[i : i + n]) for i in range(len(ref) - n + 1))
    if not ref_grams:
        return 0.0
    cand_grams = Counter(tuple(cand[i : i + n]) for i in range(len(cand) - n + 1))
    hits = sum(min(count, cand_grams[gram]) for gram, count in ref_grams.items())
    return hits / sum(ref_grams.values())


def exact_match(reference: Units, candidate: Units) -> bool:
    """Whether the candidate is the reference, item for item."""
    return _units(reference) == _units(candidate)


def shuffle_within_sentences(text: str, seed: int) -> str:
    """The control text: each sentence's words in a seeded random order.

    Word frequencies, sentence lengths and vocabulary stay those of the passage, so a
    likelihood gain that survives on the control is familiarity with the domain, and
    only the gain beyond it is memorised word order. Deterministic in ``(text, seed)``.
    """
    rng = random.Random(seed)
    sentences = [s for s in _SENTENCE_END.split(text.strip()) if s]
    shuffled: list[str] = []
    for sentence in sentences:
        words = sentence.split()
        rng.shuffle(words)
        shuffled.append(" ".join(words))
    return " ".join(shuffled)
