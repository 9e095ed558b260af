"""``gtreview run --models-json`` asks the server what it serves; a pass where every generation
failed is no success. The servers are loopback ones started here (127.0.0.1 only): one that
serves every model as ``benchmark`` the way the harness's ``start_eval.sh`` pod does, and the
judge of ``tests.cli.test_cli_run``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gtreview.app.passes import models_from_config
from gtreview.cli.main import main
from gtreview.inference.model_configs import ModelConfigError, served_names
from gtreview.inference.openai_client import ServerQueryError, served_models
from tests.cli.test_cli_run import RUBRIC, judge
from tests.inference.vllm_loopback import vllm_server
from tests.judging.loopback import judge_server
from tests.projects import new_project

ANSWER = "The oxidised zone ends at the water table, below it the sulphides are primary."


def models_json(path: Path) -> Path:
    """The harness's configs/models.json: a base and a LoRA of it, both served by vLLM."""
    entries = [
        {
            "label": "base",
            "model": "org/base-7b",
            "lora": "",
            "tokenizer": None,
            "max_lora_rank": None,
            "provider": "vllm",
        },
        {
            "label": "geo",
            "model": "org/base-7b",
            "lora": "org/geo-lora",
            "tokenizer": "org/base-7b",
            "max_lora_rank": 64,
            "provider": "vllm",
        },
    ]
    path.write_text(json.dumps(entries, indent=2), encoding="utf-8")
    return path


def cli(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    status = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_the_server_is_asked_and_a_lone_served_model_is_used(tmp_path: Path) -> None:
    config = models_json(tmp_path / "models.json")
    with vllm_server(["benchmark"], lambda messages: ANSWER) as pod:
        assert served_models(pod.url + "/v1") == ["benchmark"]
        lineup = models_from_config(config, base_url=pod.url, gguf_dir=None, entries=["geo"])
        assert lineup.models == [("geo", f"openai:{pod.url}#benchmark")]
        assert lineup.notes == [f"geo: {pod.url} does not serve 'geo'; it serves only 'benchmark', used instead"]
        # both entries would become the one model the pod serves: refused, never guessed
        with pytest.raises(ModelConfigError, match="base and geo would both be 'benchmark'"):
            models_from_config(config, base_url=pod.url, gguf_dir=None)
    with vllm_server(["org/base-7b", "geo"], lambda messages: ANSWER) as server:
        lineup = models_from_config(config, base_url=server.url, gguf_dir=None)
        assert [spec for _, spec in lineup.models] == [f"openai:{server.url}#org/base-7b", f"openai:{server.url}#geo"]
        assert lineup.notes == []
    assert served_names([("m", "llama:/x.gguf")], lambda url: []).specs == [("m", "llama:/x.gguf")]
    with pytest.raises(ServerQueryError, match="cannot ask which models it serves"):
        served_models("http://127.0.0.1:9/v1", timeout=2.0)


def test_a_pass_on_the_harness_pod_uses_benchmark_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = models_json(tmp_path / "models.json")
    with vllm_server(["benchmark"], lambda messages: ANSWER) as pod, judge_server(judge) as judge_url:
        status, out, err = cli(
            capsys, "run", "--rubric", RUBRIC, "--models-json", config, "--entry", "geo", "--base-url", pod.url,
            "--judge", f"openai:{judge_url}#judge", "--max-tokens", "16", "--project", new_project(tmp_path / "p"), "--json",
        )  # fmt: skip
    assert status == 0, err
    summary = json.loads(out)
    assert summary["generated"] > 0 and summary["generation_errors"] == 0
    assert "geo: " in err and "it serves only 'benchmark', used instead" in err
    assert summary["notes"] and set(pod.asked) == {"benchmark"}


def test_no_served_name_fits_stops_before_the_pass(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = models_json(tmp_path / "models.json")
    project = tmp_path / "p"
    with vllm_server(["alpha", "beta"], lambda messages: ANSWER) as server:
        status, out, err = cli(
            capsys, "run", "--rubric", RUBRIC, "--models-json", config, "--base-url", server.url,
            "--judge", f"openai:{server.url}#alpha", "--project", project,
        )  # fmt: skip
    assert status == 2 and out == "" and server.asked == []
    assert err.strip().count("\n") == 0
    assert f"base: {server.url} does not serve 'org/base-7b'; it serves 'alpha', 'beta'" in err
    assert not project.exists()


def test_a_pass_where_every_generation_failed_does_not_exit_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with vllm_server(["benchmark"], lambda messages: ANSWER) as pod, judge_server(judge) as judge_url:
        status, out, err = cli(
            capsys, "run", "--rubric", RUBRIC, "--model", f"geo=openai:{pod.url}#org/geo-lora",
            "--judge", f"openai:{judge_url}#judge", "--max-tokens", "16", "--project", new_project(tmp_path / "p"), "--json",
        )  # fmt: skip
    assert status == 1, err
    failure = json.loads(out)  # --json: the one line as {"ok": false, "error": ...}
    assert failure["ok"] is False and "\n" not in failure["error"]
    assert "every generation of geo failed (10 of 10)" in failure["error"]
    assert "HTTP 404: The model `org/geo-lora` does not exist." in failure["error"]
    status, out, _ = cli(capsys, "results", "--run", "1", "--json", "--project", tmp_path / "p")
    assert status == 0 and json.loads(out)["status"] == "stopped"
