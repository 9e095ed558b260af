"""``gtreview run --judge-repeats J --judge-repeat-mode``: J verdicts per answer over a loopback
server, a rerun that asks nothing, the noise in ``gtreview results --json``, bad J in one line."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from gtreview.cli.main import main
from tests.cli.test_cli_run import RUBRIC, judge
from tests.inference.vllm_loopback import vllm_server
from tests.projects import new_project


def run_args(project: Path, url: str, *extra: str) -> list[str]:
    return [
        "run",
        "--rubric",
        str(RUBRIC),
        "--project",
        str(project),
        "--model",
        f"base=openai:{url}#base",
        "--judge",
        f"openai:{url}#judge",
        "--no-pairwise",
        "--drift-every",
        "0",
        "--json",
        *extra,
    ]


def test_judge_repeats_from_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = new_project(tmp_path / "project")
    with vllm_server(["base", "judge"], judge) as server:
        assert main(run_args(project, server.url, "--judge-repeats", "3", "--judge-repeat-mode", "seeded")) == 0
        first = json.loads(capsys.readouterr().out)
        asked = server.asked.count("judge")
        assert main(run_args(project, server.url, "--judge-repeats", "3", "--judge-repeat-mode", "seeded")) == 0
        again = json.loads(capsys.readouterr().out)
        assert server.asked.count("judge") == asked  # a rerun asks the judge nothing
    assert first["judged"] == 3 * first["generated"] and asked == first["judged"]
    assert again["run_id"] == first["run_id"] and again["model_calls"] == 0
    with sqlite3.connect(project / "project.sqlite") as db:
        (judgements,) = db.execute("SELECT count(*) FROM judgement").fetchone()
        (config,) = db.execute("SELECT config_json FROM run").fetchone()
    assert judgements == first["judged"]
    stored = json.loads(config)["pass"]
    assert (stored["judge_repeats"], stored["judge_repeat_mode"]) == (3, "seeded")

    assert main(["results", "--run", str(first["run_id"]), "--project", str(project), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["judge_repeats"] == 3
    (base,) = printed["noise"]["models"]
    assert base["model"] == "base" and base["judge_measured"] is True
    assert base["split"]["judge_variance"] == 0.0  # this judge says the same every time
    assert printed["noise_reading"]["readings"][0].startswith("base: variance between answers")


@pytest.mark.parametrize(("value", "message"), [("0", "must be at least 1"), ("two", "expected an integer")])
def test_bad_judge_repeats_are_one_line(
    value: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(run_args(tmp_path / "p", "http://127.0.0.1:9", "--judge-repeats", value))
    err = capsys.readouterr().err
    assert stopped.value.code == 2 and message in err and "--judge-repeats" in err
    assert not (tmp_path / "p").exists()  # refused before any project is made
