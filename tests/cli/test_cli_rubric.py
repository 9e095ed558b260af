"""The rubric commands through the real console entry point (a subprocess each)."""

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.projects import new_project
from tests.rubric_factory import mutated, rubric


def gtreview(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gtreview.cli", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )


def write(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


def test_interop_rubric_validates_clean(interop_dir: Path) -> None:
    result = gtreview("rubric", "validate", interop_dir / "rubrics" / "Yudnamutana_QA_grading_key.json", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["ok"] is True and report["errors"] == 0 and report["questions"] == 3


def test_findings_exit_1_with_codes_and_paths(tmp_path: Path) -> None:
    bad = mutated(rubric(2), "questions.1.components.2.points", 5)
    result = gtreview("rubric", "validate", write(tmp_path / "bad.json", bad), "--json")
    assert result.returncode == 1
    report = json.loads(result.stdout)
    assert report["errors"] == 1
    (finding,) = report["findings"]
    assert finding == {
        "code": "points-total",
        "severity": "error",
        "question_id": "A2",
        "path": "$.questions[1].components",
        "message": "Component points total 11, not 10.",
    }


def test_warnings_alone_exit_0(tmp_path: Path) -> None:
    data = mutated(rubric(2), "benchmark.question_count", 7)
    result = gtreview("rubric", "validate", write(tmp_path / "warn.json", data))
    assert result.returncode == 0
    assert "warning: question-count-mismatch" in result.stdout
    assert result.stdout.strip().endswith("2 questions, 0 errors, 1 warnings")


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b'{"schema_version": "2.0", "questions": [{"id": "A1", ', "not valid JSON"),
        ('{"name": "Éire"}'.encode("latin-1"), "not UTF-8"),
        (b"", "empty"),
        (b'"just a string"', "not an object"),
        (b'{"schema_version": "3.1", "questions": [{}]}', "schema_version"),
    ],
)
def test_unreadable_files_exit_2_with_one_line(tmp_path: Path, content: bytes, expected: str) -> None:
    path = tmp_path / "r.json"
    path.write_bytes(content)
    result = gtreview("rubric", "validate", path)
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and expected in lines[0] and "Traceback" not in result.stderr


def test_fifty_megabyte_file_is_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "huge.json"
    with path.open("wb") as handle:
        handle.truncate(50 * 1024 * 1024)
    result = gtreview("rubric", "validate", path, "--json")
    assert result.returncode == 2
    assert json.loads(result.stdout)["ok"] is False
    assert "refused" in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_missing_file(tmp_path: Path) -> None:
    result = gtreview("rubric", "validate", tmp_path / "nope.json")
    assert result.returncode == 2 and "no such file" in result.stderr


def test_import_then_export_round_trip(tmp_path: Path, interop_dir: Path) -> None:
    source = interop_dir / "rubrics" / "Yudnamutana_QA_grading_key.json"
    project = new_project(tmp_path / "project")
    imported = gtreview("rubric", "import", source, "--project", project, "--json")
    assert imported.returncode == 0, imported.stderr
    set_id = json.loads(imported.stdout)["set_id"]
    out = tmp_path / "out.json"
    exported = gtreview("rubric", "export", "--set", set_id, "--format", "json", "-o", out, "--project", project)
    assert exported.returncode == 0, exported.stderr
    assert json.loads(out.read_text(encoding="utf-8")) == json.loads(source.read_text(encoding="utf-8"))
    assert out.read_bytes() == source.read_bytes()


def test_import_refuses_untyped_rubric_without_creating_a_set(tmp_path: Path) -> None:
    data = mutated(rubric(1), "questions.0.components", "none")
    project = new_project(tmp_path / "project")
    result = gtreview("rubric", "import", write(tmp_path / "r.json", data), "--project", project)
    assert result.returncode == 2
    assert "cannot load" in result.stderr and "$.questions[0].components" in result.stderr
    export = gtreview("rubric", "export", "-o", tmp_path / "o.json", "--project", project)
    assert export.returncode == 2 and "0 sets" in export.stderr


def test_export_markdown_guide(tmp_path: Path, interop_dir: Path) -> None:
    project = new_project(tmp_path / "project")
    source = interop_dir / "rubrics" / "Yudnamutana_QA_grading_key.json"
    assert gtreview("rubric", "import", source, "--project", project).returncode == 0
    out = tmp_path / "guide.md"
    result = gtreview("rubric", "export", "--format", "md", "-o", out, "--project", project)
    assert result.returncode == 0, result.stderr
    text = out.read_text(encoding="utf-8")
    assert text.startswith("# Yudnamutana Copper (sample) — Graded Answer Key & Marking Scheme")
    assert text.count("**If C1 fails: total = 0.**") == 3


def test_importing_a_file_twice_says_so_in_one_line(tmp_path: Path) -> None:
    project = new_project(tmp_path / "project")
    source = write(tmp_path / "r.json", rubric(2))
    assert gtreview("rubric", "import", source, "--project", project).returncode == 0
    again = gtreview("rubric", "import", source, "--project", project)
    assert again.returncode == 0, again.stderr
    assert again.stdout.splitlines() == [
        "r.json is already in the project as set 1 (Test set); nothing was added (--as-new imports a second copy)"
    ]
    copy = gtreview("rubric", "import", source, "--project", project, "--as-new", "--json")
    assert copy.returncode == 0 and json.loads(copy.stdout)["set_id"] == 2


def test_a_file_that_never_ends_is_refused_unopened() -> None:
    """/dev/zero reports size 0 and never ends: it is refused as a device before it is read."""
    result = gtreview("rubric", "validate", "/dev/zero", "--json")
    assert result.returncode == 2
    assert "/dev/zero: is not a regular file (a device)" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
