"""JSON schemas the judge's reply is constrained to, built from one question's rubric.

The schema goes with the prompt template version (``judge_pointwise_v2``,
``judge_pairwise_v2``). Two choices keep a local judge fast and its verdicts sound:

* **reason before decision**: every string that explains comes before the value it
  explains (``gate_reason`` before ``gate_passed``, a component's ``reason`` before its
  ``awarded``, the pairwise ``reason`` before the ``verdict``). Properties are emitted
  in schema order, so the judge writes its explanation first and decides after it;
* **short by design**: reasons are one sentence (``REASON_CHARS``), and the per-component
  flags are two lists of component ids at the top level rather than two booleans in
  every component, so a verdict for a four-component question is about 150-250 tokens,
  not 750. String lengths are bounded so a runaway judge cannot fill the context.

Every component id is a required key and its award an ``enum`` of 0..maximum (the
llama.cpp grammar honours enum but not integer bounds).
"""

from __future__ import annotations

from typing import Any

from gtreview.core.pairwise import TOKENS
from gtreview.core.rubric import Question

REASON_CHARS = 100  # one sentence: what a real judge writes, about 20-30 tokens
PAIR_REASON_CHARS = 200
VARIANT_CHARS = 40
UNSCORED_CHARS = 80


def _text(limit: int) -> dict[str, Any]:
    return {"type": "string", "maxLength": limit}


def _ids(ids: list[Any]) -> dict[str, Any]:
    """A short list of distinct values from ``ids`` (an empty list when there are none)."""
    if not ids:
        return {"type": "array", "maxItems": 0}
    return {"type": "array", "items": {"enum": ids}, "maxItems": len(ids)}


def verdict_schema(question: Question, *, reason_chars: int = REASON_CHARS) -> dict[str, Any]:
    components = {
        c.id: {
            "type": "object",
            "properties": {"reason": _text(reason_chars), "awarded": {"enum": list(range(int(c.points) + 1))}},
            "required": ["reason", "awarded"],
            "additionalProperties": False,
        }
        for c in question.components
    }
    scored = [c.id for c in question.components if not c.is_gate]
    properties: dict[str, Any] = {
        "gate_reason": _text(reason_chars),
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
        "accepted_variant_used": _text(VARIANT_CHARS),
        "demonstrated_but_unscored": {"type": "array", "items": _text(UNSCORED_CHARS), "maxItems": 2},
        "adjudication_note": _text(reason_chars),
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
