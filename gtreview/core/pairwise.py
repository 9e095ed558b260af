"""Pairwise verdicts: parsing the judge's token, reconciling both answer orders.

Each pair is judged twice, A-then-B and B-then-A. The first order's token scores
2, 1, 0, -1, -2 for A>>B .. B>>A; the swapped run's score is negated (its "A" is
our B); the two are averaged and mapped back to a label by the interop thresholds.
A verdict that cannot be parsed makes the pair unknown, never a tie.
"""

from __future__ import annotations

import re
from enum import StrEnum

from pydantic import BaseModel

TOKENS: dict[str, int] = {"[[A>>B]]": 2, "[[A>B]]": 1, "[[A=B]]": 0, "[[B>A]]": -1, "[[B>>A]]": -2}
_SPACE = re.compile(r"\s+")
_TOKEN = re.compile(r"\[\[\s*(A\s*>>\s*B|A\s*>\s*B|A\s*=\s*B|B\s*>\s*A|B\s*>>\s*A)\s*\]\]")
_BARE = re.compile(r"\s*(?:\[\[)?\s*(A\s*>>\s*B|A\s*>\s*B|A\s*=\s*B|B\s*>\s*A|B\s*>>\s*A)\s*(?:\]\])?\s*")


class PairLabel(StrEnum):
    A_MUCH_BETTER = "A>>B"
    A_BETTER = "A>B"
    TIE = "A=B"
    B_BETTER = "B>A"
    B_MUCH_BETTER = "B>>A"
    UNKNOWN = "unknown"


def parse_verdict(text: str) -> str | None:
    """The one verdict token in ``text``; None when there is none or they disagree."""
    found = {"[[" + _SPACE.sub("", m) + "]]" for m in _TOKEN.findall(text or "")}
    return found.pop() if len(found) == 1 else None


def read_token(value: object) -> str | None:
    """A verdict as the Groundtruth harness stores it: a bare token (``"A>B"``, what it
    writes), a bracketed one (older files), or a judge's text, where the FIRST
    ``[[..]]`` token wins (the harness's own reading). None for ``"unknown"``, a missing
    value or a text without a token."""
    if not isinstance(value, str):
        return None
    bare = _BARE.fullmatch(value)
    if bare is not None:
        return "[[" + _SPACE.sub("", bare.group(1)) + "]]"
    first = _TOKEN.search(value)
    return "[[" + _SPACE.sub("", first.group(1)) + "]]" if first else None


def label_for(score: float) -> PairLabel:
    if score >= 1.5:
        return PairLabel.A_MUCH_BETTER
    if score >= 0.5:
        return PairLabel.A_BETTER
    if score <= -1.5:
        return PairLabel.B_MUCH_BETTER
    if score <= -0.5:
        return PairLabel.B_BETTER
    return PairLabel.TIE


def _sign(value: float) -> int:
    return (value > 0) - (value < 0)


class PairOutcome(BaseModel):
    verdict_normal: str | None
    verdict_swapped: str | None
    normal_score: int | None
    swapped_score: int | None  # already negated into the A/B frame of the first order
    average: float | None
    label: PairLabel
    inconsistent: bool  # the order changed the winner: the judge's position bias

    @property
    def unknown(self) -> bool:
        return self.label is PairLabel.UNKNOWN


def reconcile(normal_text: str, swapped_text: str) -> PairOutcome:
    return reconcile_tokens(parse_verdict(normal_text), parse_verdict(swapped_text))


def reconcile_tokens(normal: str | None, swapped: str | None) -> PairOutcome:
    """Both orders' tokens (``[[A>B]]`` or None), reconciled; a missing one makes the pair unknown."""
    normal = normal if normal in TOKENS else None
    swapped = swapped if swapped in TOKENS else None
    if normal is None or swapped is None:
        return PairOutcome(
            verdict_normal=normal,
            verdict_swapped=swapped,
            normal_score=TOKENS.get(normal or ""),
            swapped_score=-TOKENS[swapped] if swapped else None,
            average=None,
            label=PairLabel.UNKNOWN,
            inconsistent=False,
        )
    first, second = TOKENS[normal], -TOKENS[swapped]
    average = (first + second) / 2
    return PairOutcome(
        verdict_normal=normal,
        verdict_swapped=swapped,
        normal_score=first,
        swapped_score=second,
        average=average,
        label=label_for(average),
        inconsistent=_sign(first) != _sign(second),
    )
