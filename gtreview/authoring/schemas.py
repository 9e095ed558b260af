"""JSON schemas each drafting stage's reply is constrained to.

Written by hand rather than generated from the pydantic models because they carry what
the grammar of a local model needs and a model-generated schema would not: ``enum``
for every bounded integer (llama.cpp ignores ``minimum``/``maximum``), ``enum`` for
the document names and authority keys a claim may cite (so a claim cannot name a file
that was not shown), and ``maxLength``/``maxItems`` from :class:`SchemaLimits` so a
runaway model cannot fill the context. Tests use tiny limits to keep a random model
fast; real drafting uses generous ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from gtreview.authoring.models import ADMISSION_RULES


class SchemaLimits(BaseModel):
    """Bounds written into the schemas (characters and list lengths)."""

    model_config = ConfigDict(frozen=True)

    short_text: int = Field(default=240, ge=1)  # titles, topics, locators, list items
    long_text: int = Field(default=2400, ge=1)  # principles, answers, fixture responses
    max_claims: int = Field(default=6, ge=1)
    max_list: int = Field(default=6, ge=1)  # concepts, variants, do-not-credit, evidence
    max_conflicts: int = Field(default=2, ge=0)


def _text(limit: int) -> dict[str, Any]:
    return {"type": "string", "maxLength": limit}


def _list(items: dict[str, Any], low: int, high: int) -> dict[str, Any]:
    return {"type": "array", "items": items, "minItems": low, "maxItems": max(low, high)}


def _object(properties: dict[str, Any]) -> dict[str, Any]:
    """Every key required (an optional one is an empty string): strict structured-output
    modes (OpenAI-compatible servers) reject schemas with optional properties."""
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def _enum(values: Sequence[Any]) -> dict[str, Any]:
    return {"enum": list(dict.fromkeys(values))}


def _source(documents: Sequence[str], limits: SchemaLimits) -> dict[str, Any]:
    return _enum(documents) if documents else _text(limits.short_text)


def card_schema(documents: Sequence[str], authority_keys: Sequence[str], limits: SchemaLimits) -> dict[str, Any]:
    source = _source(documents, limits)
    value = _object(
        {
            "value": _text(limits.short_text),
            "source": source,
            "locator": _text(limits.short_text),
            "authority": _enum(authority_keys),
        }
    )
    claim = _object(
        {
            "claim": _text(limits.long_text),
            "source": source,
            "locator": _text(limits.short_text),
            "authority": _enum(authority_keys),
        }
    )
    conflict = _object({"subject": _text(limits.short_text), "values": _list(value, 2, 4)})
    return _object(
        {
            "topic": _text(limits.short_text),
            "principle": _text(limits.long_text),
            "claims": _list(claim, 1, limits.max_claims),
            "conflicts": _list(conflict, 0, limits.max_conflicts),
        }
    )


def question_schema(limits: SchemaLimits) -> dict[str, Any]:
    check = _object({"passed": {"type": "boolean"}, "note": _text(limits.short_text)})
    return _object(
        {
            "title": _text(limits.short_text),
            "question": _text(limits.long_text),
            "type": _text(limits.short_text),
            "difficulty": _enum(["Easy", "Moderate", "Hard", "Expert"]),
            "subparts": _list(_text(limits.short_text), 0, 4),
            "source_scope": _text(limits.short_text),
            "self_check": _object({key: check for key in ADMISSION_RULES}),
        }
    )


def rubric_schema(documents: Sequence[str], authority_keys: Sequence[str], limits: SchemaLimits) -> dict[str, Any]:
    short, long = _text(limits.short_text), _text(limits.long_text)
    component_ids = [f"C{n}" for n in range(1, 7)]
    component = _object({"id": _enum(component_ids), "points": _enum(range(1, 9)), "credit_if": long})
    award = _object({"id": _enum(component_ids), "awarded": _enum(range(11))})
    fixture = _object(
        {
            "response_text": long,
            "expected_gate_passed": {"type": "boolean"},
            "expected_component_awards": _list(award, 2, 6),
            "expected_total": _enum(range(11)),
            "rationale": short,
        }
    )
    evidence = _object(
        {
            "claim": long,
            "source": _source(documents, limits),
            "locator": short,
            "authority": _enum(authority_keys),
            "confidence": _enum(["HIGH", "MEDIUM", "LOW"]),
            "notes": short,
        }
    )
    variant = _object({"canonical": short, "accepted_variants": short, "note": short})
    return _object(
        {
            "model_answer": long,
            "principle": long,
            "gate": _object({"points": _enum([2, 3, 4]), "pass_condition": long, "fail_examples": _list(short, 1, 3)}),
            "components": _list(component, 2, 6),
            "required_concepts": _list(short, 1, limits.max_list),
            "accepted_variants": _list(variant, 0, limits.max_list),
            "indicative_terms": _list(short, 0, limits.max_list),
            "do_not_credit": _list(short, 1, limits.max_list),
            "evidence": _list(evidence, 1, limits.max_list),
            "calibration": _list(fixture, 3, 4),
        }
    )


def critique_schema(evidence_count: int, limits: SchemaLimits) -> dict[str, Any]:
    verdict = _object(
        {
            "index": _enum(range(max(evidence_count, 1))),
            "verdict": _enum(["supported", "partly_supported", "unsupported"]),
            "note": _text(limits.short_text),
        }
    )
    return _object(
        {
            "evidence": _list(verdict, evidence_count, evidence_count),
            "answer_faithful": {"type": "boolean"},
            "problems": _list(_text(limits.short_text), 0, 5),
        }
    )
