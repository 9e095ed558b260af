"""Turning rubric bytes into a JSON object, or one plain sentence saying why not.

These are the failures after which nothing else can be checked (exit status 2 of
``rubric validate``); everything past them is a finding.
"""

from __future__ import annotations

import json
from typing import Any

from gtreview.core.errors import UserError
from gtreview.core.jsonformat import loads_json
from gtreview.core.rubric import SCHEMA_VERSION

MAX_RUBRIC_BYTES = 32 * 1024 * 1024


class RubricReadError(UserError, ValueError):
    """The rubric cannot be read at all; the message is one line for the user."""


def parse_rubric_bytes(raw: bytes) -> dict[str, Any]:
    if len(raw) > MAX_RUBRIC_BYTES:
        raise RubricReadError(
            f"file is {len(raw) / 1e6:.1f} MB; rubric files over {MAX_RUBRIC_BYTES // (1024 * 1024)} MiB are refused"
        )
    if not raw.strip():
        raise RubricReadError("file is empty")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise RubricReadError(
            f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start}); re-save the file as UTF-8"
        ) from None
    try:
        # NaN and Infinity are refused: they are not JSON, and would be exported as null
        data = loads_json(text, allow_nan=False)
    except json.JSONDecodeError as exc:
        raise RubricReadError(f"not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None
    if not isinstance(data, dict):
        raise RubricReadError(f"the top level is a JSON {_json_type(data)}, not an object")
    if not data:
        raise RubricReadError("the rubric object is empty")
    version = data.get("schema_version")
    if version != SCHEMA_VERSION:
        shown = "missing" if version is None else json.dumps(version)
        raise RubricReadError(f'schema_version is {shown}; only "{SCHEMA_VERSION}" is supported')
    questions = data.get("questions")
    if not isinstance(questions, list) or not questions:
        raise RubricReadError('the rubric has no questions ("questions" must be a non-empty list)')
    return data


def _json_type(value: Any) -> str:
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return "null"
