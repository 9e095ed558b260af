"""Checking grader-contract records from elsewhere (a human, another harness).

Recomputes each record's total by gtreview's rules and lists every way the record
breaks the contract. A total that cannot be computed (no usable gate flag, an award
that is not a whole number, an unknown question) is None.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from gtreview.core.rubric import TOTAL_POINTS, Question
from gtreview.core.validation import is_int

RULE_RECORD = "a grader record names its question, a gate flag and a component list"
RULE_COMPONENTS = "every component of the question is awarded once, with the rubric's maximum"
RULE_WHOLE = "awards are whole numbers within 0..maximum"
RULE_GATE_FAIL = "a failed gate scores 0 and awards nothing"
RULE_GATE_PASS = "a passed gate earns its full points"
RULE_TOTAL = "the total is the sum of the awards (at most 10)"


class RecordCheck(BaseModel):
    question_id: str | None
    fixture_id: str | None = None
    total: int | None
    stated_total: Any = None
    violations: list[str] = Field(default_factory=list)
    rules: list[str] = Field(default_factory=list, exclude=True)  # the rules the violations break, each once

    def broke(self, rule: str, violation: str) -> None:
        self.violations.append(violation)
        if rule not in self.rules:
            self.rules.append(rule)


def check_record(record: Any, questions: dict[str, Question]) -> RecordCheck:
    if not isinstance(record, dict):
        return RecordCheck(
            question_id=None, total=None, violations=["the record is not a JSON object"], rules=[RULE_RECORD]
        )
    qid = record.get("question_id")
    check = RecordCheck(
        question_id=qid if isinstance(qid, str) else None,
        fixture_id=record.get("fixture_id") if isinstance(record.get("fixture_id"), str) else None,
        total=None,
        stated_total=record.get("total"),
    )
    question = questions.get(qid) if isinstance(qid, str) else None
    if question is None:
        check.broke(RULE_RECORD, f"unknown question id {qid!r}")
        return check
    gate_passed = record.get("gate_passed")
    if not isinstance(gate_passed, bool):
        check.broke(RULE_RECORD, "gate_passed is not true or false")
    components = record.get("components")
    if not isinstance(components, list):
        check.broke(RULE_RECORD, "components is not a list")
        components = []
    maxima = {c.id: int(c.points) for c in question.components}
    gate_id = next((c.id for c in question.components if c.is_gate), None)
    awards: dict[str, int] = {}
    computable = isinstance(gate_passed, bool)
    for entry in components:
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
            check.broke(RULE_COMPONENTS, "a component entry has no id")
            continue
        cid, value = entry["id"], entry.get("awarded")
        if cid not in maxima:
            check.broke(RULE_COMPONENTS, f"unknown component {cid}")
            continue
        if cid in awards:
            check.broke(RULE_COMPONENTS, f"component {cid} appears more than once")
            continue
        if not is_int(value):
            check.broke(RULE_WHOLE, f"{cid} award {value!r} is not a whole number")
            computable = False
            continue
        if value < 0 or value > maxima[cid]:
            check.broke(RULE_WHOLE, f"{cid} award {value} is outside 0..{maxima[cid]}")
        if "maximum" in entry and entry["maximum"] != maxima[cid]:
            check.broke(RULE_COMPONENTS, f"{cid} maximum {entry['maximum']!r} differs from the rubric's {maxima[cid]}")
        awards[cid] = value
    for cid in maxima:
        if cid not in awards and not any(isinstance(e, dict) and e.get("id") == cid for e in components):
            check.broke(RULE_COMPONENTS, f"component {cid} is missing")
    if gate_passed is False and any(v != 0 for v in awards.values()):
        nonzero = ", ".join(cid for cid, v in awards.items() if v != 0)
        check.broke(RULE_GATE_FAIL, f"the gate failed but {nonzero} award points")
    if gate_passed is True and gate_id in awards and awards[gate_id] != maxima[gate_id]:
        check.broke(RULE_GATE_PASS, f"partial gate: {gate_id} awarded {awards[gate_id]} of {maxima[gate_id]}")
    if computable:
        if gate_passed is False:
            check.total = 0
        else:
            clamped = {cid: max(0, min(maxima[cid], v)) for cid, v in awards.items()}
            if gate_id is not None:
                clamped[gate_id] = maxima[gate_id]
            check.total = min(TOTAL_POINTS, sum(clamped.values()))
        stated = record.get("total")
        if "total" not in record:
            check.broke(RULE_TOTAL, "the record states no total")
        elif stated != check.total:
            check.broke(RULE_TOTAL, f"stated total {stated!r} but the rules give {check.total}")
    return check
