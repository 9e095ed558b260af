import json
from pathlib import Path
from typing import Any

import pytest

from gtreview.core.findings import Severity
from gtreview.core.rubric_text import RubricReadError, parse_rubric_bytes
from gtreview.core.validation import RULES, validate_in_set, validate_question, validate_rubric
from tests.rubric_factory import mutated, question, rubric, skill_shape_rubric


def codes(data: dict[str, Any]) -> set[str]:
    return {f.code for f in validate_rubric(data)}


def test_valid_rubrics_have_no_findings() -> None:
    assert validate_rubric(rubric(3)) == []
    assert validate_rubric(skill_shape_rubric()) == []


def test_interop_rubric_has_no_findings(interop_dir: Path) -> None:
    data = json.loads((interop_dir / "rubrics" / "Yudnamutana_QA_grading_key.json").read_text(encoding="utf-8"))
    assert validate_rubric(data) == []


@pytest.mark.parametrize(
    ("path", "value", "code", "json_path"),
    [
        ("questions.0.components.1.points", 3.5, "points-not-integer", "$.questions[0].components[1].points"),
        ("questions.0.components.1.points", "3", "points-not-integer", "$.questions[0].components[1].points"),
        ("questions.0.components.1.points", 4, "points-total", "$.questions[0].components"),
        ("questions.0.components.0.is_gate", False, "gate-missing", "$.questions[0].components"),
        ("questions.0.components.1.is_gate", True, "gate-multiple", "$.questions[0].components"),
        ("questions.0.components.0.id", "C9", "gate-not-c1", "$.questions[0].components[0].id"),
        ("questions.0.components.1.id", "C3", "component-id-duplicate", "$.questions[0].components[2].id"),
        ("questions.0.gate.component_id", "C2", "gate-component-id", "$.questions[0].gate.component_id"),
        ("questions.0.gate.points", 2, "gate-points-mismatch", "$.questions[0].gate.points"),
        ("questions.0.gate.pass_condition", " ", "pass-condition-empty", "$.questions[0].gate.pass_condition"),
        ("questions.0.gate.fail_examples", [], "fail-examples-missing", "$.questions[0].gate.fail_examples"),
        ("questions.0.gate", None, "gate-block-missing", "$.questions[0].gate"),
        ("questions.0.components.2.credit_if", "", "credit-if-empty", "$.questions[0].components[2].credit_if"),
        ("questions.0.question", "", "question-text-empty", "$.questions[0].question"),
        ("questions.1.id", "A1", "question-id-duplicate", "$.questions[1].id"),
        ("questions.1.id", "B1", "question-id-digits-collision", "$.questions[1].id"),  # on each id that collides
        ("candidate_access_mode", "OPEN", "access-mode-invalid", "$.candidate_access_mode"),
        ("benchmark.question_count", 5, "question-count-mismatch", "$.benchmark.question_count"),
        (
            "questions.0.calibration.1.expected_component_awards.1.awarded",
            9,
            "fixture-award-range",
            "$.questions[0].calibration[1].expected_component_awards[1].awarded",
        ),
        (
            "questions.0.calibration.0.expected_component_awards.2.awarded",
            1,
            "fixture-gate-failed-nonzero",
            "$.questions[0].calibration[0].expected_component_awards[2].awarded",
        ),
        (
            "questions.0.calibration.1.expected_total",
            4,
            "fixture-total-mismatch",
            "$.questions[0].calibration[1].expected_total",
        ),
        (
            "questions.0.calibration.1.expected_component_awards.0.awarded",
            2,
            "fixture-gate-partial",
            "$.questions[0].calibration[1].expected_component_awards[0].awarded",
        ),
        (
            "questions.0.calibration.2.expected_component_awards.2.id",
            "C9",
            "fixture-award-unknown",
            "$.questions[0].calibration[2].expected_component_awards[2]",
        ),
        (
            "questions.0.calibration.2.expected_component_awards.2.awarded",
            1.5,
            "fixture-award-not-integer",
            "$.questions[0].calibration[2].expected_component_awards[2].awarded",
        ),
        (
            "questions.1.calibration.0.fixture_id",
            "A1-F1",
            "fixture-id-duplicate",
            "$.questions[1].calibration[0].fixture_id",
        ),
        ("questions.0.evidence.0.locator", "", "evidence-field-missing", "$.questions[0].evidence[0]"),
        ("questions.0.evidence.0.confidence", "SURE", "evidence-confidence", "$.questions[0].evidence[0].confidence"),
        ("questions.0.accepted_variants", [{"oops": 1}], "variant-malformed", "$.questions[0].accepted_variants[0]"),
        ("global_variants", [{"canonical": "reef"}], "variant-malformed", "$.global_variants[0]"),
        ("source_authority", [{"rank": 1}], "authority-malformed", "$.source_authority[0]"),
        ("questions.0.required_concepts", "oxidation", "field-type", "$.questions[0].required_concepts"),
        ("questions.0", [], "question-not-object", "$.questions[0]"),
    ],
)
def test_each_rule_reports_code_and_path(path: str, value: Any, code: str, json_path: str) -> None:
    findings = [f for f in validate_rubric(mutated(rubric(2), path, value)) if f.code == code]
    assert findings, f"expected {code}"
    assert json_path in {f.path for f in findings}
    finding = findings[0]
    assert finding.severity is RULES[code][0]
    assert finding.message.endswith(".") and "\n" not in finding.message


