"""`gtreview question paraphrase|update-from-original`, and paraphrases through rubric export and import."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gtreview.cli.common import EXIT_OK, EXIT_USAGE
from gtreview.cli.main import main
from gtreview.core.paraphrases import new_paraphrase
from tests.projects import new_project
from tests.rubric_factory import rubric

WORDING = "Under the water table, what makes the Prince Alfred battery returns drop?"


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    folder = new_project(tmp_path / "p")
    source = tmp_path / "r.json"
    source.write_text(json.dumps(rubric(2), indent=2), encoding="utf-8")
    assert main(["rubric", "import", str(source), "--project", str(folder)]) == EXIT_OK
    return folder


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_the_expert_adds_a_paraphrase_and_brings_it_up_to_date(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    status, out, _ = run(capsys, "question", "paraphrase", "A1", "--text", WORDING, "--project", str(project), "--json")
    assert status == EXIT_OK
    added = json.loads(out)
    assert (added["qid"], added["paraphrase_of"]) == ("A1-P1", "A1")
    assert not [f for f in added["findings"] if f["severity"] == "error"]
    status, out, _ = run(capsys, "question", "update-from-original", "A1-P1", "--project", str(project))
    assert status == EXIT_OK and out.strip() == "A1-P1: already has A1's rubric; nothing saved"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["paraphrase", "Z9", "--text", WORDING], "the set has no question Z9"),
        (["paraphrase", "A1", "--text", "  "], "the paraphrase's wording is empty"),
        (["update-from-original", "A2"], "A2 is not a paraphrase"),
    ],
)
def test_bad_input_is_one_line(
    project: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    capsys.readouterr()
    status, out, err = run(capsys, "question", *argv, "--project", str(project))
    assert status == EXIT_USAGE and out == ""
    assert err.count("\n") == 1 and message in err


def test_export_and_import_keep_paraphrase_of(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, "question", "paraphrase", "A2", "--text", WORDING, "--project", str(project))
    exported = tmp_path / "out.json"
    assert main(["rubric", "export", "-o", str(exported), "--project", str(project)]) == EXIT_OK
    data = json.loads(exported.read_text(encoding="utf-8"))
    assert [(q["id"], q.get("paraphrase_of")) for q in data["questions"]] == [
        ("A1", None),
        ("A2", None),
        ("A2-P1", "A2"),
    ]
    assert data["questions"][2] == new_paraphrase(data["questions"][1], "A2-P1", WORDING)
    again = new_project(tmp_path / "q")
    assert main(["rubric", "import", str(exported), "--project", str(again)]) == EXIT_OK
    second = tmp_path / "again.json"
    assert main(["rubric", "export", "-o", str(second), "--project", str(again)]) == EXIT_OK
    assert second.read_bytes() == exported.read_bytes()
    capsys.readouterr()
    status, out, _ = run(capsys, "rubric", "validate", str(second), "--json")
    assert status == EXIT_OK and not [f for f in json.loads(out)["findings"] if f["code"].startswith("paraphrase")]
