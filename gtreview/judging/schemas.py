"""JSON schemas the judge's reply is constrained to, built from one question's rubric.

Every component id is a required key and its award an ``enum`` of 0..maximum (the
llama.cpp grammar honours enum but not integer bounds). String lengths are bounded
so a runaway judge cannot fill the context.
"""

from __future__ import annotations

from typing import Any

from gtreview.core.pairwise import TOKENS
from gtreview.core.rubric import Question


def _text(limit: int) -> dict[str, Any]:
    return {"type": "string", "maxLength": limit}


def verdict_schema(question: Question, *, reason_chars: int = 300) -> dict[str, Any]:
    components = {
        c.id: {
            "type": "object",
            "properties": {
                "awarded": {"enum": list(range(int(c.points) + 1))},
                "reason": _text(reason_chars),
                "contradiction": {"type": "boolean"},
                "do_not_credit_hit": {"type": "boolean"},
            },
            "required": ["awarded", "reason", "contradiction", "do_not_credit_hit"],
            "additionalProperties": False,
        }
        for c in question.components
    }
    hits: dict[str, Any] = {"type": "array", "items": {"enum": list(range(len(question.do_not_credit)))}, "maxItems": 5}
    if not question.do_not_credit:
        hits = {"type": "array", "maxItems": 0}
    properties: dict[str, Any] = {
        "gate_passed": {"type": "boolean"},
        "gate_reason": _text(reason_chars),
        "components": {
            "type": "object",
            "properties": components,
            "required": list(components),
            "additionalProperties": False,
        },
        "do_not_credit_hits": hits,
        "accepted_variant_used": _text(80),
        "demonstrated_but_unscored": {"type": "array", "items": _text(120), "maxItems": 3},
        "adjudication_required": {"type": "boolean"},
        "adjudication_note": _text(reason_chars),
    }
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def pairwise_schema(*, reason_chars: int = 400) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"reason": _text(reason_chars), "verdict": {"enum": list(TOKENS)}},
        "required": ["reason", "verdict"],
        "additionalProperties": False,
    }
