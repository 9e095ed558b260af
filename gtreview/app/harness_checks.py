"""Recomputing one harness score entry by gtreview's rules, and saying where the file differs.

Nothing in a score file is taken on trust: each side's total is recomputed from its
components (a failed gate scores 0, a passed gate earns its full points, an empty
answer fails the gate), and each pair is reconciled again from its two order tokens.
A disagreement is listed only where the rules and the file really differ, with the
rule it breaks: a side both the file and gtreview leave unscored is not one, nor an
unknown pair whose scores the harness left null.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from gtreview.core.grade_check import RULE_TOTAL, check_record
from gtreview.core.grading import empty_answer_record, record_to_contract, settle_awards
from gtreview.core.pairwise import PairLabel, PairOutcome, read_token, reconcile_tokens
from gtreview.core.rubric import Question
from gtreview.interop.harness_files import ScoreEntry, ScoreSide

RULE_EMPTY = "an empty answer fails the gate (total 0, without a judge call)"
RULE_EMPTY_PAIR = "an empty answer loses the pair (both empty: a tie), without a judge call"
RULE_NORMAL = "the first order scores A>>B 2, A>B 1, A=B 0, B>A -1, B>>A -2"
RULE_SWAPPED = "the swapped order's score is negated into the first order's frame"
RULE_AVERAGE = "the pair scores the mean of its two orders"
RULE_LABEL = "the label follows the mean: >= 1.5 A>>B, >= 0.5 A>B, <= -1.5 B>>A, <= -0.5 B>A, else A=B"
RULE_UNKNOWN = "a verdict that cannot be read makes the pair unknown, not a tie"
GRADER = "harness"
UNSCORED = "the harness's judge broke the grader contract after its re-asks"


class Disagreement(BaseModel):
    entry: int
    id: str
    field: str
    file_value: Any
    recomputed: Any
    rule: str
    note: str = ""


class SideResult(BaseModel):
    """A side as gtreview settles it: a grader contract, or unscored (``contract`` None)."""

    total: int | None
    gate_passed: bool | None
    contract: dict[str, Any] | None
    violations: list[str]


def _close(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, int | float) and isinstance(b, int | float) and not isinstance(a, bool):
        return abs(float(a) - float(b)) < 1e-9
    return bool(a == b)


def _contract(question: Question, side: ScoreSide, gate_passed: bool, awards: dict[str, int]) -> dict[str, Any]:
    """The side's grader record with settled awards, so the total never contradicts them."""
    settled, total = settle_awards(question, gate_passed, awards)
    reasons = {str(c.get("id")): str(c.get("reason") or "") for c in side.components or [] if isinstance(c, dict)}
    return {
        "question_id": question.id,
        "grader_id": GRADER,
        "gate_passed": gate_passed,
        "gate_reason": "",
        "components": [
            {"id": c.id, "awarded": settled[c.id], "maximum": int(c.points), "reason": reasons.get(c.id, "")}
            for c in question.components
        ],
        "total": total,
        "adjudication_required": side.adjudication_required,
        "adjudication_note": side.adjudication_note or "",
    }


