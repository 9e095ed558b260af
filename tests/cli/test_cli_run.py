"""`gtreview run` for real: tiny GGUF models (base and LoRA) in worker processes, a loopback judge,
SIGKILL mid-pass, and a rerun that resumes without duplicates or recomputation."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from gtreview.app.sample_project import sample_rubric_path
from gtreview.core.rubric import rubric_from_json_text
from tests.inference.vllm_loopback import vllm_server
from tests.judging.loopback import judge_server
from tests.judging.scripted import fixture_reply, verdict_json
from tests.projects import new_project

RUBRIC = sample_rubric_path()


def judge(messages: list[dict[str, Any]]) -> str:
    rubric = rubric_from_json_text(RUBRIC.read_text(encoding="utf-8"))
    content = messages[1]["content"]
    if "MARKING BLOCK" not in content:  # a generation request: the loopback also serves the models
        return "The oxidised zone ends at the water level."
    if "ANSWER A:" in content:
        return json.dumps({"reason": "r", "verdict": "[[A=B]]"})
    question = next(q for q in rubric.questions if f"QUESTION {q.id}:" in content)
    for fixture in question.calibration:
        if f"<<<\n{fixture.response_text}\n>>>" in content:
            return fixture_reply(question, fixture)
    return verdict_json(question, True, {})


def command(project: Path, model: Path, lora: Path, url: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "gtreview.cli",
        "run",
        "--rubric",
        str(RUBRIC),
        "--project",
        str(project),
        "--model",
        f"base=llama:{model}?ctx=8192&seq=4&threads=1",
        "--model",
        f"lora=llama:{model}?lora={lora}&ctx=8192&seq=4&threads=1",
        "--judge",
        f"openai:{url}#judge",
        "--repeats",
        "2",
        "--max-tokens",
        "16",
        "--json",
    ]


def counts(project: Path) -> dict[str, int]:
    tables = ("generation", "judgement", "pair_judgement")
    try:
        with sqlite3.connect(project / "project.sqlite") as db:
            return {t: db.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in tables}
    except sqlite3.OperationalError:  # the pass is still creating the project
        return dict.fromkeys(tables, 0)


@pytest.fixture(scope="module")
def lora(tiny_judge_gguf: Path) -> Path:
    from tests.gguf_factory import write_tiny_lora_gguf

    return write_tiny_lora_gguf(tiny_judge_gguf.with_name("judge-lora.gguf"), tiny_judge_gguf)


@pytest.mark.skipif(sys.platform == "win32", reason="process groups and SIGKILL are POSIX")
def test_kill_mid_pass_then_resume(tmp_path: Path, tiny_judge_gguf: Path, lora: Path) -> None:
    project = new_project(tmp_path / "project")
    with judge_server(judge) as url:
        child = subprocess.Popen(
            command(project, tiny_judge_gguf, lora, url),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        try:
            deadline = time.monotonic() + 180
            while not (project / "project.sqlite").exists() or counts(project)["generation"] == 0:
                assert child.poll() is None, child.stderr.read().decode() if child.stderr else ""
                assert time.monotonic() < deadline
                time.sleep(0.05)
            os.killpg(child.pid, signal.SIGKILL)  # the CLI and its model workers, mid-pass
            child.wait(timeout=30)
        finally:
            if child.poll() is None:
                os.killpg(child.pid, signal.SIGKILL)
        partial = counts(project)
        assert 0 < partial["generation"] < 40

        resumed = subprocess.run(
            command(project, tiny_judge_gguf, lora, url), capture_output=True, text=True, timeout=600
        )
        assert resumed.returncode == 0, resumed.stderr
        first = json.loads(resumed.stdout)
        assert first["reused"] == partial["generation"]
        assert first["generated"] + first["generation_errors"] == 40 - partial["generation"]
        after = counts(project)
        with sqlite3.connect(project / "project.sqlite") as db:
            answered = db.execute("SELECT count(*) FROM generation WHERE status = 'ok'").fetchone()[0]
        assert after == {"generation": 40, "judgement": answered, "pair_judgement": 20}

        again = subprocess.run(
            command(project, tiny_judge_gguf, lora, url), capture_output=True, text=True, timeout=600
        )
        assert again.returncode == 0, again.stderr
        final = json.loads(again.stdout)
        assert final["model_calls"] == 0 and final["reused"] == 40  # a finished pass reruns without a model call
        assert counts(project) == after

    with sqlite3.connect(project / "project.sqlite") as db:
        config = json.loads(db.execute("SELECT config_json FROM run").fetchone()[0])
        recorded = next(v for k, v in config["models"].items() if "lora=" in k)
        assert recorded["lora_sha256"] and recorded["model_sha256"] and recorded["llama_cpp_python"]
        # a LoRA changes the model: the two labels' answers are keyed (and generated) apart
        keys = db.execute("SELECT count(DISTINCT key) FROM generation").fetchone()[0]
        assert keys == 40


def test_models_from_a_harness_models_json(tmp_path: Path) -> None:
    models = tmp_path / "models.json"
    models.write_text(
        json.dumps(
            [
                {"label": "base", "model": "org/base-7b", "lora": "", "provider": "vllm"},
                {
                    "label": "geo",
                    "model": "org/base-7b",
                    "lora": "org/geo-lora",
                    "max_lora_rank": 64,
                    "provider": "vllm",
                },
            ]
        ),
        encoding="utf-8",
    )
    project = new_project(tmp_path / "project")
    # the server serves the base under its repo name and the LoRA under its label (and the judge)
    with vllm_server(["org/base-7b", "geo", "judge"], judge) as server:
        url = server.url
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "gtreview.cli",
                "run",
                "--rubric",
                str(RUBRIC),
                "--project",
                str(project),
                "--models-json",
                str(models),
                "--base-url",
                url,
                "--judge",
                f"openai:{url}#judge",
                "--json",
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["generated"] == 20 and summary["pairs"] == 10
    with sqlite3.connect(project / "project.sqlite") as db:
        labels = {row[0] for row in db.execute("SELECT DISTINCT model_label FROM generation")}
    assert labels == {"base", "geo"}
    assert {"org/base-7b", "geo", "judge"} == set(server.asked)
