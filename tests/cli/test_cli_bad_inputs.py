"""Bad input anywhere on the command line is one line on stderr and exit status 2.

Each case is a file or an option an outside tester found reaching the catch-all
handler (a raw ``RecursionError``, ``IsADirectoryError``, ``OverflowError`` ...) or
being accepted when it should not be. Nothing here reaches the network: judges and
models are ``openai:`` specs on a closed loopback port, and every case fails before
one would be asked anything.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from gtreview.cli.main import main
from gtreview.store import sets
from gtreview.store.db import unit_of_work
from gtreview.store.project import open_project
from tests.projects import new_project
from tests.report.test_exports import RUBRIC
from tests.results.test_one_source import config, run
from tests.rubric_factory import mutated, rubric

NOWHERE = "openai:http://127.0.0.1:9/v1#m"  # port 9 (discard): never answered
DEEP_ARRAY = "[" * 100_000
DEEP_OBJECT = '{"a":' * 100_000


class Inputs:
    """The files every case draws on, in one temporary folder."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.rubric = self.write("rubric.json", json.dumps(rubric(1)))
        self.deep = self.write("deep.json", DEEP_ARRAY)
        self.deep_object = self.write("deep_object.json", DEEP_OBJECT)
        self.folder = root / "folder.json"
        self.folder.mkdir()
        self.a_file = self.write("plain.txt", "not a folder\n")
        self.project = new_project(root / "project")

    def write(self, name: str, text: str) -> Path:
        path = self.root / name
        path.write_text(text, encoding="utf-8")
        return path

    def rubric_with(self, name: str, path: str, value: object) -> Path:
        text = json.dumps(mutated(rubric(1), path, value))
        return self.write(name, text)


Case = Callable[[Inputs], list[str]]

CASES: dict[str, tuple[Case, str]] = {
    # deeply nested JSON in every kind of file that is JSON
    "rubric-deep-array": (lambda f: ["rubric", "validate", str(f.deep)], "nested deeper than"),
    "rubric-deep-object": (lambda f: ["rubric", "import", str(f.deep_object), "--project", str(f.project)], "nested"),
    "answers-deep": (
        lambda f: ["score", "--rubric", str(f.rubric), "--answers", str(f.deep), "--judge", NOWHERE],
        "nested deeper than",
    ),
    "compare-deep": (
        lambda f: ["compare", "--rubric", str(f.rubric), "--a", str(f.deep), "--b", str(f.deep), "--judge", NOWHERE],
        "nested deeper than",
    ),
    "scores-deep": (
        lambda f: [
            "harness",
            "import",
            "--rubric",
            str(f.rubric),
            "--scores",
            str(f.deep),
            "--project",
            str(f.project),
        ],
        "nested deeper than",
    ),
    "models-deep": (
        lambda f: [
            "run",
            "--rubric",
            str(f.rubric),
            "--models-json",
            str(f.deep),
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--judge",
            NOWHERE,
            "--project",
            str(f.project),
        ],
        "nested deeper than",
    ),
    # a folder where a file is expected
    "rubric-folder": (lambda f: ["rubric", "validate", str(f.folder)], "is a folder"),
    "grades-folder": (lambda f: ["grades", "check", "--rubric", str(f.rubric), str(f.folder)], "is a folder"),
    "answers-folder": (
        lambda f: ["score", "--rubric", str(f.rubric), "--answers", str(f.folder), "--judge", NOWHERE],
        "is a folder",
    ),
    "models-folder": (
        lambda f: ["run", "--rubric", str(f.rubric), "--models-json", str(f.folder), "--judge", NOWHERE],
        "is a folder",
    ),
    "public-key-folder": (
        lambda f: ["release", "verify", str(f.root), "--public-key", str(f.folder)],
        "is a folder",
    ),
    "trust-folder": (lambda f: ["keys", "trust", str(f.folder), "--name", "x"], "is a folder"),
    "project-is-a-file": (lambda f: ["rubric", "import", str(f.rubric), "--project", str(f.a_file)], "plain.txt"),
    # numbers and text that validate but could not be stored or written back
    "rubric-nan": (lambda f: ["rubric", "validate", str(f.rubric_with("nan.json", "x_n", float("nan")))], "NaN"),
    "rubric-infinity": (
        lambda f: ["rubric", "validate", str(f.rubric_with("inf.json", "x_n", float("inf")))],
        "Infinity",
    ),
    "rubric-huge-float": (
        lambda f: [
            "rubric",
            "import",
            str(f.write("big.json", json.dumps(rubric(1)).replace('"2.0"', '"2.0", "x": 1e400'))),
            "--project",
            str(f.project),
        ],
        "not a finite JSON number",
    ),
    "rubric-surrogate": (
        lambda f: [
            "rubric",
            "import",
            str(f.rubric_with("s.json", "questions.0.title", "a\ud800b")),
            "--project",
            str(f.project),
        ],
        "unpaired surrogate",
    ),
    "corpus-huge-page": (
        lambda f: [
            "corpus",
            "import",
            str(f.write("r.txt", "=== page 99999999999999999999 ===\nx\n")),
            "--project",
            str(f.project),
        ],
        "names a page over",
    ),
    # options
    "temperature-nan": (
        lambda f: [
            "run",
            "--rubric",
            str(f.rubric),
            "--model",
            f"a={NOWHERE}",
            "--judge",
            NOWHERE,
            "--temperature",
            "nan",
        ],
        "--temperature",
    ),
    "max-tokens-negative": (
        lambda f: [
            "run",
            "--rubric",
            str(f.rubric),
            "--model",
            f"a={NOWHERE}",
            "--judge",
            NOWHERE,
            "--max-tokens",
            "-5",
        ],
        "--max-tokens",
    ),
    "seed-huge": (
        lambda f: [
            "run",
            "--rubric",
            str(f.rubric),
            "--model",
            f"a={NOWHERE}",
            "--judge",
            NOWHERE,
            "--seed",
            str(10**30),
        ],
        "--seed",
    ),
    "unknown-option": (lambda f: ["rubric", "validate", str(f.rubric), "--no-such-option"], "unrecognized arguments"),
}


