import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from gtreview.core.jsonlayout import detect_layout, dumps_in_layout
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


# A rubric in the authoring skill's compact layout, as its SKILL.md example writes one:
# components, authorities, variants and string lists each on one line, evidence and
# fixtures spread out. Written by hand here, so the writer is checked against text it
# did not produce.
COMPACT = """{
  "schema_version": "2.0",
  "benchmark": { "name": "Compact sample", "question_count": 1 },
  "candidate_access_mode": "OPEN_CORPUS",
  "scoring_model": { "total_points": 10, "integer_scores_only": true, "gate_failure_score": 0, "positive_marking_after_gate": true, "holistic_bands": false },
  "source_authority": [
    { "rank": 1, "class": "Primary reports", "notes": "verbatim text, pages cited" }
  ],
  "global_variants": [
    { "term": "Wywyana Formation", "variants": ["Wywyana Fm", "the Wywyana"], "note": "host unit" }
  ],
  "questions": [
    {
      "id": "A1",
      "section": "A",
      "title": "Host rock",
      "question": "Which unit hosts the copper, and why does that matter?",
      "mode": "Graduated",
      "gate": {
        "component_id": "C1",
        "points": 3,
        "pass_condition": "Names the Wywyana Formation as host.",
        "fail_examples": ["Names a granite."]
      },
      "components": [
        { "id": "C1", "points": 3, "is_gate": true, "credit_if": "Names the host unit." },
        { "id": "C2", "points": 3, "is_gate": false, "credit_if": "Links carbonate host to fluid reaction." },
        { "id": "C3", "points": 4, "is_gate": false, "credit_if": "Says what the records do not prove." }
      ],
      "required_concepts": ["carbonate host", "stratigraphic control"],
      "accepted_variants": ["Wywyana Formation: Wywyana Fm, the Wywyana"],
      "indicative_terms": [],
      "do_not_credit": ["Treating an occurrence as a resource."],
      "evidence": [
        {
          "claim": "Eleven records name the Wywyana Formation.",
          "source": "host_lithology.csv",
          "locator": "MINERAL_DEPOSIT_NO=2047, HOST_ROCK",
          "authority": "primary",
          "confidence": "HIGH",
          "notes": "Ünit names as recorded"
        }
      ],
      "calibration": [
        {
          "fixture_id": "A1-F1",
          "response_text": "A granite hosts it.",
          "expected_gate_passed": false,
          "expected_component_awards": [
            { "id": "C1", "awarded": 0 },
            { "id": "C2", "awarded": 0 },
            { "id": "C3", "awarded": 0 }
          ],
          "expected_total": 0,
          "rationale": "Wrong host."
        }
      ]
    }
  ]
}
"""


@pytest.mark.parametrize(
    "text",
    [COMPACT, COMPACT.replace("\n", "\r\n"), "\ufeff" + COMPACT, json.dumps(json.loads(COMPACT), indent=4)],
    ids=["compact", "compact-crlf", "compact-bom", "indent-4-ascii"],
)
def test_an_unchanged_rubric_exports_byte_for_byte_whatever_its_layout(text: str) -> None:
    model = rubric_from_json_text(text.removeprefix("\ufeff"))
    assert rubric_to_json_text(model, like=text) == text
    assert dumps_in_layout(json.loads(text.removeprefix("\ufeff")), detect_layout(text)) == text


def test_the_interop_sample_is_its_own_layout(interop_rubric_text: str) -> None:
    data = json.loads(interop_rubric_text)
    assert dumps_in_layout(data, detect_layout(interop_rubric_text)) == interop_rubric_text
    one_line = json.dumps(data, ensure_ascii=False)
    assert dumps_in_layout(data, detect_layout(one_line)) == one_line


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_an_edited_rubric_is_written_in_the_layout_it_came_in(newline: str) -> None:
    text = COMPACT.replace("\n", newline)
    model = rubric_from_json_text(text)
    question = model.questions[0]
    question.title = "Host rock and its control"
    question.do_not_credit.append("Citing a deposit the corpus does not list.")
    question.components[1].credit_if = "Links the carbonate host to reaction with the ore fluid."
    expected = (
        text.replace('"title": "Host rock"', '"title": "Host rock and its control"')
        .replace(
            '"do_not_credit": ["Treating an occurrence as a resource."]',
            '"do_not_credit": ["Treating an occurrence as a resource.", "Citing a deposit the corpus does not list."]',
        )
        .replace("Links carbonate host to fluid reaction.", "Links the carbonate host to reaction with the ore fluid.")
    )
    assert rubric_to_json_text(model, like=text) == expected
    edited = rubric_from_json_text(COMPACT)
    edited.questions[0].title = "Other"
    assert rubric_to_json_text(edited) != rubric_to_json_text(edited, like=COMPACT)  # not the harness's layout
