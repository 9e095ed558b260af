"""Addressing values inside a JSON document by a tuple path (``("gate", "points")``).

The editor records each change as (path, old value, new value), which makes every
edit independent of the others and trivially undoable.
"""

from __future__ import annotations

import copy
from typing import Any

Path = tuple[str | int, ...]

_MISSING = object()


def get_at(document: Any, path: Path, default: Any = None) -> Any:
    node = document
    for key in path:
        if isinstance(key, int) and isinstance(node, list) and -len(node) <= key < len(node):
            node = node[key]
        elif isinstance(key, str) and isinstance(node, dict) and key in node:
            node = node[key]
        else:
            return default
    return node


def set_at(document: dict[str, Any], path: Path, value: Any) -> dict[str, Any]:
    """A deep copy of ``document`` with ``path`` set (missing objects are created).

    Setting a value to ``MISSING`` removes the key, so "the key was absent" can be
    restored by undo without inventing ``null``.
    """
    if not path:
        raise ValueError("an empty path addresses the whole document")
    result = copy.deepcopy(document)
    node: Any = result
    for key in path[:-1]:
        if isinstance(node, dict):
            node = node.setdefault(key, {})
        else:
            node = node[key]
    last = path[-1]
    if value is MISSING:
        if isinstance(node, dict):
            node.pop(last, None)
        return result
    node[last] = copy.deepcopy(value)
    return result


MISSING: Any = _MISSING


def json_path(path: Path) -> str:
    """The JSONPath string the validator uses for ``path`` (``$.gate.points``)."""
    return "$" + "".join(f"[{key}]" if isinstance(key, int) else f".{key}" for key in path)
