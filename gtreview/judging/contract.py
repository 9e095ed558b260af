"""Reading a judge's reply: valid against the contract, or the reason it is not.

The schema constrains what a judge can say, but servers and models do not always
honour it, so every reply is checked here before any arithmetic. Both reply shapes are
read: the v2 schema's top-level ``contradicted``/``do_not_credit_components`` lists and
the grader contract's per-component ``contradiction``/``do_not_credit_hit`` flags.
"""

from __future__ import annotations

import json
from typing import Any

from gtreview.core.grading import ComponentVerdict, JudgeVerdict
from gtreview.core.rubric import Question
from gtreview.core.validation import is_int


class ContractViolation(ValueError):
    """The reply breaks the judge contract; the message says how, in one line."""


def _json_object(text: str) -> dict[str, Any]:
    stripped = text.strip()
    if stripped.startswith("```"):  # a fenced reply from a chat model
        stripped = stripped.strip("`").removeprefix("json").strip()
    try:
        data = json.loads(stripped, strict=False)  # raw control characters inside strings are tolerated
    except json.JSONDecodeError as exc:
        raise ContractViolation(f"the reply is not valid JSON ({exc.msg} at character {exc.pos})") from None
    if not isinstance(data, dict):
        raise ContractViolation("the reply is not a JSON object")
    return data


def _bool(data: dict[str, Any], key: str, default: bool | None = None) -> bool:
    value = data.get(key, default)
    if not isinstance(value, bool):
        raise ContractViolation(f"{key} is not true or false")
    return value


def _str(data: dict[str, Any], key: str) -> str:
    value = data.get(key, "")
    if not isinstance(value, str):
        raise ContractViolation(f"{key} is not a string")
    return value


def _component_ids(data: dict[str, Any], key: str, expected: list[str]) -> set[str]:
    """A top-level list of component ids (the v2 schema's flags); absent means none."""
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) and v in expected for v in value):
        raise ContractViolation(f"{key} must list component ids of this question")
    return set(value)


def parse_verdict_reply(question: Question, text: str) -> JudgeVerdict:
    data = _json_object(text)
    gate_passed = _bool(data, "gate_passed")
    components = data.get("components")
    if isinstance(components, list):  # tolerate the grader-contract list shape
        components = {c.get("id"): c for c in components if isinstance(c, dict)}
    if not isinstance(components, dict):
        raise ContractViolation("components is missing or not an object")
    expected = [c.id for c in question.components]
    missing = [cid for cid in expected if cid not in components]
    if missing:
        raise ContractViolation(f"no verdict for {', '.join(missing)}")
    unknown = [str(cid) for cid in components if cid not in expected]
    if unknown:
        raise ContractViolation(f"verdicts for unknown components {', '.join(unknown)}")
    contradicted = _component_ids(data, "contradicted", expected)
    dnc_components = _component_ids(data, "do_not_credit_components", expected)
    verdicts = []
    for component in question.components:
        entry = components[component.id]
        if not isinstance(entry, dict):
            raise ContractViolation(f"the verdict for {component.id} is not an object")
        awarded = entry.get("awarded")
        if not is_int(awarded):
            raise ContractViolation(f"{component.id} award {awarded!r} is not a whole number")
        if not 0 <= awarded <= int(component.points):
            raise ContractViolation(f"{component.id} award {awarded} is outside 0..{component.points}")
        verdicts.append(
            ComponentVerdict(
                id=component.id,
                awarded=awarded,
                reason=_str(entry, "reason"),
                contradiction=_bool(entry, "contradiction", False) or component.id in contradicted,
                do_not_credit_hit=_bool(entry, "do_not_credit_hit", False) or component.id in dnc_components,
            )
        )
    hits = data.get("do_not_credit_hits", [])
    if not isinstance(hits, list) or not all(is_int(h) and 0 <= h < len(question.do_not_credit) for h in hits):
        raise ContractViolation("do_not_credit_hits must list do-not-credit item numbers")
    unscored = data.get("demonstrated_but_unscored", [])
    if not isinstance(unscored, list) or not all(isinstance(item, str) for item in unscored):
        raise ContractViolation("demonstrated_but_unscored must be a list of strings")
    return JudgeVerdict(
        gate_passed=gate_passed,
        gate_reason=_str(data, "gate_reason"),
        components=verdicts,
        do_not_credit_hits=hits,
        accepted_variant_used=_str(data, "accepted_variant_used"),
        demonstrated_but_unscored=unscored,
        adjudication_required=_bool(data, "adjudication_required", False),
        adjudication_note=_str(data, "adjudication_note"),
    )
