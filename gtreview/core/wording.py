"""Counts in words: ``1 passage``, ``2 passages``, never ``1 passages`` or ``passage(s)``."""

from __future__ import annotations

IRREGULAR = {"is": "are", "has": "have", "was": "were", "does": "do", "analysis": "analyses"}


def plural_of(noun: str) -> str:
    """The English plural of the last word of ``noun`` (the words before it stay)."""
    head, _, word = noun.rpartition(" ")
    if word in IRREGULAR:
        shown = IRREGULAR[word]
    elif word.endswith(("s", "x", "z", "ch", "sh")):
        shown = word + "es"
    elif word.endswith("y") and len(word) > 1 and word[-2] not in "aeiou":
        shown = word[:-1] + "ies"
    else:
        shown = word + "s"
    return f"{head} {shown}" if head else shown


def plural(count: int, noun: str, many: str | None = None) -> str:
    """``count`` and ``noun``, in the plural unless ``count`` is 1 (``many`` when the plural is
    not the regular one, or when the count qualifies a phrase: "question has" / "questions have")."""
    return f"{count} {noun if count == 1 else many or plural_of(noun)}"


def noun(count: int, singular: str, many: str | None = None) -> str:
    """The word alone, as ``plural`` chooses it (the count is written elsewhere)."""
    return singular if count == 1 else many or plural_of(singular)


__all__ = ["noun", "plural", "plural_of"]
