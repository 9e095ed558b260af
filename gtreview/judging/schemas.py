"""JSON schemas the judge's reply is constrained to, built from one question's rubric.

The schema goes with the prompt template version (``judge_pointwise_v3``,
``judge_pairwise_v2``); each template version's bounds are kept (``BOUNDS``) so an old
one can still be asked for. Choices that keep a local judge fast and its verdicts sound:

* **reason before decision** where the decision is read on its own: ``gate_reason``
  before ``gate_passed``, the pairwise ``reason`` before the ``verdict``. Properties are
  emitted in schema order, so the judge writes its explanation first and decides after;
* **a component's reason no longer than the grader needs** (v3): the award comes first
  and its reason is bounded by it, short where the award is full or zero (the expert
  reads those least) and longer for a partial award, the one an expert checks. v2 put a
  100-character reason before every award; SmolLM2 filled it to the cap;
* **short by design**: the per-component flags are two lists of component ids at the
  top level rather than two booleans in every component, at most one unscored point is
  listed, and every string is bounded so a runaway judge cannot fill the context.

Every component id is a required key and its award an ``enum`` of 0..maximum (the
llama.cpp grammar honours enum but not integer bounds).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from gtreview.core.pairwise import TOKENS
from gtreview.core.rubric import Component, Question

PAIR_REASON_CHARS = 200


class VerdictBounds(BaseModel, frozen=True):
    """How long each string of a pointwise verdict may be (characters), and how many
    unscored points it may list. ``settled_reason`` bounds a component's reason when its
    award is full or zero; when it differs from ``reason`` the award is written first."""

    gate_reason: int
    reason: int
    settled_reason: int
    note: int
    variant: int = 40
    unscored: int
    unscored_items: int

    @classmethod
    def uniform(cls, chars: int) -> VerdictBounds:
        """Every reason and note bounded alike, reasons before awards (the v2 layout)."""
        return cls(gate_reason=chars, reason=chars, settled_reason=chars, note=chars, unscored=80, unscored_items=2)


BOUNDS = {
    "judge_pointwise_v2": VerdictBounds.uniform(100),
    # A clause where the award settles it, a sentence where it is partial: 10-20 tokens.
    "judge_pointwise_v3": VerdictBounds(
        gate_reason=60, reason=80, settled_reason=40, note=60, unscored=60, unscored_items=1
    ),
}


def _text(limit: int) -> dict[str, Any]:
    return {"type": "string", "maxLength": limit}


def _ids(ids: list[Any]) -> dict[str, Any]:
    """A short list of distinct values from ``ids`` (an empty list when there are none)."""
    if not ids:
        return {"type": "array", "maxItems": 0}
    return {"type": "array", "items": {"enum": ids}, "maxItems": len(ids)}


def _award(awards: list[int], reason: int, *, award_first: bool) -> dict[str, Any]:
    pair = {"awarded": {"enum": awards}, "reason": _text(reason)}
    order = ["awarded", "reason"] if award_first else ["reason", "awarded"]
    return {
        "type": "object",
        "properties": {key: pair[key] for key in order},
        "required": order,
        "additionalProperties": False,
    }


def component_schema(component: Component, bounds: VerdictBounds) -> dict[str, Any]:
    """One component's verdict: its award (0..maximum) and a reason bounded by it."""
    top = int(component.points)
    if bounds.settled_reason == bounds.reason:
        return _award(list(range(top + 1)), bounds.reason, award_first=False)
    settled = sorted({0, top})
    partial = list(range(1, top))
    if not partial:
        return _award(settled, bounds.settled_reason, award_first=True)
    return {
        "anyOf": [
            _award(settled, bounds.settled_reason, award_first=True),
            _award(partial, bounds.reason, award_first=True),
        ]
    }


def verdict_schema(question: Question, bounds: VerdictBounds = BOUNDS["judge_pointwise_v3"]) -> dict[str, Any]:
    components = {c.id: component_schema(c, bounds) for c in question.components}
    scored = [c.id for c in question.components if not c.is_gate]
    properties: dict[str, Any] = {
        "gate_reason": _text(bounds.gate_reason),
        "gate_passed": {"type": "boolean"},
        "components": {
            "type": "object",
            "properties": components,
            "required": list(components),
            "additionalProperties": False,
        },
        "contradicted": _ids(scored),
        "do_not_credit_hits": _ids(list(range(len(question.do_not_credit)))),
        "do_not_credit_components": _ids(scored) if question.do_not_credit else _ids([]),
        "accepted_variant_used": _text(bounds.variant),
        "demonstrated_but_unscored": {
            "type": "array",
            "items": _text(bounds.unscored),
            "maxItems": bounds.unscored_items,
        },
        "adjudication_note": _text(bounds.note),
        "adjudication_required": {"type": "boolean"},
    }
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def pairwise_schema(*, reason_chars: int = PAIR_REASON_CHARS) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"reason": _text(reason_chars), "verdict": {"enum": list(TOKENS)}},
        "required": ["reason", "verdict"],
        "additionalProperties": False,
    }
