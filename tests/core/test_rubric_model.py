import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from gtreview.core.rubric import ElementShape, Rubric, VariantRule, rubric_from_json_text, rubric_to_json_text
from tests.rubric_factory import rubric, skill_shape_rubric


@pytest.fixture()
def interop_rubric_text(interop_dir: Path) -> str:
    return (interop_dir / "rubrics" / "Yudnamutana_QA_grading_key.json").read_text(encoding="utf-8")


def test_interop_rubric_round_trips_to_equal_json(interop_rubric_text: str) -> None:
    original = json.loads(interop_rubric_text)
    exported = rubric_from_json_text(interop_rubric_text).to_json_dict()
    assert exported == original
    assert list(exported) == list(original)
    assert [q["id"] for q in exported["questions"]] == [q["id"] for q in original["questions"]]
    assert [list(q) for q in exported["questions"]] == [list(q) for q in original["questions"]]


def test_interop_rubric_round_trips_byte_for_byte(interop_rubric_text: str) -> None:
    assert rubric_to_json_text(rubric_from_json_text(interop_rubric_text)) == interop_rubric_text


def test_interop_rubric_is_read_as_sample_shape(interop_rubric_text: str) -> None:
    model = rubric_from_json_text(interop_rubric_text)
    assert model.element_shape is ElementShape.SAMPLE
    assert model.global_variants[0].canonical_term == "Wywyana Formation"
    assert model.source_authority[0].label == "Published government database extract"
    a1 = model.question_by_id("A1")
    assert a1 is not None and a1.gate_component is not None and a1.gate_component.points == 3


def test_skill_shape_round_trips_with_unknown_keys() -> None:
    data = skill_shape_rubric()
    text = json.dumps(data, indent=2, ensure_ascii=False)
    model = rubric_from_json_text(text)
    assert model.element_shape is ElementShape.SKILL
    assert model.to_json_dict() == data
    assert json.loads(rubric_to_json_text(model)) == data
    # the class keyword and the plain-string variants survive as written
    assert model.source_authority[0].label == "Primary reports"
    assert model.questions[0].accepted_variants == ["pyrite: mundic, iron pyrites"]
    assert model.to_json_dict()["x_authoring_run"] == {"model": "claude", "stage": 3}


def test_variant_with_comma_is_never_split() -> None:
    rule = VariantRule.model_validate({"term": "reef", "variants": ["lode", "line of reef, old style"]})
    assert rule.variants == ["lode", "line of reef, old style"]
    assert rule.variant_text == "lode, line of reef, old style"
    assert rule.to_json_dict() == {"term": "reef", "variants": ["lode", "line of reef, old style"]}


def test_absent_optional_keys_are_not_invented() -> None:
    data = rubric(1)
    del data["questions"][0]["evidence"][0]["confidence"]
    del data["scoring_model"]
    model = Rubric.model_validate(data)
    dumped = model.to_json_dict()
    assert "scoring_model" not in dumped
    assert "notes" not in dumped["questions"][0]["evidence"][0]
    assert dumped == data


def test_edit_keeps_key_order_and_writes_the_change() -> None:
    data = rubric(1)
    model = Rubric.model_validate(data)
    model.questions[0].title = "Changed"
    dumped = model.to_json_dict()
    assert list(dumped["questions"][0]) == list(data["questions"][0])
    assert dumped["questions"][0]["title"] == "Changed"


def test_values_are_not_coerced() -> None:
    data = rubric(1)
    data["questions"][0]["components"][0]["points"] = "3"
    with pytest.raises(ValidationError):
        Rubric.model_validate(data)
    data["questions"][0]["components"][0]["points"] = 2.5  # loads, so the validator can report it
    assert Rubric.model_validate(data).questions[0].components[0].points == 2.5
