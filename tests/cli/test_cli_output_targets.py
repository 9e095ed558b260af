"""Every command that writes a file the user names treats the name as ``cp`` or ``tee``
would: ``/dev/null`` and a named pipe are written to (and stay what they are), ``-`` is
standard output (the command's own lines go to stderr), a symbolic link is followed
(the file it names is replaced, the link kept), and ``/dev/full`` is one line on
stderr with exit status 2. As root the devices are private copies (tests/special_files.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

import pytest

from gtreview.cli.main import main
from gtreview.store import sets
from gtreview.store.db import unit_of_work
from gtreview.store.project import open_project
from tests.judging.loopback import judge_server
from tests.judging.scripted import verdict_json
from tests.projects import new_project
from tests.report.test_exports import RUBRIC
from tests.results.test_one_source import config, run
from tests.special_files import device, fifo_reader, is_device, is_fifo


def _csv(data: bytes) -> bool:
    return data.startswith(b"question_id,model,")


def _rubric(data: bytes) -> bool:
    return [q["id"] for q in json.loads(data)["questions"]] == [q.id for q in RUBRIC.questions]


def _pdf(data: bytes) -> bool:
    return data.startswith(b"%PDF") and b"%%EOF" in data[-64:]


def _judgements(data: bytes) -> bool:
    return [r["question_id"] for r in json.loads(data)] == ["A1"]


class Setup:
    """A project with a finished run, a rubric file and an answers file."""

    def __init__(self, root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr("gtreview.runs.execute.spec_identity", lambda spec: {"spec": spec})
        self.project = new_project(root / "project")
        project = open_project(self.project)
        try:
            with unit_of_work(project.engine) as tx:
                set_id = sets.import_rubric(tx, RUBRIC, source_name="r.json", source_sha256="s", actor="t")
            self.run_id = run(project.engine, set_id, config())
        finally:
            project.close()
        self.rubric = root / "rubric.json"
        self.rubric.write_text(json.dumps(RUBRIC.to_json_dict()), encoding="utf-8")
        self.answers = root / "answers.json"
        self.answers.write_text(json.dumps([{"id": "A1", "answer": "An answer."}]), encoding="utf-8")


def _judge(messages: list[dict[str, Any]]) -> str:
    question = next(q for q in RUBRIC.questions if f"QUESTION {q.id}:" in messages[1]["content"])
    return verdict_json(question, True, {})


Command = Callable[[Setup, str, str], list[str]]  # (setup, target, judge url) -> argv

COMMANDS: dict[str, tuple[Command, Callable[[bytes], bool]]] = {
    "export-csv": (
        lambda s, out, _: ["export", "csv", "--run", str(s.run_id), "-o", out, "--project", str(s.project)],
        _csv,
    ),
    "rubric-export": (
        lambda s, out, _: ["rubric", "export", "--set", "1", "-o", out, "--project", str(s.project)],
        _rubric,
    ),
    "report-pdf": (
        lambda s, out, _: ["report", "--run", str(s.run_id), "--pdf", out, "--project", str(s.project)],
        _pdf,
    ),
    "score": (
        lambda s, out, url: [
            "score",
            "--rubric",
            str(s.rubric),
            "--answers",
            str(s.answers),
            "--judge",
            f"openai:{url}#judge",
            "--drift-every",
            "0",
            "-o",
            out,
        ],
        _judgements,
    ),
}


@pytest.fixture
def setup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Setup:
    return Setup(tmp_path, monkeypatch)


def gtreview(name: str, setup: Setup, target: Path | str) -> int:
    build, _ = COMMANDS[name]
    server: AbstractContextManager[str] = judge_server(_judge) if name == "score" else nullcontext("")
    with server as url:
        return main(build(setup, str(target), url))


@pytest.fixture(params=sorted(COMMANDS))
def command(request: pytest.FixtureRequest) -> Iterator[str]:
    yield request.param


def test_dev_null_is_written_to_and_stays_a_device(
    command: str, setup: Setup, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    null = device(tmp_path, "null")
    assert gtreview(command, setup, null) == 0, capsys.readouterr().err
    assert is_device(null)


def test_dev_full_is_one_line_and_exit_2(
    command: str, setup: Setup, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    full = device(tmp_path, "full")
    status = gtreview(command, setup, full)
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and err == [f"gtreview: error: cannot write {full}: No space left on device"]
    assert is_device(full)


def test_a_named_pipe_gets_the_output(command: str, setup: Setup, tmp_path: Path) -> None:
    _, valid = COMMANDS[command]
    with fifo_reader(tmp_path) as (pipe, received):
        status = gtreview(command, setup, pipe)
    assert status == 0 and len(received) == 1 and valid(received[0])
    assert is_fifo(pipe)


def test_dash_is_standard_output_and_nothing_else(
    command: str,
    setup: Setup,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capfdbinary: pytest.CaptureFixture[bytes],
) -> None:
    _, valid = COMMANDS[command]
    monkeypatch.chdir(tmp_path)
    before = set(tmp_path.iterdir())
    status = gtreview(command, setup, "-")
    captured = capfdbinary.readouterr()
    assert status == 0, captured.err
    assert valid(captured.out)  # the file alone: what the command says went to stderr
    assert set(tmp_path.iterdir()) == before  # no file named "-"


def test_a_link_is_followed_and_kept(command: str, setup: Setup, tmp_path: Path) -> None:
    _, valid = COMMANDS[command]
    real = tmp_path / "real.out"
    real.write_text("old", encoding="utf-8")
    link = tmp_path / "link.out"
    link.symlink_to(real)
    assert gtreview(command, setup, link) == 0
    assert link.is_symlink() and link.resolve() == real.resolve() and valid(real.read_bytes())


@pytest.mark.parametrize("through_link", [False, True], ids=["path", "dangling-link"])
def test_a_missing_folder_is_refused_not_made(
    command: str, setup: Setup, tmp_path: Path, capsys: pytest.CaptureFixture[str], through_link: bool
) -> None:
    """As ``cp``: a typo in the folder is refused in one line, and no folder appears."""
    missing = tmp_path / "no-such" / "deeper"
    target = missing / "out.file"
    if through_link:
        link = tmp_path / "link.out"
        link.symlink_to(target)
        target = link
    with pytest.raises(SystemExit) as refused:  # a usage error, before the command runs
        gtreview(command, setup, target)
    err = capsys.readouterr().err.strip().splitlines()
    assert refused.value.code == 2 and len(err) == 1 and f"no such folder: {missing}" in err[0]
    assert not (tmp_path / "no-such").exists()
