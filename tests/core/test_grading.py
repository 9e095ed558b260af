"""The scoring arithmetic on hand-written verdicts: every rule and its edges."""

import pytest

from gtreview.core.grading import (
    ComponentKind,
    ComponentVerdict,
    DoNotCreditEffect,
    JudgeVerdict,
    component_kind,
    do_not_credit_effect,
    empty_answer_record,
    record_to_contract,
    score_verdict,
)
from gtreview.core.rubric import Question
from tests.rubric_factory import question

# C1 gate 3, C2 3, C3 4
Q = Question.model_validate(question("A1", gate_points=3))


def verdict(gate: bool, c1: int = 3, c2: int = 0, c3: int = 0, **flags: object) -> JudgeVerdict:
    contradiction = flags.get("contradiction", set())
    flagged = flags.get("flagged", set())
    return JudgeVerdict(
        gate_passed=gate,
        gate_reason="r",
        components=[
            ComponentVerdict(
                id=cid,
                awarded=value,
                reason=f"{cid} reason",
                contradiction=cid in contradiction,  # type: ignore[operator]
                do_not_credit_hit=cid in flagged,
            )  # type: ignore[operator]
            for cid, value in (("C1", c1), ("C2", c2), ("C3", c3))
        ],
        do_not_credit_hits=list(flags.get("hits", [])),  # type: ignore[call-overload]
    )


def totals(record) -> tuple[int, list[int]]:  # type: ignore[no-untyped-def]
    return record.total, [c.awarded for c in record.components]


def test_gate_failed_scores_zero_everywhere() -> None:
    assert totals(score_verdict(Q, verdict(False, 3, 3, 4), grader_id="j")) == (0, [0, 0, 0])


def test_gate_passed_earns_full_gate_points() -> None:
    assert totals(score_verdict(Q, verdict(True, 1, 2, 4), grader_id="j")) == (9, [3, 2, 4])


def test_minimum_pass_and_strong() -> None:
    assert totals(score_verdict(Q, verdict(True), grader_id="j")) == (3, [3, 0, 0])
    assert totals(score_verdict(Q, verdict(True, 3, 3, 4), grader_id="j")) == (10, [3, 3, 4])


def test_awards_are_clamped_to_the_component_range() -> None:
    assert totals(score_verdict(Q, verdict(True, 3, 7, -2), grader_id="j")) == (6, [3, 3, 0])


def test_contradiction_zeroes_its_component_only() -> None:
    record = score_verdict(Q, verdict(True, 3, 3, 4, contradiction={"C3"}), grader_id="j")
    assert totals(record) == (6, [3, 3, 0])
    assert any("C3 zeroed" in a for a in record.adjustments)


def test_binary_components_are_all_or_nothing() -> None:
    data = question("A1", gate_points=3)
    data["components"][2]["binary"] = True
    binary = Question.model_validate(data)
    assert component_kind(binary, binary.components[2]) is ComponentKind.BINARY
    assert component_kind(binary, binary.components[1]) is ComponentKind.REASONING
    assert component_kind(binary, binary.components[0]) is ComponentKind.GATE
    assert totals(score_verdict(binary, verdict(True, 3, 2, 3), grader_id="j")) == (5, [3, 2, 0])
    assert totals(score_verdict(binary, verdict(True, 3, 2, 4), grader_id="j")) == (9, [3, 2, 4])
    data["mode"] = "Binary"
    whole = Question.model_validate(data)
    assert totals(score_verdict(whole, verdict(True, 3, 2, 4), grader_id="j")) == (7, [3, 0, 4])


@pytest.mark.parametrize(
    ("text", "effect", "target"),
    [
        ("Concluding the formation is the source. Fails C1.", DoNotCreditEffect.GATE_FAIL, None),
        ("Reversing the sets (gate fail).", DoNotCreditEffect.GATE_FAIL, None),
        ("Inventing a criterion (loses C2).", DoNotCreditEffect.ZERO, "C2"),
        ("Does not earn the (b) half of C3.", DoNotCreditEffect.HALF, "C3"),
        ("Claiming the other records have no host control.", DoNotCreditEffect.FLAGGED, None),
    ],
)
def test_do_not_credit_effects_follow_the_rubric_text(text: str, effect: DoNotCreditEffect, target: str | None) -> None:
    assert do_not_credit_effect(text) == (effect, target)


def test_do_not_credit_hits_apply_their_effects() -> None:
    data = question("A1", gate_points=3)
    data["do_not_credit"] = [
        "Calling the reef the source of the gold. Fails C1.",
        "Treating assays as yields (loses C2).",
        "No nod to sampling bias. Does not earn the (b) half of C3.",
        "Claiming the deep lead is exhausted.",
    ]
    q = Question.model_validate(data)
    assert score_verdict(q, verdict(True, 3, 3, 4, hits=[0]), grader_id="j").total == 0
    assert totals(score_verdict(q, verdict(True, 3, 3, 4, hits=[1]), grader_id="j")) == (7, [3, 0, 4])
    assert totals(score_verdict(q, verdict(True, 3, 3, 4, hits=[2]), grader_id="j")) == (8, [3, 3, 2])
    assert totals(score_verdict(q, verdict(True, 3, 3, 4, hits=[3], flagged={"C2"}), grader_id="j")) == (7, [3, 0, 4])
    assert totals(score_verdict(q, verdict(True, 3, 3, 4, hits=[3]), grader_id="j")) == (
        10,
        [3, 3, 4],
    )  # nothing flagged
    assert score_verdict(q, verdict(True, 3, 3, 4, hits=[99]), grader_id="j").total == 10  # out of range: ignored


def test_total_is_capped_at_ten() -> None:
    data = question("A1", gate_points=3)
    data["components"][2]["points"] = 6  # a broken rubric: 3 + 3 + 6 = 12
    q = Question.model_validate(data)
    assert score_verdict(q, verdict(True, 3, 3, 6), grader_id="j").total == 10


def test_missing_component_verdict_counts_zero() -> None:
    v = verdict(True, 3, 3, 4)
    v.components = v.components[:2]
    assert totals(score_verdict(Q, v, grader_id="j")) == (6, [3, 3, 0])


def test_empty_answer_record_and_contract_shape() -> None:
    record = empty_answer_record(Q, grader_id="judge-x", fixture_id="A1-F9")
    assert record.total == 0 and not record.gate_passed
    contract = record_to_contract(record)
    assert set(contract) == {
        "question_id",
        "grader_id",
        "fixture_id",
        "scored_at",
        "gate_passed",
        "gate_reason",
        "components",
        "total",
        "demonstrated_but_unscored",
        "accepted_variant_used",
        "adjudication_required",
        "adjudication_note",
    }
    assert contract["components"][0] == {"id": "C1", "awarded": 0, "maximum": 3, "reason": ""}
