from typing import Any

import pytest

from gtreview.core.grade_check import check_record
from gtreview.core.rubric import Question
from tests.rubric_factory import question

QUESTIONS = {"A1": Question.model_validate(question("A1", gate_points=3))}


def record(gate: Any = True, awards: Any = (3, 3, 4), total: Any = 10, **extra: Any) -> dict[str, Any]:
    return {
        "question_id": "A1",
        "grader_id": "human-1",
        "gate_passed": gate,
        "components": [
            {"id": cid, "awarded": v, "maximum": m}
            for cid, v, m in zip(("C1", "C2", "C3"), awards, (3, 3, 4), strict=False)
        ],
        "total": total,
        **extra,
    }


def test_a_clean_record() -> None:
    check = check_record(record(), QUESTIONS)
    assert (check.total, check.violations) == (10, [])


@pytest.mark.parametrize(
    ("data", "total", "violation"),
    [
        (record(awards=(3, 5, 4), total=12), 10, "C2 award 5 is outside 0..3"),
        (record(awards=(3, 2.5, 4), total=9.5), None, "C2 award 2.5 is not a whole number"),
        (record(awards=(1, 3, 4), total=8), 10, "partial gate: C1 awarded 1 of 3"),
        (record(gate=False, awards=(0, 3, 0), total=0), 0, "the gate failed but C2 award points"),
        (record(total=9), 10, "stated total 9 but the rules give 10"),
        (record(awards=(3, 3), total=6), 6, "component C3 is missing"),
        (record(gate="yes"), None, "gate_passed is not true or false"),
        ({**record(), "components": [*record()["components"], {"id": "C9", "awarded": 1}]}, 10, "unknown component C9"),
        ({**record(), "question_id": "Z9"}, None, "unknown question id 'Z9'"),
        (
            {**record(), "components": [{"id": "C1", "awarded": 3, "maximum": 4}, *record()["components"][1:]]},
            10,
            "C1 maximum 4 differs from the rubric's 3",
        ),
    ],
)
def test_each_violation(data: dict[str, Any], total: int | None, violation: str) -> None:
    check = check_record(data, QUESTIONS)
    assert check.total == total
    assert violation in check.violations


def test_not_an_object() -> None:
    assert check_record([1, 2], QUESTIONS).violations == ["the record is not a JSON object"]
