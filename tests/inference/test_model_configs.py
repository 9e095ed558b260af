"""Importing the Groundtruth harness's configs/models.json as gtreview model specs.

The sample is shaped like the harness's file (a Gemma 4 base served by vLLM, LoRA
fine-tunes of it from the hub and from a pod folder) plus an entry for a judge-class
model behind OpenRouter, which gtreview cannot serve from a models.json entry.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gtreview.inference.model_configs import (
    HarnessModelConfig,
    ModelConfigError,
    find_gguf,
    parse_models_json,
    read_models_json,
    to_model_specs,
)
from gtreview.inference.specs import parse_model_spec

BASE = "QuantTrio/gemma-4-31B-it-AWQ"
URL = "http://127.0.0.1:8000/v1"

MODELS: list[dict[str, Any]] = [
    {"label": "Base", "model": BASE},
    {
        "label": "Geology LoRA r32",
        "model": BASE,
        "lora": "eigenform-lab/gemma-4-31b-yudnamutana-lora-r32",
        "tokenizer": "eigenform-lab/gemma-4-31b-yudnamutana-lora-r32",
        "max_lora_rank": 32,
    },
    {
        "label": "Geology LoRA r64 (2 epochs)",
        "model": BASE,
        "lora": "/workspace/loras/yudnamutana-r64-e2/",
        "max_lora_rank": "64",
        "notes": "trained on the 34 deposit records, 2 epochs",
    },
    {"label": "GPT-5.5 reference", "model": "openai/gpt-5.5", "provider": "openrouter"},
]


@pytest.fixture
def models_json(tmp_path: Path) -> Path:
    path = tmp_path / "models.json"
    path.write_text(json.dumps(MODELS, indent=2), encoding="utf-8")
    return path


def test_reads_the_array_shape_and_keeps_unknown_keys(models_json: Path) -> None:
    configs = read_models_json(models_json)
    assert [c.label for c in configs] == [m["label"] for m in MODELS]
    assert configs[0].adapter is None and configs[1].adapter == MODELS[1]["lora"]
    assert configs[2].max_lora_rank == 64  # the harness passes it to a shell, so "64" is accepted
    assert configs[2].model_extra == {"notes": MODELS[2]["notes"]}
    assert configs[2].model_dump(exclude_none=True)["notes"] == MODELS[2]["notes"]
    assert configs[3].provider == "openrouter"


def test_reads_the_object_shape(tmp_path: Path) -> None:
    path = tmp_path / "models.json"
    path.write_text(json.dumps({"version": 2, "models": MODELS}), encoding="utf-8")
    assert [c.label for c in read_models_json(path)] == [m["label"] for m in MODELS]


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ('[{"label": "Base", "model": "x"},]', "not valid JSON"),
        ('{"label": "Base", "model": "x"}', "expected a JSON array"),
        ('"models"', "expected a JSON array"),
        ('[{"label": "Base", "model": "x"}, 7]', "entry 2 is not an object"),
        ('[{"label": "Tuned", "lora": "org/adapter"}]', "entry 1 ('Tuned'): model: Field required"),
        ('[{"label": "", "model": "x"}]', "entry 1: label"),
        ('[{"label": "Base", "model": "x", "max_lora_rank": "wide"}]', "max_lora_rank"),
    ],
)
def test_bad_files_are_one_line_errors(tmp_path: Path, text: str, needle: str) -> None:
    path = tmp_path / "models.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ModelConfigError) as caught:
        read_models_json(path)
    message = str(caught.value)
    assert needle in message and "\n" not in message and str(path) in message


def test_missing_file_and_folder_are_one_line_errors(tmp_path: Path) -> None:
    with pytest.raises(ModelConfigError, match="no such file"):
        read_models_json(tmp_path / "absent.json")
    with pytest.raises(ModelConfigError, match="is a folder"):
        read_models_json(tmp_path)
    with pytest.raises(ModelConfigError, match="not UTF-8"):
        parse_models_json(b"\xff\xfe[")


def test_vllm_specs_follow_the_served_name_convention(models_json: Path) -> None:
    specs, problems = to_model_specs(read_models_json(models_json), base_url=URL, gguf_dir=None)
    assert specs == [
        ("Base", f"openai:{URL}#{BASE}"),
        ("Geology LoRA r32", f"openai:{URL}#Geology LoRA r32"),
        ("Geology LoRA r64 (2 epochs)", f"openai:{URL}#Geology LoRA r64 (2 epochs)"),
    ]
    assert problems == [
        "entry 4 ('GPT-5.5 reference'): provider 'openrouter' is not vLLM, "
        "so there is no server gtreview can address for it"
    ]
    for label, spec in specs:
        parsed = parse_model_spec(spec)
        assert parsed.kind == "openai" and parsed.url == URL
        assert parsed.model == (BASE if label == "Base" else label)


def test_nothing_is_dropped_silently(models_json: Path) -> None:
    configs = read_models_json(models_json)
    specs, problems = to_model_specs(configs, base_url=None, gguf_dir=None)
    assert specs == []
    assert len(problems) == len(configs)
    assert all("\n" not in p for p in problems)
    assert problems[0] == "entry 1 ('Base'): no vLLM base URL was given"


def _touch(folder: Path, *names: str) -> None:
    for name in names:
        (folder / name).write_bytes(b"GGUF")


def test_local_ggufs_win_and_a_lora_needs_both_files(models_json: Path, tmp_path: Path) -> None:
    folder = tmp_path / "gguf"
    folder.mkdir()
    _touch(
        folder,
        "gemma-4-31B-it-Q4_K_M.gguf",  # the AWQ repo's weights as GGUF (serving suffix dropped)
        "Gemma-4-31B-It-F16-LoRA.gguf",  # convert_lora_to_gguf's default name: not the base
        "gemma-4-31b-yudnamutana-lora-r32-F16-LoRA.gguf",
        "notes.txt",
    )
    configs = read_models_json(models_json)
    specs, problems = to_model_specs(configs, base_url=None, gguf_dir=folder)
    base = folder / "gemma-4-31B-it-Q4_K_M.gguf"
    adapter = folder / "gemma-4-31b-yudnamutana-lora-r32-F16-LoRA.gguf"
    assert specs == [("Base", f"llama:{base}"), ("Geology LoRA r32", f"llama:{base}?lora={adapter}")]
    assert problems[0] == (
        "entry 3 ('Geology LoRA r64 (2 epochs)'): lora '/workspace/loras/yudnamutana-r64-e2/': "
        "no GGUF named yudnamutana-r64-e2[-TYPE].gguf in the GGUF folder; no vLLM base URL was given"
    )
    assert problems[1].startswith("entry 4 ('GPT-5.5 reference'): model 'openai/gpt-5.5': no GGUF named gpt-5.5")
    parsed = parse_model_spec(specs[1][1])
    assert (parsed.path, parsed.lora) == (base, str(adapter))

    # with a server as well, the adapter that has no GGUF falls back to vLLM
    specs, problems = to_model_specs(configs, base_url=URL, gguf_dir=folder)
    assert specs[2] == ("Geology LoRA r64 (2 epochs)", f"openai:{URL}#Geology LoRA r64 (2 epochs)")
    assert len(specs) + len(problems) == len(configs)


def test_gguf_matching_rule(tmp_path: Path) -> None:
    files = [
        tmp_path / name
        for name in (
            "qwen3-8b.gguf",
            "Qwen3-8B-Q8_0.gguf",
            "llama-3.1-8b-instruct-Q4_K_M.gguf",
            "llama-3.1-8b-instruct-Q8_0.gguf",
            "mistral-7b-instruct-v0.3-q4_k_m-00001-of-00002.gguf",
            "mistral-7b-instruct-v0.3-q4_k_m-00002-of-00002.gguf",
            "geo-adapter.F16-LoRA.gguf",
        )
    ]
    assert find_gguf(files, "Qwen/Qwen3-8B", adapter=False) == (files[0], "")  # exact stem wins
    path, why = find_gguf(files, "meta-llama/Llama-3.1-8B-Instruct", adapter=False)
    assert path is None and "several GGUF files match" in why and "Q8_0" in why
    assert find_gguf(files, "mistralai/Mistral-7B-Instruct-v0.3", adapter=False)[0] == files[4]
    assert find_gguf(files, "/pod/loras/geo-adapter", adapter=True)[0] == files[6]
    assert find_gguf(files, "/pod/loras/geo-adapter", adapter=False)[0] is None
    assert find_gguf(files, "org/qwen3-8b-GPTQ-Int4", adapter=False)[0] == files[0]
    assert find_gguf(files, "Qwen/Qwen3-8", adapter=False)[0] is None  # no prefix matches


def test_odd_paths_are_escaped_so_the_spec_names_the_file(tmp_path: Path) -> None:
    folder = tmp_path / "models & adapters"
    folder.mkdir()
    _touch(folder, "base.gguf", "tune&v2=final%.gguf")
    config = HarnessModelConfig(label="Tuned", model="org/base", lora="org/tune&v2=final%")
    specs, problems = to_model_specs([config], base_url=None, gguf_dir=folder)
    assert problems == []
    parsed = parse_model_spec(specs[0][1])
    assert parsed.path == folder / "base.gguf" and parsed.lora == str(folder / "tune&v2=final%.gguf")


def test_labels_that_cannot_name_a_model_are_reported() -> None:
    configs = [
        HarnessModelConfig(label="Base", model=BASE),
        HarnessModelConfig(label="Base", model=BASE, lora="org/other"),
        HarnessModelConfig(label="r=32", model=BASE, lora="org/r32"),
        HarnessModelConfig(label="Tuned#2", model=BASE, lora="org/t2"),
    ]
    specs, problems = to_model_specs(configs, base_url=URL, gguf_dir=None)
    assert specs == [("Base", f"openai:{URL}#{BASE}")]
    assert [p.split(":")[0] for p in problems] == ["entry 2 ('Base')", "entry 3 ('r=32')", "entry 4 ('Tuned#2')"]
    assert "duplicate label" in problems[0] and "LABEL=SPEC" in problems[1] and "cannot be carried" in problems[2]


def test_bad_server_or_folder_is_the_callers_error(tmp_path: Path) -> None:
    configs = [HarnessModelConfig(label="Base", model=BASE)]
    for url in ("127.0.0.1:8000/v1", "ftp://host/v1", "http://host/v1#x"):
        with pytest.raises(ModelConfigError, match="bad vLLM base URL"):
            to_model_specs(configs, base_url=url, gguf_dir=None)
    with pytest.raises(ModelConfigError, match="GGUF folder"):
        to_model_specs(configs, base_url=None, gguf_dir=tmp_path / "absent")
