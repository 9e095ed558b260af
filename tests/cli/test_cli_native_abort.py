"""A GGUF that aborts llama.cpp (SIGABRT) on first use, under every command that loads a
model outside a pass: each exits non-zero with one line on stderr naming the model and
the crash, no native output, and the command's own process is never killed by a signal
(the model runs in a worker process; the factory opens every local model there). And a
judge whose context cannot hold the prompts is refused the same way, before any call."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from gtreview.app.sample_project import ensure_sample_project
from tests.cli.test_cli_rubric import gtreview

DIED = "model worker died (signal SIGABRT) running aborting.gguf: terminate called after throwing an instance of 'std::out_of_range'"


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory, interop_dir: Path, aborting_gguf: Path) -> dict[str, Path | str]:
    root = tmp_path_factory.mktemp("abort-cli")
    answers = root / "answers.json"
    answers.write_text(json.dumps([{"id": "A1", "answer": "The reef is oxidised."}]), encoding="utf-8")
    ensure_sample_project(root / "project").close()
    return {
        "rubric": interop_dir / "rubrics" / "Yudnamutana_QA_grading_key.json",
        "answers": answers,
        "project": root / "project",
        "spec": f"llama:{aborting_gguf}?ctx=4096&seq=2&threads=1",
    }


COMMANDS = {
    "calibrate": ["calibrate", "--rubric", "{rubric}", "--judge", "{spec}"],
    "score": ["score", "--rubric", "{rubric}", "--answers", "{answers}", "--judge", "{spec}"],
    "score-no-drift": [
        "score",
        "--rubric",
        "{rubric}",
        "--answers",
        "{answers}",
        "--drift-every",
        "0",
        "--judge",
        "{spec}",
    ],
    "compare": ["compare", "--rubric", "{rubric}", "--a", "{answers}", "--b", "{answers}", "--judge", "{spec}"],
    "probe": ["probe", "--project", "{project}", "--model", "base={spec}", "--model", "ft={spec}", "--passages", "4"],
    "draft": ["draft", "--project", "{project}", "--model", "{spec}", "--questions", "2", "--context-chars", "2000"],
}


def args(template: Sequence[str], files: dict[str, Path | str]) -> list[str]:
    return [part.format(**{k: str(v) for k, v in files.items()}) for part in template]


def error_lines(stderr: str) -> list[str]:
    """What stderr says beyond calibrate's progress lines ("loading the judge …", "judging
    9 fixtures …", "[n/N] …"), which come first and end in "…" or start with "[": the error
    must be one line, and the last."""
    lines = stderr.strip().splitlines()
    rest = [line for line in lines if not (line.endswith("…") or line.startswith("["))]
    assert not rest or lines[-1] == rest[-1], stderr  # nothing after the error
    return rest


@pytest.mark.parametrize("name", list(COMMANDS))
def test_a_native_abort_is_one_line_and_the_command_survives(name: str, files: dict[str, Path | str]) -> None:
    result = gtreview(*args(COMMANDS[name], files))
    assert result.returncode == 2, (result.returncode, result.stderr)  # a one-line error, not a signal
    lines = error_lines(result.stderr)
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("gtreview: error: ") and DIED in lines[0]
    assert ("model base: " if name == "probe" else str(files["spec"])) in lines[0]
    assert result.stdout == ""


def test_calibrate_with_a_judge_context_too_small_is_one_line_before_any_call(
    files: dict[str, Path | str], tiny_judge_gguf: Path
) -> None:
    """The fixtures' prompts (about 3,500 tokens) plus the judge's 1,024-token reply do
    not fit a 4,096-token context: said once, before the judge is asked anything."""
    spec = f"llama:{tiny_judge_gguf}?ctx=4096&seq=2&threads=1"
    result = gtreview("calibrate", "--rubric", files["rubric"], "--judge", spec)
    assert result.returncode == 2 and result.stdout == ""
    (line,) = error_lines(result.stderr)
    assert line.startswith("gtreview: error: 9 of 9 judge prompts do not fit the 4,096-token context of llama:")
    assert "question A1 fixture A1-F1 needs " in line and "+ 1,024 reply = " in line and "and 6 more" in line
