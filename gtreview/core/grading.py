"""The scoring arithmetic: from a judge's per-component verdicts to a total.

The judge only judges; this module computes. Rules (interop README and
ARCHITECTURE.md): a failed gate scores 0 with every award 0; passing the gate earns
the gate's full points; binary components are all or nothing; a contradiction zeroes
its component; do-not-credit hits take the effect their rubric text names; awards are
whole numbers within [0, maximum]; the total is their sum capped at 10.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field

from gtreview.core.rubric import TOTAL_POINTS, Component, Question

BINARY_MODES = frozenset({"binary", "determinate"})


class ComponentKind(StrEnum):
    GATE = "gate"
    BINARY = "binary"
    REASONING = "reasoning"


def component_kind(question: Question, component: Component) -> ComponentKind:
    """Gate, binary fact (all or nothing) or graduated reasoning.

    A component is binary when it says so (``"binary": true`` or ``"kind": "binary"``
    / ``"fact"``, kept as unknown keys) or when the whole question is in a binary mode.
    """
    if component.is_gate:
        return ComponentKind.GATE
    extra = component.model_extra or {}
    if extra.get("binary") is True or str(extra.get("kind", "")).lower() in {"binary", "fact"}:
        return ComponentKind.BINARY
    if (question.mode or "").strip().lower() in BINARY_MODES:
        return ComponentKind.BINARY
    return ComponentKind.REASONING


class DoNotCreditEffect(StrEnum):
    GATE_FAIL = "gate fail"
    ZERO = "zero component"
    HALF = "half component"
    FLAGGED = "zero flagged components"


_GATE_FAIL = re.compile(r"\b(?:gate[- ]fail|fails?\s+(?:the\s+)?(?:gate|C1)\b)", re.IGNORECASE)
_HALF = re.compile(r"\bhalf\s+of\s+(C\d+)", re.IGNORECASE)
_ZERO = re.compile(
    r"\b(?:loses?|not\s+earn|no\s+credit\s+(?:for|under)|zero(?:es)?)\s+(?:the\s+)?(C\d+)", re.IGNORECASE
)


def do_not_credit_effect(text: str) -> tuple[DoNotCreditEffect, str | None]:
    """What a do-not-credit item's own words say it costs (``Fails C1``, ``loses C2``,
    ``the (b) half of C3``); items that name nothing zero the components the judge flagged."""
    if _GATE_FAIL.search(text):
        return DoNotCreditEffect.GATE_FAIL, None
    if match := _HALF.search(text):
        return DoNotCreditEffect.HALF, match.group(1).upper()
    if match := _ZERO.search(text):
        return DoNotCreditEffect.ZERO, match.group(1).upper()
    return DoNotCreditEffect.FLAGGED, None


class ComponentVerdict(BaseModel):
    id: str
    awarded: int
    reason: str = ""
    contradiction: bool = False
    do_not_credit_hit: bool = False


class JudgeVerdict(BaseModel):
    """What a judge returns for one answer (already checked against the contract)."""

    gate_passed: bool
    gate_reason: str = ""
    components: list[ComponentVerdict]
    do_not_credit_hits: list[int] = Field(default_factory=list)
    accepted_variant_used: str = ""
    demonstrated_but_unscored: list[str] = Field(default_factory=list)
    adjudication_required: bool = False
    adjudication_note: str = ""


class AwardedComponent(BaseModel):
    id: str
    awarded: int
    maximum: int
    reason: str = ""


class GraderRecord(BaseModel):
    """The Groundtruth grader contract, plus how the program got from verdict to total."""

    question_id: str
    grader_id: str
    fixture_id: str | None = None
    scored_at: str = Field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))
    gate_passed: bool
    gate_reason: str = ""
    components: list[AwardedComponent]
    total: int
    demonstrated_but_unscored: list[str] = Field(default_factory=list)
    accepted_variant_used: str = ""
    adjudication_required: bool = False
    adjudication_note: str = ""
    adjustments: list[str] = Field(default_factory=list)

    def award(self, component_id: str) -> int | None:
        return next((c.awarded for c in self.components if c.id == component_id), None)


def _points(component: Component) -> int:
    return int(component.points)


def score_verdict(
    question: Question, verdict: JudgeVerdict, *, grader_id: str, fixture_id: str | None = None
) -> GraderRecord:
    """Apply every scoring rule to a contract-valid verdict."""
    by_id = {c.id: c for c in verdict.components}
    adjustments: list[str] = []
    gate_passed = verdict.gate_passed
    zeroed: set[str] = set()
    halved: set[str] = set()
    for index in sorted(set(verdict.do_not_credit_hits)):
        if not 0 <= index < len(question.do_not_credit):
            continue
        effect, target = do_not_credit_effect(question.do_not_credit[index])
        label = f"do-not-credit item {index + 1}"
        if effect is DoNotCreditEffect.GATE_FAIL and gate_passed:
            gate_passed = False
            adjustments.append(f"{label} fails the gate")
        elif effect is DoNotCreditEffect.ZERO and target:
            zeroed.add(target)
            adjustments.append(f"{label} zeroes {target}")
        elif effect is DoNotCreditEffect.HALF and target:
            halved.add(target)
            adjustments.append(f"{label} removes half of {target}")
        elif effect is DoNotCreditEffect.FLAGGED:
            flagged = [c.id for c in verdict.components if c.do_not_credit_hit]
            zeroed.update(flagged)
            if flagged:
                adjustments.append(f"{label} zeroes the flagged {', '.join(flagged)}")

    awarded: list[AwardedComponent] = []
    for component in question.components:
        maximum = _points(component)
        judged = by_id.get(component.id)
        reason = judged.reason if judged else ""
        if not gate_passed:
            value = 0
        elif component.is_gate:
            value = maximum  # passing the gate always earns its points
        else:
            value = max(0, min(maximum, judged.awarded if judged else 0))
            if judged and judged.contradiction and value:
                adjustments.append(f"{component.id} zeroed: the answer contradicts it")
                value = 0
            if component.id in zeroed and value:
                value = 0
            if component.id in halved and value:
                value = min(value, maximum - maximum // 2)
            if value and value < maximum and component_kind(question, component) is ComponentKind.BINARY:
                adjustments.append(f"{component.id} is all or nothing: {value} of {maximum} becomes 0")
                value = 0
        awarded.append(AwardedComponent(id=component.id, awarded=value, maximum=maximum, reason=reason))
    if not verdict.gate_passed:
        adjustments.insert(0, "gate failed: total 0")
    total = min(TOTAL_POINTS, sum(a.awarded for a in awarded))
    return GraderRecord(
        question_id=question.id,
        grader_id=grader_id,
        fixture_id=fixture_id,
        gate_passed=gate_passed,
        gate_reason=verdict.gate_reason,
        components=awarded,
        total=total,
        demonstrated_but_unscored=verdict.demonstrated_but_unscored,
        accepted_variant_used=verdict.accepted_variant_used,
        adjudication_required=verdict.adjudication_required,
        adjudication_note=verdict.adjudication_note,
        adjustments=adjustments,
    )


def empty_answer_record(question: Question, *, grader_id: str, fixture_id: str | None = None) -> GraderRecord:
    """An empty answer fails the gate: 0, with no judge call."""
    return GraderRecord(
        question_id=question.id,
        grader_id=grader_id,
        fixture_id=fixture_id,
        gate_passed=False,
        gate_reason="empty answer",
        components=[AwardedComponent(id=c.id, awarded=0, maximum=_points(c)) for c in question.components],
        total=0,
        adjustments=["empty answer: gate failed without a judge call"],
    )


def record_to_contract(record: GraderRecord) -> dict[str, Any]:
    """The record as the harness's grader contract (no gtreview-only keys)."""
    data = record.model_dump(mode="json")
    data.pop("adjustments", None)
    return data


def settle_awards(question: Question, gate_passed: bool, awards: dict[str, int]) -> tuple[dict[str, int], int]:
    """An expert's (or any grader's) awards under the same rules: a failed gate zeroes
    everything, a passed gate earns its full points, awards stay within their range,
    and the total is capped at 10. Returns the settled awards and total."""
    settled: dict[str, int] = {}
    for component in question.components:
        maximum = _points(component)
        if not gate_passed:
            settled[component.id] = 0
        elif component.is_gate:
            settled[component.id] = maximum
        else:
            settled[component.id] = max(0, min(maximum, int(awards.get(component.id, 0))))
    return settled, min(TOTAL_POINTS, sum(settled.values()))
