"""`gtreview doctor` and Help > Check local inference: each model in a worker, what is wrong in one line each.

Real models load in worker processes (as a pass runs them), so nothing native runs here.
"""

from __future__ import annotations

import json
from pathlib import Path

from gtreview.app.doctor import CHECK_MODEL, check_local_inference, configured_models
from gtreview.app.project_settings import set_last_pass, set_project_judge
from gtreview.inference.build_info import parse_system_info
from gtreview.runs.plan import ModelEntry, PassConfig
from gtreview.store.project import create_project
from tests.cli.test_cli_rubric import gtreview


def test_system_info_parses_into_backends_and_features() -> None:
    text = (
        "CUDA : ARCHS = 890 | USE_GRAPHS = 1 | PEER_MAX_BATCH_SIZE = 128 | CPU : SSE3 = 1 | AVX = 1 | AMX_INT8 = 0 | "
    )
    assert parse_system_info(text) == {
        "CUDA": {"ARCHS": "890", "USE_GRAPHS": "1", "PEER_MAX_BATCH_SIZE": "128"},
        "CPU": {"SSE3": "1", "AVX": "1", "AMX_INT8": "0"},
    }


def test_a_working_model_and_a_crashing_one_are_each_one_line(tiny_gguf: Path, aborting_gguf: Path) -> None:
    steps: list[str] = []
    report = check_local_inference(
        None, [f"llama:{tiny_gguf}?ctx=512&seq=1", f"llama:{aborting_gguf}?ctx=512&seq=1"], on_progress=steps.append
    )
    assert report.build.python_package == "0.3.36" and "CPU" in report.build.backends
    assert report.models[0].label == CHECK_MODEL
    check, tiny, aborting = report.models
    assert check.ok and tiny.ok and check.tokens == tiny.tokens == 8
    assert not aborting.ok and "\n" not in aborting.detail
    assert aborting.detail.startswith("model worker died (signal SIGABRT) running aborting.gguf")
    assert not report.ok and report.problems == [f"{aborting.label}: {aborting.detail}"]
    text = report.lines()
    assert text[-2:] == ["what is wrong", f"  {report.problems[0]}"]
    assert any(line.startswith("  AMX: ") for line in text)
    assert steps[:2] == ["reading the llama.cpp build", "probing the CPU"] and len(steps) == 5


def test_the_projects_judge_and_last_pass_models_are_the_configured_ones(tmp_path: Path) -> None:
    project = create_project(tmp_path / "p")
    try:
        assert configured_models(project.engine) == []
        set_project_judge(project.engine, "llama:/models/judge.gguf")
        base = ModelEntry(label="base", spec="llama:/models/base.gguf")
        tuned = ModelEntry(label="geo", spec="llama:/models/base.gguf?lora=/models/geo.gguf")
        set_last_pass(project.engine, PassConfig(name="p", models=[base, tuned], judge="llama:/models/judge.gguf"))
        assert configured_models(project.engine) == [
            ("judge", "llama:/models/judge.gguf"),
            ("base", "llama:/models/base.gguf"),
            ("geo", "llama:/models/base.gguf?lora=/models/geo.gguf"),
        ]
    finally:
        project.close()


def test_the_cli_exits_1_naming_a_missing_model_and_its_json_agrees(tmp_path: Path) -> None:
    missing = tmp_path / "gone.gguf"
    done = gtreview("doctor", "--model", f"llama:{missing}", "--project", tmp_path / "none", "--json")
    assert done.returncode == 2 and "not a gtreview project" in json.loads(done.stdout)["error"]  # a mistyped project
    assert not (tmp_path / "none").exists()
    create_project(tmp_path / "p").close()
    done = gtreview("doctor", "--model", f"llama:{missing}", "--project", tmp_path / "p", "--json")
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert report["ok"] is False and report["models"][0]["ok"] is True  # the check model runs
    assert len(report["problems"]) == 1 and str(missing) in report["problems"][0]
    assert "this project names no model yet" in report["note"]
    text = gtreview("doctor", "--model", f"llama:{missing}", "--project", tmp_path / "p")
    assert text.returncode == 1 and text.stdout.splitlines()[-1] == f"  {report['problems'][0]}"