def test_gate_of_five_points() -> None:
    data = rubric(1)
    data["questions"][0] = question("A1", gate_points=5)
    found = codes(data)
    assert "gate-points-range" in found
    assert "points-total" not in found  # 5 + 2 + 3 still totals 10
    assert "points-above-gate" in found


def test_components_summing_to_eleven() -> None:
    data = mutated(rubric(1), "questions.0.components.2.points", 5)
    findings = [f for f in validate_rubric(data) if f.code == "points-total"]
    assert [f.message for f in findings] == ["Component points total 11, not 10."]
    assert findings[0].question_id == "A1"


def test_too_few_fixtures_and_missing_kinds() -> None:
    data = rubric(1)
    data["questions"][0]["calibration"] = data["questions"][0]["calibration"][2:]
    found = codes(data)
    assert {"calibration-too-few", "calibration-no-near-miss", "calibration-no-minimum-pass"} <= found
    assert "calibration-no-strong" not in found


def test_fixture_missing_and_duplicate_awards() -> None:
    data = rubric(1)
    awards = data["questions"][0]["calibration"][2]["expected_component_awards"]
    awards[2] = dict(awards[1])
    found = codes(data)
    assert {"fixture-award-missing", "fixture-award-duplicate"} <= found


def test_question_ids_without_digits_warn() -> None:
    data = mutated(rubric(1), "questions.0.id", "intro")
    findings = {f.code: f for f in validate_rubric(data)}
    assert findings["question-id-no-digits"].severity is Severity.WARNING


def test_a_blank_title_and_a_line_break_in_a_one_line_field_warn() -> None:
    data = mutated(mutated(rubric(2), "questions.0.title", " "), "questions.1.section", "Geology\nof the Flinders")
    findings = {f.code: f for f in validate_rubric(data)}
    assert findings["title-empty"].path == "$.questions[0].title"
    assert findings["line-break"].path == "$.questions[1].section"
    assert findings["line-break"].severity is Severity.WARNING
    untitled = rubric(1)
    del untitled["questions"][0]["title"]
    assert validate_rubric(untitled) == []  # a file without titles is not asked for them


def test_one_question_in_its_set_has_the_findings_the_file_check_gives_it() -> None:
    """The editor and the question list call ``validate_in_set`` with the question's set;
    the file check is made of the same calls, so each question's findings are the same."""
    data = mutated(mutated(rubric(3), "questions.1.id", "5"), "questions.2.id", "B5")
    data["questions"][2]["calibration"][0]["fixture_id"] = data["questions"][0]["calibration"][0]["fixture_id"]
    whole = validate_rubric(data)
    questions = data["questions"]
    for position in range(3):
        alone = validate_in_set(questions, position, f"$.questions[{position}]")
        assert alone == [f for f in whole if f.path.startswith(f"$.questions[{position}]")]
    five = validate_in_set(questions, 1)  # as the editor calls it: paths from the question
    assert [(f.code, f.path, f.question_id) for f in five] == [("question-id-digits-collision", "$.id", "5")]
    assert "Ids 5, B5 all become 5" in five[0].message
    assert {f.code for f in validate_in_set(questions, 2)} == {"question-id-digits-collision", "fixture-id-duplicate"}


def test_mixed_shapes_warn() -> None:
    data = rubric(1)
    data["global_variants"].append({"term": "lode", "variants": ["reef"]})
    assert "shape-mixed" in codes(data)


def test_validate_question_alone_matches_the_live_editor_use() -> None:
    q = question("B7")
    q["components"][1]["points"] = 6
    findings = validate_question(q)
    assert [f.code for f in findings] == ["points-total"]
    assert findings[0].path == "$.components"


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b"", "file is empty"),
        (b"  \n", "file is empty"),
        (b'{"schema_version": "2.0", "questions": [', "not valid JSON"),
        ('{"é": 1}'.encode("latin-1"), "not UTF-8 text"),
        (b"[1, 2]", "top level is a JSON array"),
        (b"{}", "rubric object is empty"),
        (b'{"schema_version": "1.0", "questions": [{}]}', 'schema_version is "1.0"'),
        (b'{"questions": [{}]}', "schema_version is missing"),
        (b'{"schema_version": "2.0", "questions": []}', "no questions"),
        (b"[" * 100000, "not valid JSON"),
    ],
)
def test_unreadable_files_get_one_line(raw: bytes, message: str) -> None:
    with pytest.raises(RubricReadError) as info:
        parse_rubric_bytes(raw)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_oversized_file_is_refused_without_parsing() -> None:
    with pytest.raises(RubricReadError, match="refused"):
        parse_rubric_bytes(b" " * (50 * 1024 * 1024))


def test_every_rule_code_is_documented_once() -> None:
    assert all(code == code.lower() and " " not in code for code in RULES)
    assert all(text for _, text in RULES.values())
