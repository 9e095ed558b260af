"""Inputs that are not regular files, numbers too long to read and damaged PDFs: each is
one line on stderr and exit status 2, never a wait, a raw ValueError or pypdf's warnings.

A named pipe given as an input is fed a valid file by a thread once something opens it
to read, so a reader that opened it would get on with the command instead of being
refused (and one that waits for a writer does not hang the test)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from gtreview.cli.main import main
from gtreview.report.signing import b64
from tests.cli.test_cli_bad_inputs import NOWHERE
from tests.cli.test_cli_rubric import gtreview
from tests.corpus.test_readers import make_pdf
from tests.projects import new_project
from tests.rubric_factory import rubric
from tests.special_files import fifo_writer

RUBRIC_TEXT = json.dumps(rubric(1)).encode()
ANSWERS = json.dumps([{"id": "A1", "answer": "An answer."}]).encode()
GRADES = json.dumps({"question_id": "A1", "gate_passed": True, "total": 0, "components": []}).encode() + b"\n"
PUBLIC_KEY = (b64(bytes(32)) + "\n").encode()


class Files:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.rubric = root / "rubric.json"
        self.rubric.write_bytes(RUBRIC_TEXT)
        self.project = new_project(root / "project")
        self.bundle = root / "bundle"
        self.bundle.mkdir()

    def write(self, name: str, text: str) -> Path:
        path = self.root / name
        path.write_text(text, encoding="utf-8")
        return path


Argv = Callable[[Files, Path], list[str]]

# command -> (the argv with the pipe in an input's place, what the pipe would be fed)
PIPED: dict[str, tuple[Argv, bytes]] = {
    "rubric-validate": (lambda f, pipe: ["rubric", "validate", str(pipe)], RUBRIC_TEXT),
    "rubric-import": (lambda f, pipe: ["rubric", "import", str(pipe), "--project", str(f.project)], RUBRIC_TEXT),
    "score-answers": (
        lambda f, pipe: ["score", "--rubric", str(f.rubric), "--answers", str(pipe), "--judge", NOWHERE],
        ANSWERS,
    ),
    "grades-check": (lambda f, pipe: ["grades", "check", "--rubric", str(f.rubric), str(pipe)], GRADES),
    "corpus-import": (lambda f, pipe: ["corpus", "import", str(pipe), "--project", str(f.project)], b"Some text.\n"),
    "release-public-key": (
        lambda f, pipe: ["release", "verify", str(f.bundle), "--public-key", str(pipe)],
        PUBLIC_KEY,
    ),
    "release-trusted-keys": (
        lambda f, pipe: ["release", "verify", str(f.bundle), "--trusted-keys", str(pipe)],
        PUBLIC_KEY[:-1] + b" someone\n",
    ),
    "keys-trust": (
        lambda f, pipe: ["keys", "trust", str(pipe), "--name", "x", "--trusted-keys", str(f.root / "trusted.txt")],
        PUBLIC_KEY,
    ),
    "models-json": (
        lambda f, pipe: [
            "run",
            "--rubric",
            str(f.rubric),
            "--models-json",
            str(pipe),
            "--judge",
            NOWHERE,
            "--project",
            str(f.project),
        ],
        b"[]",
    ),
}


def one_line(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    try:
        status = main(argv)
    except SystemExit as exit_:
        status = int(exit_.code or 0)
    err = capsys.readouterr().err.strip().splitlines()
    assert (status, len(err)) == (2, 1), (status, err)
    return err[0]


@pytest.mark.parametrize("command", sorted(PIPED))
def test_a_named_pipe_is_refused_unopened(tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str) -> None:
    argv, fed = PIPED[command]
    files = Files(tmp_path)
    with fifo_writer(tmp_path, fed, name="input.txt") as pipe:
        line = one_line(capsys, argv(files, pipe))
    assert f"{pipe}: is not a regular file (a named pipe)" in line


@pytest.mark.parametrize(
    "argv",
    [
        lambda f: ["rubric", "validate", "/dev/zero"],
        lambda f: ["corpus", "import", "/dev/zero", "--project", str(f.project)],
        lambda f: ["grades", "check", "--rubric", str(f.rubric), "/dev/zero"],
    ],
    ids=["rubric", "corpus", "grades"],
)
def test_a_device_is_named_as_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: Callable[[Files], list[str]]
) -> None:
    line = one_line(capsys, argv(Files(tmp_path)))
    assert "/dev/zero: is not a regular file (a device)" in line


LONG = "9" * 5000


@pytest.mark.parametrize(
    "argv",
    [
        lambda f: ["rubric", "validate", str(f.write("r.json", json.dumps(rubric(1))[:-1] + f', "x": {LONG}}}'))],
        lambda f: [
            "score",
            "--rubric",
            str(f.rubric),
            "--answers",
            str(f.write("a.json", f'[{{"id": {LONG}, "answer": "An answer."}}]')),
            "--judge",
            NOWHERE,
        ],
    ],
    ids=["rubric", "answers"],
)
def test_an_integer_too_long_to_read_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: Callable[[Files], list[str]]
) -> None:
    line = one_line(capsys, argv(Files(tmp_path)))
    assert "a number of 5,000 digits (at most 4,300)" in line and "ValueError" not in line


def test_damaged_pdfs_are_one_line_with_pypdfs_first_warning(tmp_path: Path) -> None:
    """In a real process: under pytest a handler of its own on the root logger hides what
    Python's last-resort handler prints when nobody handles pypdf's warnings."""
    good = make_pdf(tmp_path / "good.pdf", [["First page line."], ["Second page line."]]).read_bytes()
    truncated = tmp_path / "truncated.pdf"
    truncated.write_bytes(good[: len(good) * 2 // 3])
    project = new_project(tmp_path / "project")
    result = gtreview("corpus", "import", truncated, "--project", project)
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        "gtreview: error: truncated.pdf: cannot be opened as a PDF (Stream has ended unexpectedly; "
        "first problem: EOF marker not found) (nothing was imported)"
    ]


def test_a_pdf_pypdf_repairs_imports_without_its_warnings_on_stderr(tmp_path: Path) -> None:
    good = make_pdf(tmp_path / "good.pdf", [["First page line."]]).read_bytes()
    repaired = tmp_path / "repaired.pdf"
    repaired.write_bytes(good.replace(b"startxref\n", b"startxref\n9", 1))  # a wrong pointer pypdf works round
    project = new_project(tmp_path / "project")
    result = gtreview("corpus", "import", repaired, "--project", project)
    assert result.returncode == 0, result.stderr
    assert result.stderr == "" and "added" in result.stdout