@pytest.fixture
def inputs(tmp_path: Path) -> Inputs:
    return Inputs(tmp_path)


def one_line_error(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    try:
        status = main(argv)
    except SystemExit as exit_:  # argparse's own exit
        status = int(exit_.code or 0)
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert status == 2, (status, captured.err[-500:])
    assert len(lines) == 1, captured.err[-2000:]
    assert "Traceback" not in captured.err and "Error:" not in lines[0].split("error:", 1)[-1][:40]
    return lines[0]


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_input_is_one_line_and_exit_status_2(inputs: Inputs, capsys: pytest.CaptureFixture[str], name: str) -> None:
    build, expected = CASES[name]
    line = one_line_error(capsys, build(inputs))
    assert line.startswith("gtreview") and expected in line


# --- outputs that cannot be written ---------------------------------------------------------


@pytest.fixture
def finished(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, int]:
    monkeypatch.setattr("gtreview.runs.execute.spec_identity", lambda spec: {"spec": spec})
    folder = new_project(tmp_path / "project")
    project = open_project(folder)
    try:
        with unit_of_work(project.engine) as tx:
            set_id = sets.import_rubric(tx, RUBRIC, source_name="r.json", source_sha256="s", actor="t")
        run_id = run(project.engine, set_id, config())
    finally:
        project.close()
    return folder, run_id


@pytest.mark.parametrize("where", ["folder", "under-a-file"])
def test_unwritable_outputs_are_one_line(
    finished: tuple[Path, int], tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str
) -> None:
    folder, run_id = finished
    blocker = tmp_path / "plain.txt"
    blocker.write_text("x", encoding="utf-8")
    existing_folder = tmp_path / "out"
    existing_folder.mkdir()
    target = existing_folder if where == "folder" else blocker / "out.file"
    project = ["--project", str(folder)]
    for argv in (
        ["report", "--run", str(run_id), "--pdf", str(target), *project],
        ["export", "csv", "--run", str(run_id), "-o", str(target), *project],
        ["rubric", "export", "--set", "1", "--format", "md", "-o", str(target), *project],
    ):
        line = one_line_error(capsys, argv)
        assert str(target) in line, line


def test_a_deeply_nested_grading_record_is_a_violation_of_its_line(
    inputs: Inputs, capsys: pytest.CaptureFixture[str]
) -> None:
    grades = inputs.write("grades.jsonl", '{"question_id": "A1"}\n' + DEEP_ARRAY + "\n")
    status = main(["grades", "check", "--rubric", str(inputs.rubric), str(grades), "--json"])
    captured = capsys.readouterr()
    assert status == 1 and "Traceback" not in captured.err
    lines = {line["line"]: line for line in json.loads(captured.out)}
    assert any("nested deeper than" in v for v in lines[2]["violations"])


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (IsADirectoryError(21, "Is a directory", "/tmp/out"), "/tmp/out: Is a directory"),
        (FileExistsError(17, "File exists", "/a", None, "/b"), "/a -> /b: File exists"),
        (OSError(28, "No space left on device"), "failed: No space left on device"),
        (RecursionError("maximum recursion depth exceeded"), "nested too deeply"),
        (OverflowError("Python int too large to convert to SQLite INTEGER"), "a number in the input is too large"),
        ("\ud800".encode, "cannot be written as UTF-8"),
    ],
)
def test_failures_about_files_or_input_are_sentences(error: object, expected: str) -> None:
    """The net under every source fixed one by one: these are never 'a bug' lines."""
    from gtreview.cli.main import plain_reason

    if callable(error):
        with pytest.raises(UnicodeEncodeError) as info:
            error()
        error = info.value
    assert isinstance(error, Exception)
    reason = plain_reason(error)
    assert reason is not None and expected in reason and "\n" not in reason
    assert plain_reason(KeyError("x")) is None


def test_a_rubric_with_a_huge_fixture_total_imports_with_its_errors(
    inputs: Inputs, capsys: pytest.CaptureFixture[str]
) -> None:
    """Imports keep rubrics with errors; a total too big for SQLite is no reason to crash."""
    path = inputs.rubric_with("total.json", "questions.0.calibration.0.expected_total", 10**30)
    assert main(["rubric", "import", str(path), "--project", str(inputs.project), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["errors"] >= 1
