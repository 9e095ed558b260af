from gtreview.core.calibration import FixtureRole, fixture_role
from gtreview.core.jsonpath import MISSING, get_at, json_path, set_at
from gtreview.core.rubric import Question
from tests.rubric_factory import question


def test_get_and_set_by_path_leave_the_original_alone() -> None:
    doc = question("A1")
    changed = set_at(doc, ("components", 1, "points"), 4)
    assert get_at(changed, ("components", 1, "points")) == 4
    assert get_at(doc, ("components", 1, "points")) == 3
    assert get_at(doc, ("components", 9, "points"), "none") == "none"
    assert get_at(doc, ("gate", "missing")) is None
    created = set_at({"id": "A1"}, ("gate", "points"), 3)
    assert created == {"id": "A1", "gate": {"points": 3}}
    removed = set_at(doc, ("principle",), MISSING)
    assert "principle" not in removed and "principle" in doc
    assert json_path(("components", 1, "points")) == "$.components[1].points"


def test_fixture_roles() -> None:
    q = Question.model_validate(question("A1", gate_points=3))
    roles = [fixture_role(q, f) for f in q.calibration]
    assert roles == [FixtureRole.NEAR_MISS, FixtureRole.MINIMUM_PASS, FixtureRole.STRONG]
    q.calibration[2].expected_total = 7
    assert fixture_role(q, q.calibration[2]) is FixtureRole.OTHER
