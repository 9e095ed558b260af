"""The llama.h bindings the engine uses are the ones it was checked against.

gtreview's engine calls llama.cpp through llama-cpp-python's ctypes bindings
(``llama_cpp.llama_decode`` and some sixty more). A ctypes signature is not checked at
call time: a release that adds a parameter or reorders a struct's fields makes every
call pass garbage, which shows as wrong output or a crash, not as an error. So
pyproject.toml pins the release, and this test compares every binding gtreview uses
(found by reading gtreview's source) with a snapshot taken on that release,
``llama_bindings.json``: argument and result types of each function, the fields of each
struct, the value of each constant. Another release, or a use of a binding that is not
in the snapshot, fails here with the differences.

After checking the engine against a new release, refresh the snapshot with
``python -m tests.inference.test_llama_bindings --write`` and update the pin.
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path
from typing import Any

import llama_cpp

REPO = Path(__file__).resolve().parents[2]
SNAPSHOT = Path(__file__).with_name("llama_bindings.json")


def used_names() -> set[str]:
    """Every ``llama_cpp.NAME`` gtreview's source refers to."""
    names: set[str] = set()
    for path in (REPO / "gtreview").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "llama_cpp":
                names.add(node.attr)
    return names


def _type_name(kind: Any) -> str:
    if kind is None:
        return "None"
    if isinstance(kind, type) and issubclass(kind, llama_cpp.ctypes.Structure):
        return f"struct {kind.__name__}"
    return str(getattr(kind, "__name__", repr(kind)))


def _struct(kind: type) -> dict[str, Any]:
    fields = [[name, _type_name(field_type)] for name, field_type, *_ in getattr(kind, "_fields_", [])]
    return {"struct": kind.__name__, "size": llama_cpp.ctypes.sizeof(kind), "fields": fields}


def signature(name: str) -> Any:
    """What a binding looks like, as plain data comparable across releases."""
    value = getattr(llama_cpp, name, None)
    value = getattr(value, "binding", value)  # the test plugin's guard wraps a few entry points
    if value is None:
        return None
    if name == "__version__":
        return {"version": value}
    if isinstance(value, int | float | str | bytes):
        return {"constant": value if not isinstance(value, bytes) else value.decode("latin-1")}
    if isinstance(value, type) and issubclass(value, llama_cpp.ctypes.Structure):
        return _struct(value)
    if isinstance(value, type) and hasattr(value, "_argtypes_"):  # a callback prototype
        return {"callback": [_type_name(a) for a in value._argtypes_], "result": _type_name(value._restype_)}
    if isinstance(value, type):  # a pointer type
        target = getattr(value, "_type_", None)
        return {"type": value.__name__, "points_to": _type_name(target) if isinstance(target, type) else None}
    if hasattr(value, "argtypes"):
        arguments = [_type_name(a) for a in (value.argtypes or [])]
        return {"arguments": arguments, "result": _type_name(value.restype)}
    return {"callable": callable(value)}


def current() -> dict[str, Any]:
    return {name: signature(name) for name in sorted(used_names())}


def test_every_binding_gtreview_uses_is_as_the_engine_was_checked_against() -> None:
    snapshot = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    now = current()
    unknown = sorted(set(now) - set(snapshot))
    assert not unknown, f"bindings used but not in {SNAPSHOT.name} (check them, then --write): {unknown}"
    changed = {name: {"checked": snapshot[name], "installed": now[name]} for name in now if now[name] != snapshot[name]}
    assert not changed, f"llama-cpp-python {llama_cpp.__version__} differs from the checked release: {changed}"


def test_the_snapshot_holds_the_pinned_release_and_the_structs_the_engine_passes() -> None:
    snapshot = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    pin = next(
        line
        for line in (REPO / "pyproject.toml").read_text(encoding="utf-8").splitlines()
        if line.strip().startswith('"llama-cpp-python==')
    )
    assert snapshot["__version__"]["version"] in pin
    # Structs passed by value are where a changed release does its worst: they are listed whole.
    assert {"llama_batch", "llama_context_params", "llama_model_params"} <= {
        v["struct"] for v in snapshot.values() if v and "struct" in v
    }


def test_a_changed_signature_is_reported(monkeypatch: Any) -> None:
    """The comparison sees a binding whose arguments changed (as a new release would)."""
    before = signature("llama_decode")
    monkeypatch.setattr(llama_cpp.llama_decode, "argtypes", [llama_cpp.ctypes.c_void_p])
    assert signature("llama_decode") != before


if __name__ == "__main__" and "--write" in sys.argv:
    data = current()
    # The structs the used functions take or return by value, whole.
    for kind in ("llama_batch", "llama_context_params", "llama_model_params", "llama_sampler_chain_params"):
        data.setdefault(kind, signature(kind))
    SNAPSHOT.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {len(data)} bindings of llama-cpp-python {llama_cpp.__version__} to {SNAPSHOT}")
