"""Schema -> grammar repairs: bounded integers become enums, strings exclude control chars."""

from __future__ import annotations

import json

import pytest

from gtreview.inference.json_grammar import SchemaGrammarError, bound_integers, schema_to_gbnf


def test_small_integer_ranges_become_enums() -> None:
    schema = {
        "type": "object",
        "properties": {
            "awarded": {"type": "integer", "minimum": 0, "maximum": 3},
            "open": {"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 3},
            "wide": {"type": "integer", "minimum": 0, "maximum": 10_000},
            "half": {"type": "integer", "minimum": 0},
            "type": {"type": "string"},
        },
    }
    bounded = bound_integers(schema)
    props = bounded["properties"]
    assert props["awarded"]["enum"] == [0, 1, 2, 3]
    assert props["open"]["enum"] == [1, 2]
    assert "enum" not in props["wide"] and "enum" not in props["half"]
    assert "enum" not in schema["properties"]["awarded"]  # the input is not modified


def test_nested_integers_are_bounded_too() -> None:
    schema = {"type": "array", "items": {"anyOf": [{"type": "integer", "minimum": 1, "maximum": 2}, {"type": "null"}]}}
    assert bound_integers(schema)["items"]["anyOf"][0]["enum"] == [1, 2]


def test_grammar_has_enum_and_strict_strings() -> None:
    grammar = schema_to_gbnf(
        {
            "type": "object",
            "properties": {"awarded": {"type": "integer", "minimum": 0, "maximum": 2}, "reason": {"type": "string"}},
            "required": ["awarded", "reason"],
        }
    )
    assert '"0" | "1" | "2"' in grammar
    char_rule = next(line for line in grammar.splitlines() if line.startswith("char ::="))
    assert "\\x00-\\x1F" in char_rule


def test_unsupported_schema_raises_a_clear_error() -> None:
    with pytest.raises(SchemaGrammarError, match="unsupported JSON schema"):
        schema_to_gbnf({"$ref": "#/definitions/missing"})


def test_grammar_writes_compact_json() -> None:
    """No optional space after a brace, key, colon or value: the text between two values
    is fixed, so the engine can feed it in one step (llama.jump_forward)."""
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    schema = {"type": "object", "properties": {"a": {"type": "boolean"}}, "required": ["a"]}
    assert 'space ::= " "?' in json_schema_to_gbnf(json.dumps(schema)).splitlines()  # what is replaced
    lines = schema_to_gbnf(schema).splitlines()
    assert 'space ::= ""' in lines
    assert not any(line.startswith("space ::=") and line != 'space ::= ""' for line in lines)
