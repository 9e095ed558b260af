"""JSON text in the layout the Groundtruth harness writes, and JSON read safely.

Two-space indentation with short flat objects (component awards) kept on one line,
so that a file read and written back by gtreview diffs cleanly against the original.
:func:`loads_json` is ``json.loads`` for files a user names: a document nested deeper
than any real one is a ``JSONDecodeError`` (as bad syntax is), never a RecursionError
here or later in code that walks the value.
"""

from __future__ import annotations

import json
import math
import re
import sys
from typing import Any

INLINE_LIMIT = 48
MAX_JSON_DEPTH = 200
"""Deepest nesting accepted; Groundtruth files nest about six levels."""


def loads_json(text: str | bytes, *, allow_nan: bool = True) -> Any:
    """Parse a JSON document a user gave; what later code could not handle is a JSONDecodeError.

    Refused: nesting deeper than :data:`MAX_JSON_DEPTH`, integers longer than Python
    converts from text (4,300 digits by default), strings with an unpaired
    surrogate escape (no UTF-8 file or database can hold them) and, unless
    ``allow_nan``, NaN, Infinity and numbers too big for a float (exported as null).
    """
    document = text.decode("utf-8-sig") if isinstance(text, bytes) else text

    def refuse_constant(name: str) -> Any:
        raise json.JSONDecodeError(f"{name} is not a JSON number", document, document.find(name))

    try:
        value = json.loads(document, parse_constant=None if allow_nan else refuse_constant)
    except RecursionError:
        raise json.JSONDecodeError(f"nested deeper than {MAX_JSON_DEPTH} levels", document, 0) from None
    except json.JSONDecodeError:
        raise
    except ValueError:  # int() refused a number longer than Python converts (not a JSONDecodeError)
        raise _too_long_a_number(document) from None
    problem = _first_problem(value, allow_nan=allow_nan)
    if problem:
        raise json.JSONDecodeError(problem, document, 0)
    return value


def _too_long_a_number(document: str) -> json.JSONDecodeError:
    limit = sys.get_int_max_str_digits()
    found = re.search(rf"\d{{{limit + 1},}}", document) if limit else None
    if found is None:
        return json.JSONDecodeError("a number too long to read", document, 0)
    return json.JSONDecodeError(
        f"a number of {len(found.group()):,} digits (at most {limit:,})", document, found.start()
    )


def _first_problem(value: Any, *, allow_nan: bool) -> str | None:
    # Iterative, so that walking a deep value cannot itself run out of stack.
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            if not item.isascii() and not _encodable(item):
                return "a string holds an unpaired surrogate escape (\\ud800-\\udfff), which is not text"
        elif isinstance(item, float):
            if not allow_nan and not math.isfinite(item):
                return f"{item} is not a finite JSON number"
        elif isinstance(item, dict | list):
            if depth >= MAX_JSON_DEPTH:
                return f"nested deeper than {MAX_JSON_DEPTH} levels"
            if isinstance(item, dict):
                stack.extend((key, depth) for key in item)
                stack.extend((child, depth + 1) for child in item.values())
            else:
                stack.extend((child, depth + 1) for child in item)
    return None


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def _inline_object(value: dict[str, Any]) -> str | None:
    if not value or not all(_scalar(v) for v in value.values()):
        return None
    body = ", ".join(
        f"{json.dumps(k, ensure_ascii=False)}: {json.dumps(v, ensure_ascii=False)}" for k, v in value.items()
    )
    text = "{ " + body + " }"
    return text if len(text) <= INLINE_LIMIT else None


def _write(value: Any, indent: int, out: list[str]) -> None:
    pad = "  " * indent
    inner = "  " * (indent + 1)
    if isinstance(value, dict):
        inline = _inline_object(value)
        if inline is not None:
            out.append(inline)
            return
        if not value:
            out.append("{}")
            return
        out.append("{\n")
        for position, (key, item) in enumerate(value.items()):
            out.append(f"{inner}{json.dumps(key, ensure_ascii=False)}: ")
            _write(item, indent + 1, out)
            out.append(",\n" if position < len(value) - 1 else "\n")
        out.append(pad + "}")
    elif isinstance(value, list):
        if not value:
            out.append("[]")
            return
        out.append("[\n")
        for position, item in enumerate(value):
            out.append(inner)
            _write(item, indent + 1, out)
            out.append(",\n" if position < len(value) - 1 else "\n")
        out.append(pad + "]")
    else:
        out.append(json.dumps(value, ensure_ascii=False))


def dumps_harness_json(value: Any) -> str:
    """Serialise ``value`` as the harness lays out its files, with a final newline."""
    out: list[str] = []
    _write(value, 0, out)
    out.append("\n")
    return "".join(out)