def check_side(entry: ScoreEntry, side: ScoreSide, question: Question) -> tuple[SideResult, list[Disagreement]]:
    field = f"score_{side.side}"

    def differs(file_value: Any, recomputed: Any, rule: str, note: str = "", name: str = field) -> Disagreement:
        return Disagreement(
            entry=entry.position,
            id=entry.id,
            field=name,
            file_value=file_value,
            recomputed=recomputed,
            rule=rule,
            note=note,
        )

    if side.empty:
        contract = record_to_contract(empty_answer_record(question, grader_id=GRADER))
        result = SideResult(total=0, gate_passed=False, contract=contract, violations=[])
        if not _close(side.score, 0):
            return result, [differs(side.score, 0, RULE_EMPTY, "the answer is blank once cleaned")]
        if side.gate_passed is True:
            return result, [differs(True, False, RULE_EMPTY, name=f"{field}_gate_passed")]
        return result, []
    if side.score is None and side.gate_passed is None and side.components is None:
        return SideResult(total=None, gate_passed=None, contract=None, violations=[]), []  # unscored on both sides
    record = {
        "question_id": question.id,
        "gate_passed": side.gate_passed,
        "components": side.components if side.components is not None else [],
        "total": side.score,
    }
    check = check_record(record, {question.id: question})
    note = "; ".join(check.violations)
    rule = "; ".join(check.rules) or RULE_TOTAL
    if check.total is None:
        result = SideResult(total=None, gate_passed=None, contract=None, violations=check.violations)
        return result, ([] if side.score is None else [differs(side.score, None, rule, note)])
    awards = {
        str(c["id"]): int(c["awarded"])
        for c in side.components or []
        if isinstance(c, dict) and isinstance(c.get("awarded"), int) and not isinstance(c.get("awarded"), bool)
    }
    gate = bool(side.gate_passed)
    result = SideResult(
        total=check.total,
        gate_passed=gate,
        contract=_contract(question, side, gate, awards),
        violations=check.violations,
    )
    if not _close(side.score, check.total):
        return result, [differs(side.score, check.total, rule, note)]
    if check.violations:
        return result, [differs(side.components, check.total, rule, note, name=f"{field}_components")]
    return result, []


def _token(entry: ScoreEntry, key: str, text: str) -> str | None:
    """An order's token: the stored one, else (no such key) the first in the judge's text."""
    return read_token(entry.verdicts[key]) if key in entry.verdicts else read_token(text)


_EMPTY_TOKENS = {(True, True): ("[[A=B]]", "[[A=B]]"), (True, False): ("[[B>>A]]", "[[A>>B]]")}


def check_pair(entry: ScoreEntry) -> tuple[PairOutcome, list[Disagreement]]:
    """The pair reconciled from its two tokens, and each verdict field the file states otherwise."""
    a, b = entry.sides.get("a"), entry.sides.get("b")
    empty = (a is not None and a.empty, b is not None and b.empty)
    found: list[Disagreement] = []

    def differs(field: str, recomputed: Any, rule: str) -> None:
        found.append(
            Disagreement(
                entry=entry.position,
                id=entry.id,
                field=field,
                file_value=entry.verdicts.get(field),
                recomputed=recomputed,
                rule=rule,
            )
        )

    if any(empty):
        normal, swapped = _EMPTY_TOKENS.get(empty, ("[[A>>B]]", "[[B>>A]]"))
        outcome = reconcile_tokens(normal, swapped)
        if "verdict" in entry.verdicts and _file_label(entry.verdicts["verdict"]) != outcome.label.value:
            differs("verdict", outcome.label.value, RULE_EMPTY_PAIR)
        return outcome, found
    texts = entry.order_texts()
    outcome = reconcile_tokens(_token(entry, "verdict_normal", texts[0]), _token(entry, "verdict_swapped", texts[1]))
    known = not outcome.unknown
    expected = {
        "verdict_normal_score": (outcome.normal_score if known else None, RULE_NORMAL),
        "verdict_swapped_score": (outcome.swapped_score if known else None, RULE_SWAPPED),
        "avg_score": (outcome.average, RULE_AVERAGE),
    }
    for field, (value, rule) in expected.items():
        if field in entry.verdicts and not _close(entry.verdicts[field], value):
            differs(field, value, rule)
    if "verdict" in entry.verdicts and _file_label(entry.verdicts["verdict"]) != outcome.label.value:
        differs("verdict", outcome.label.value, RULE_LABEL if known else RULE_UNKNOWN)
    return outcome, found


def _file_label(value: Any) -> str:
    token = read_token(value)
    return token.removeprefix("[[").removesuffix("]]") if token else PairLabel.UNKNOWN.value
