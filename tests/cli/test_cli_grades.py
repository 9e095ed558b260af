import json
from pathlib import Path

from tests.cli.test_cli_rubric import gtreview


def test_grades_check_on_interop_fixtures(tmp_path: Path, interop_dir: Path) -> None:
    rubric_path = interop_dir / "rubrics" / "Yudnamutana_QA_grading_key.json"
    rubric = json.loads(rubric_path.read_text(encoding="utf-8"))
    lines = []
    for question in rubric["questions"]:
        points = {c["id"]: c["points"] for c in question["components"]}
        for fixture in question["calibration"]:
            lines.append(
                {
                    "question_id": question["id"],
                    "grader_id": "expert",
                    "fixture_id": fixture["fixture_id"],
                    "gate_passed": fixture["expected_gate_passed"],
                    "components": [
                        {"id": a["id"], "awarded": a["awarded"], "maximum": points[a["id"]], "reason": ""}
                        for a in fixture["expected_component_awards"]
                    ],
                    "total": fixture["expected_total"],
                }
            )
    lines[0]["components"][1]["awarded"] = 2  # gate failed but points awarded
    lines[4]["total"] = 4  # does not add up
    lines[8]["components"][2]["awarded"] = 1.5  # not a whole number
    grades = tmp_path / "grades.jsonl"
    grades.write_text("\n".join(json.dumps(line) for line in lines) + "\n\nnot json\n", encoding="utf-8")

    result = gtreview("grades", "check", "--rubric", rubric_path, grades, "--json")
    assert result.returncode == 1
    checks = json.loads(result.stdout)
    assert len(checks) == 10
    assert [c["total"] for c in checks[:9]] == [0, 3, 10, 0, 3, 10, 0, 4, None]
    assert checks[0]["violations"] == ["the gate failed but C2 award points"]
    assert checks[4]["violations"] == ["stated total 4 but the rules give 3"]
    assert checks[8]["violations"] == ["C3 award 1.5 is not a whole number"]
    assert all(c["violations"] == [] for n, c in enumerate(checks[:9]) if n not in (0, 4, 8))
    assert checks[9]["total"] is None and checks[9]["violations"][0].startswith("not valid JSON")

    clean = tmp_path / "clean.jsonl"
    clean.write_text(
        "\n".join(json.dumps(line) for n, line in enumerate(lines) if n not in (0, 4, 8)), encoding="utf-8"
    )
    ok = gtreview("grades", "check", "--rubric", rubric_path, clean)
    assert ok.returncode == 0 and ok.stdout.strip().endswith("6 records, 0 with violations")
