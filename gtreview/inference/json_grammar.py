"""JSON schema -> GBNF grammar for llama.cpp's grammar sampler, with three repairs.

llama-cpp-python 0.3.36's ``json_schema_to_gbnf`` (checked here) has three gaps that
matter to judging:

* it ignores integer ``minimum``/``maximum`` (a random model wrote an award of 982),
  but honours ``enum``, so a small bounded integer range is rewritten as an ``enum``;
* its string ``char`` rule admits raw control characters, which strict ``json.loads``
  rejects, so the rule is replaced with the one upstream llama.cpp uses, which
  excludes U+0000..U+001F and U+007F (they can still be written as ``\\u`` escapes);
* its ``space`` rule lets an optional space follow every brace, key, colon and value, so
  the text between two values is never fixed; the rule is made empty (compact JSON,
  as ``json.dumps(..., separators=(",", ":"))`` writes it): a key and its punctuation are
  then one run of forced characters, which the engine feeds in one step
  (``llama.jump_forward``).

The program validates every reply anyway; the grammar only makes a valid reply likely.
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Mapping
from typing import Any

# Integer ranges up to this many values become an enum; wider ones stay unbounded.
MAX_ENUM_RANGE = 256

_LOOSE_CHAR = 'char ::= [^"\\\\] |'
_STRICT_CHAR = 'char ::= [^"\\\\\\x7F\\x00-\\x1F] |'
_OPTIONAL_SPACE = 'space ::= " "?'
_NO_SPACE = 'space ::= ""'


class SchemaGrammarError(ValueError):
    """The JSON schema could not be turned into a grammar."""


def bound_integers(schema: Any) -> Any:
    """A copy of ``schema`` in which small bounded integer ranges are ``enum`` lists."""
    node = copy.deepcopy(schema)
    _bound_in_place(node)
    return node


def _bound_in_place(node: Any) -> None:
    if isinstance(node, list):
        for item in node:
            _bound_in_place(item)
        return
    if not isinstance(node, dict):
        return
    if node.get("type") == "integer" and "enum" not in node and "const" not in node:
        low = _bound(node, "minimum", "exclusiveMinimum", +1)
        high = _bound(node, "maximum", "exclusiveMaximum", -1)
        if low is not None and high is not None and 0 <= high - low < MAX_ENUM_RANGE:
            node["enum"] = list(range(low, high + 1))
    for value in node.values():
        _bound_in_place(value)


def _bound(node: Mapping[str, Any], inclusive: str, exclusive: str, step: int) -> int | None:
    """The inclusive integer bound, from either JSON-schema spelling (draft 6+ numbers)."""
    value = node.get(inclusive)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return math.ceil(value) if step > 0 else math.floor(value)
    value = node.get(exclusive)
    if isinstance(value, int | float) and not isinstance(value, bool):
        edge = math.floor(value) if step > 0 else math.ceil(value)
        return edge + step
    return None


def schema_to_gbnf(schema: Mapping[str, Any]) -> str:
    """The GBNF grammar (root rule ``root``) that constrains output to ``schema``."""
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    try:
        grammar = json_schema_to_gbnf(json.dumps(bound_integers(dict(schema))))
    except Exception as exc:
        raise SchemaGrammarError(f"unsupported JSON schema: {type(exc).__name__}: {exc}") from exc
    if not isinstance(grammar, str):
        raise SchemaGrammarError("the schema converter returned no grammar")
    return "\n".join(_repaired(line) for line in grammar.splitlines())


def _repaired(line: str) -> str:
    if line.startswith(_LOOSE_CHAR):
        return _STRICT_CHAR + line[len(_LOOSE_CHAR) :]
    return _NO_SPACE if line == _OPTIONAL_SPACE else line
