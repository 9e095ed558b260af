"""JSON text in the layout the Groundtruth harness writes.

Two-space indentation with short flat objects (component awards) kept on one line,
so that a file read and written back by gtreview diffs cleanly against the original.
"""

from __future__ import annotations

import json
from typing import Any

INLINE_LIMIT = 48


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
