"""What a calibration fixture is for, judged from its expected disposition and total."""

from __future__ import annotations

from enum import StrEnum

from gtreview.core.rubric import CalibrationFixture, Question


class FixtureRole(StrEnum):
    NEAR_MISS = "near miss"
    MINIMUM_PASS = "minimum pass"
    STRONG = "strong"
    OTHER = "other"


def fixture_role(question: Question, fixture: CalibrationFixture) -> FixtureRole:
    """The role the Groundtruth method asks every question to cover (near miss = gate
    failed with total 0; minimum pass = gate passed with exactly the gate's points;
    strong = 9 or 10)."""
    gate = question.gate_component
    if not fixture.expected_gate_passed and fixture.expected_total == 0:
        return FixtureRole.NEAR_MISS
    if fixture.expected_gate_passed and gate is not None and fixture.expected_total == gate.points:
        return FixtureRole.MINIMUM_PASS
    if fixture.expected_gate_passed and fixture.expected_total >= 9:
        return FixtureRole.STRONG
    return FixtureRole.OTHER
