"""JSON written in the layout a file came in.

Rubric files reach gtreview in more than one layout: the harness's sample (two-space
indentation, short award objects on one line), the authoring skill's compact one
(components, variants and string lists on one line each), plain ``json.dumps`` with
any indentation, one line, CRLF line ends. ``detect_layout`` reads how a file is laid
out, and ``dumps_in_layout`` writes a value the same way: each object or array on one
line where the file had the objects or arrays at that place (list positions alike) on
one line, spread over lines where the file spread them, and by the file's own width
where it did both; places the file did not have follow its widest one-line object or
array. A value read from a file and written in its layout gives the file back.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

Pattern = tuple[str, ...]  # a place in the document: keys, "*" for any list position
_WS = " \t\r\n"
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")
_NON_ASCII_ESCAPE = re.compile(r"\\u(?:00[89a-fA-F][0-9a-fA-F]|0[1-9a-fA-F][0-9a-fA-F]{2}|[1-9a-fA-F][0-9a-fA-F]{3})")


@dataclass
class Place:
    """How the file wrote the non-empty containers at one place."""

    is_array: bool = False
    inline: int = 0
    block: int = 0
    widest_inline: int = 0


@dataclass
class JsonLayout:
    indent: str | None = "  "  # None: the whole document on one line
    newline: str = "\n"
    final_newline: bool = True
    bom: bool = False
    ensure_ascii: bool = False
    key_sep: str = ": "
    item_sep: str = ", "  # between the items of a one-line container
    object_pad: str = " "  # inside the braces of a one-line object
    array_pad: str = ""
    places: dict[Pattern, Place] = field(default_factory=dict)
    object_width: int | None = None  # places the file did not have: one line up to this width
    array_width: int | None = None


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.layout = JsonLayout(indent=None)
        self.seen_key_sep = self.seen_item_sep = self.seen_object_pad = self.seen_array_pad = False

    def skip(self, i: int) -> int:
        while i < len(self.text) and self.text[i] in _WS:
            i += 1
        return i

    def string_end(self, i: int) -> int:
        i += 1
        while self.text[i] != '"':
            i += 2 if self.text[i] == "\\" else 1
        return i + 1

    def value(self, i: int, path: Pattern) -> int:
        c = self.text[i]
        if c == '"':
            return self.string_end(i)
        if c in "{[":
            return self.container(i, path)
        for word in ("true", "false", "null"):
            if self.text.startswith(word, i):
                return i + len(word)
        match = _NUMBER.match(self.text, i)
        if match is None:
            raise ValueError(f"not JSON at offset {i}")
        return match.end()

    def container(self, start: int, path: Pattern) -> int:
        is_object = self.text[start] == "{"
        close = "}" if is_object else "]"
        i = self.skip(start + 1)
        if self.text[i] == close:
            return i + 1
        pad_open = self.text[start + 1 : i]
        while True:
            if is_object:
                key_end = self.string_end(i)
                key = json.loads(self.text[i:key_end])
                value_start = self.skip(self.skip(key_end) + 1)
                if not self.seen_key_sep:
                    self.layout.key_sep, self.seen_key_sep = self.text[key_end:value_start], True
                i = self.value(value_start, (*path, key))
            else:
                i = self.value(i, (*path, "*"))
            after = self.skip(i)
            if self.text[after] == close:
                break
            following = self.skip(after + 1)
            if "\n" not in self.text[i:following] and not self.seen_item_sep:
                self.layout.item_sep, self.seen_item_sep = self.text[i:following], True
            i = following
        end = after + 1
        written = self.text[start:end]
        place = self.layout.places.setdefault(path, Place(is_array=not is_object))
        if "\n" in written:
            place.block += 1
        else:
            place.inline += 1
            place.widest_inline = max(place.widest_inline, len(written))
            if is_object and not self.seen_object_pad:
                self.layout.object_pad, self.seen_object_pad = pad_open, True
            elif not is_object and not self.seen_array_pad:
                self.layout.array_pad, self.seen_array_pad = pad_open, True
        return end


def detect_layout(text: str) -> JsonLayout:
    """How ``text`` (a JSON document) is laid out; raises ValueError when it is not JSON."""
    json.loads(text.removeprefix("\ufeff"))
    scanner = _Scanner(text)
    layout = scanner.layout
    layout.bom = text.startswith("\ufeff")
    body = text.removeprefix("\ufeff")
    layout.newline = "\r\n" if "\r\n" in body else "\n"
    layout.final_newline = body.endswith(layout.newline)
    layout.ensure_ascii = not any(ord(c) > 127 for c in body) and bool(_NON_ASCII_ESCAPE.search(body))
    start = scanner.skip(1 if layout.bom else 0)
    scanner.value(start, ())
    if text[start] in "{[":
        first = scanner.skip(start + 1)
        opening = text[start + 1 : first]
        if "\n" in opening:
            layout.indent = opening.rsplit("\n", 1)[1]
    widths = {True: 0, False: 0}
    for path, place in layout.places.items():
        if place.inline and path:
            widths[place.is_array] = max(widths[place.is_array], place.widest_inline)
    layout.object_width = widths[False] or None
    layout.array_width = widths[True] or None
    if layout.indent is None:
        layout.places = {}
    return layout


def dumps_in_layout(value: Any, layout: JsonLayout) -> str:
    out: list[str] = []
    _write(value, (), 0, layout, out)
    text = "".join(out) + (layout.newline if layout.final_newline else "")
    return ("\ufeff" if layout.bom else "") + text


def _scalar(value: Any, layout: JsonLayout) -> str:
    return json.dumps(value, ensure_ascii=layout.ensure_ascii)


def _one_line(value: Any, layout: JsonLayout) -> str:
    if isinstance(value, dict):
        if not value:
            return "{}"
        body = layout.item_sep.join(
            _scalar(k, layout) + layout.key_sep + _one_line(v, layout) for k, v in value.items()
        )
        return "{" + layout.object_pad + body + layout.object_pad + "}"
    if isinstance(value, list):
        if not value:
            return "[]"
        return (
            "[" + layout.array_pad + layout.item_sep.join(_one_line(v, layout) for v in value) + layout.array_pad + "]"
        )
    return _scalar(value, layout)


def _on_one_line(value: dict[str, Any] | list[Any], path: Pattern, line: str, layout: JsonLayout) -> bool:
    if layout.indent is None:
        return True
    place = layout.places.get(path)
    if place is not None and (place.inline or place.block):
        if not place.block:
            return True
        if not place.inline:
            return False
        return len(line) <= place.widest_inline
    children = value.values() if isinstance(value, dict) else value
    width = layout.array_width if isinstance(value, list) else layout.object_width
    flat = all(not isinstance(c, dict | list) for c in children)
    return width is not None and flat and len(line) <= width


def _write(value: Any, path: Pattern, depth: int, layout: JsonLayout, out: list[str]) -> None:
    if not isinstance(value, dict | list) or not value:
        out.append(_one_line(value, layout))
        return
    line = _one_line(value, layout)
    if _on_one_line(value, path, line, layout):
        out.append(line)
        return
    assert layout.indent is not None
    inner = layout.newline + layout.indent * (depth + 1)
    items = list(value.items()) if isinstance(value, dict) else list(enumerate(value))
    out.append("{" if isinstance(value, dict) else "[")
    for position, (key, item) in enumerate(items):
        out.append(inner)
        if isinstance(value, dict):
            out.append(_scalar(key, layout) + layout.key_sep)
        _write(item, (*path, key if isinstance(value, dict) else "*"), depth + 1, layout, out)
        if position < len(items) - 1:
            out.append(",")
    out.append(layout.newline + layout.indent * depth + ("}" if isinstance(value, dict) else "]"))
