"""Model spec strings: every form, every bad-input message, and opening each kind.

The llama.cpp engine is replaced by a recording stand-in (its own tests load real
GGUFs); the hub is a loopback server reached through ``HF_ENDPOINT`` in a child
process, because huggingface_hub reads its environment once, at import.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import threading
import types
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import httpx
import pytest

from gtreview.inference.anthropic_client import AnthropicBackend
from gtreview.inference.backend import ChatMessage, CompletionRequest
from gtreview.inference.openai_client import OpenAICompatibleBackend
from gtreview.inference.specs import BackendOpenError, ModelSpec, ModelSpecError, open_in_process, parse_model_spec

# -- parsing ----------------------------------------------------------------------------


def test_llama_spec_defaults() -> None:
    spec = parse_model_spec("llama:/models/qwen2.5-7b-q4_k_m.gguf")
    assert spec.kind == "llama" and spec.path == Path("/models/qwen2.5-7b-q4_k_m.gguf")
    assert (spec.lora, spec.lora_scale, spec.n_gpu_layers, spec.n_ctx, spec.n_threads, spec.n_seq_max) == (
        None,
        1.0,
        -1,
        8192,
        None,
        8,
    )
    assert str(spec) == spec.raw == "llama:/models/qwen2.5-7b-q4_k_m.gguf"


def test_llama_spec_with_every_option() -> None:
    spec = parse_model_spec(
        "llama:models/base.gguf?lora=adapters/geo%20v2.gguf&scale=0.5&n_gpu_layers=0&ctx=4096&threads=6&seq=16"
    )
    assert spec.path == Path("models/base.gguf")
    assert spec.lora == "adapters/geo v2.gguf" and spec.lora_scale == 0.5
    assert (spec.n_gpu_layers, spec.n_ctx, spec.n_threads, spec.n_seq_max) == (0, 4096, 6, 16)


def test_a_local_judge_may_decode_its_forced_text_token_by_token() -> None:
    """``jump=off`` turns off jump-forward decoding (the engine's default is on)."""
    assert parse_model_spec("llama:m.gguf").jump_forward is True
    assert parse_model_spec("llama:m.gguf?jump=on").jump_forward is True
    off = parse_model_spec("hf:o/r/m.gguf?jump=off")
    assert off.jump_forward is False and off.chose("jump_forward")


def test_llama_spec_keeps_a_windows_path_and_expands_home() -> None:
    assert parse_model_spec(r"llama:C:\models\m.GGUF").path == Path(r"C:\models\m.GGUF")
    assert parse_model_spec("llama:~/m.gguf").path == Path("~/m.gguf").expanduser()


def test_hf_spec() -> None:
    spec = parse_model_spec("hf:Qwen/Qwen2.5-0.5B-Instruct-GGUF/qwen2.5-0.5b-instruct-q4_k_m.gguf")
    assert spec.kind == "hf" and spec.repo_id == "Qwen/Qwen2.5-0.5B-Instruct-GGUF"
    assert spec.filename == "qwen2.5-0.5b-instruct-q4_k_m.gguf"
    nested = parse_model_spec("hf:org/repo/sub/dir/m.gguf?ctx=2048&lora=hf:org/adapters/geo.gguf")
    assert (nested.repo_id, nested.filename, nested.n_ctx) == ("org/repo", "sub/dir/m.gguf", 2048)
    assert nested.lora == "hf:org/adapters/geo.gguf"


@pytest.mark.parametrize(
    ("text", "url", "model"),
    [
        ("openai:http://127.0.0.1:8080/v1#qwen2.5-7b", "http://127.0.0.1:8080/v1", "qwen2.5-7b"),
        ("openai:http://localhost:8000#Qwen/Qwen2.5-7B-Instruct", "http://localhost:8000", "Qwen/Qwen2.5-7B-Instruct"),
        ("openai:https://gw.example.test/v1?api-version=2#a#b:c", "https://gw.example.test/v1?api-version=2#a", "b:c"),
    ],
)
def test_openai_spec(text: str, url: str, model: str) -> None:
    spec = parse_model_spec(text)
    assert (spec.kind, spec.url, spec.model) == ("openai", url, model)


def test_an_openai_spec_may_wait_longer_for_a_reply() -> None:
    """A slow server's long verdicts outlast the client's 120 s: each was asked again
    from the start, for ever; ``?timeout=`` after the model waits longer."""
    spec = parse_model_spec("openai:http://127.0.0.1:8080/v1#smol?timeout=1800")
    assert (spec.url, spec.model, spec.answer_timeout_s) == ("http://127.0.0.1:8080/v1", "smol", 1800.0)
    backend = open_in_process(spec)
    try:
        assert backend.timeout == 1800.0  # type: ignore[attr-defined]
    finally:
        backend.close()
    plain = open_in_process("openai:http://127.0.0.1:8080/v1#smol")
    try:
        assert plain.timeout == 120.0  # type: ignore[attr-defined]
    finally:
        plain.close()


def test_anthropic_spec() -> None:
    spec = parse_model_spec("  anthropic:claude-sonnet-4-6 ")
    assert (spec.kind, spec.model, spec.raw) == ("anthropic", "claude-sonnet-4-6", "anthropic:claude-sonnet-4-6")


def test_spec_is_a_frozen_pydantic_model() -> None:
    spec = parse_model_spec("anthropic:claude-sonnet-4-6")
    assert ModelSpec.model_validate(spec.model_dump()) == spec
    with pytest.raises(ValueError):
        spec.model = "other"  # type: ignore[misc]
    with pytest.raises(ValueError, match="openai model spec needs url"):
        ModelSpec(kind="openai", raw="openai:#m", model="m")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", "empty model spec; expected llama:PATH.gguf"),
        ("gpt-4o", "unknown model spec 'gpt-4o'; expected llama:PATH.gguf"),
        ("models/m.gguf", "did you mean llama:models/m.gguf?"),
        ("ollama:qwen", "unknown model spec 'ollama:qwen'"),
        ("llama:model.bin", "expected llama:PATH.gguf[?lora=ADAPTER.gguf&ctx=8192]"),
        ("llama:m.gguf?ctxx=4096", "unknown option 'ctxx' in llama spec 'llama:m.gguf?ctxx=4096'; valid options: lora"),
        ("llama:m.gguf?ctx=big", "option ctx in 'llama:m.gguf?ctx=big' must be an integer >= 1 (got 'big')"),
        ("llama:m.gguf?ctx=0", "must be an integer >= 1 (got '0')"),
        (
            "llama:m.gguf?n_gpu_layers=-2",
            "option n_gpu_layers in 'llama:m.gguf?n_gpu_layers=-2' must be an integer >= -1",
        ),
        ("llama:m.gguf?ctx", "option 'ctx' in 'llama:m.gguf?ctx' needs a value"),
        ("llama:m.gguf?ctx=1&ctx=2", "option 'ctx' given twice"),
        ("llama:m.gguf?scale=0.5", "scale in 'llama:m.gguf?scale=0.5' needs a lora adapter"),
        ("llama:m.gguf?lora=a.gguf&scale=nan", "option scale in 'llama:m.gguf?lora=a.gguf&scale=nan' must be a number"),
        ("llama:m.gguf?lora=adapter.safetensors", "must be a .gguf adapter"),
        ("llama:m.gguf?jump=no", "option jump in 'llama:m.gguf?jump=no' must be on or off (got 'no')"),
        ("openai:http://h:8080#m?jump=off", "unknown option 'jump' in openai spec"),
        ("hf:just-a-file.gguf", "expected hf:OWNER/REPO/FILE.gguf"),
        ("hf:owner//m.gguf", "expected hf:OWNER/REPO/FILE.gguf"),
        ("hf:owner/repo/README.md", "expected hf:OWNER/REPO/FILE.gguf"),
        ("openai:http://127.0.0.1:8080/v1", "expected openai:URL#MODEL, e.g. openai:http://127.0.0.1:8080/v1#MODEL"),
        ("openai:http://127.0.0.1:8080#", "expected openai:URL#MODEL"),
        ("openai:127.0.0.1:8080#m", "needs http:// or https:// and a host"),
        ("openai:ftp://host#m", "needs http:// or https:// and a host"),
        (
            "openai:http://h:8080#m?ctx=4",
            "unknown option 'ctx' in openai spec 'openai:http://h:8080#m?ctx=4'; valid options: timeout",
        ),
        (
            "openai:http://h:8080#m?timeout=0",
            "option timeout in 'openai:http://h:8080#m?timeout=0' must be a positive number",
        ),
        ("openai:http://h:8080#?timeout=9", "expected openai:URL#MODEL"),
        ("anthropic:", "expected anthropic:MODEL, e.g. anthropic:claude-sonnet-4-6"),
        ("anthropic:claude sonnet", "bad anthropic spec"),
    ],
)
def test_bad_specs_say_what_a_good_one_looks_like(text: str, expected: str) -> None:
    with pytest.raises(ModelSpecError) as caught:
        parse_model_spec(text)
    message = str(caught.value)
    assert expected in message
    assert "\n" not in message


# -- opening ----------------------------------------------------------------------------


class FakeLlamaBackend:
    """Records how open_in_process constructed it."""

    made: ClassVar[list[dict[str, Any]]] = []

    def __init__(self, spec: str, model_path: Path, **settings: Any) -> None:
        self.spec = spec
        FakeLlamaBackend.made.append({"spec": spec, "model_path": model_path, **settings})


@pytest.fixture
def fake_engine(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    module = types.ModuleType("gtreview.inference.llama.engine")
    module.LlamaBackend = FakeLlamaBackend  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "gtreview.inference.llama.engine", module)
    FakeLlamaBackend.made = []
    return FakeLlamaBackend.made


def test_open_llama_passes_every_setting(tmp_path: Path, fake_engine: list[dict[str, Any]]) -> None:
    (tmp_path / "base.gguf").write_bytes(b"GGUF")
    (tmp_path / "geo.gguf").write_bytes(b"GGUF")
    spec = (
        f"llama:{tmp_path}/base.gguf?lora={tmp_path}/geo.gguf&scale=0.75&ctx=2048&seq=4&threads=3&n_gpu_layers=0"
        "&jump=off"
    )
    backend = open_in_process(spec)
    assert isinstance(backend, FakeLlamaBackend)
    assert fake_engine == [
        {
            "spec": spec,
            "model_path": tmp_path / "base.gguf",
            "lora_path": tmp_path / "geo.gguf",
            "lora_scale": 0.75,
            "n_ctx": 2048,
            "n_gpu_layers": 0,
            "n_threads": 3,
            "n_seq_max": 4,
            "jump_forward": False,
        }
    ]


def test_open_llama_overrides_win(tmp_path: Path, fake_engine: list[dict[str, Any]]) -> None:
    (tmp_path / "m.gguf").write_bytes(b"GGUF")
    open_in_process(parse_model_spec(f"llama:{tmp_path}/m.gguf"), n_gpu_layers=0, n_seq_max=2)
    assert (fake_engine[0]["n_gpu_layers"], fake_engine[0]["n_seq_max"], fake_engine[0]["lora_path"]) == (0, 2, None)


def test_open_llama_missing_files_are_one_line_errors(tmp_path: Path, fake_engine: list[dict[str, Any]]) -> None:
    with pytest.raises(BackendOpenError, match=r"^model file not found: .*nope\.gguf$"):
        open_in_process(f"llama:{tmp_path}/nope.gguf")
    (tmp_path / "m.gguf").write_bytes(b"GGUF")
    with pytest.raises(BackendOpenError, match=r"^LoRA adapter not found: .*ad\.gguf$"):
        open_in_process(f"llama:{tmp_path}/m.gguf?lora={tmp_path}/ad.gguf")
    assert fake_engine == []


def test_open_llama_without_the_engine_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "m.gguf").write_bytes(b"GGUF")
    monkeypatch.setitem(sys.modules, "gtreview.inference.llama.engine", None)
    with pytest.raises(BackendOpenError, match=r"^the llama\.cpp backend is not available here"):
        open_in_process(f"llama:{tmp_path}/m.gguf")


def test_open_openai_with_a_transport_override() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        reply = {"choices": [{"message": {"content": "ok"}, "finish_reason": "stop"}]}
        return httpx.Response(200, json=reply)

    spec = "openai:http://127.0.0.1:8080/v1#tiny"
    backend = open_in_process(spec, transport=httpx.MockTransport(handler), concurrency=2)
    try:
        assert isinstance(backend, OpenAICompatibleBackend)
        assert backend.spec == spec and backend.model == "tiny" and backend.concurrency == 2
        [result] = backend.complete_batch([CompletionRequest(messages=[ChatMessage(role="user", content="hi")])])
        assert result.text == "ok"
    finally:
        backend.close()


def test_open_anthropic_with_a_key_override() -> None:
    backend = open_in_process("anthropic:claude-sonnet-4-6", api_key="sk-ant-test-key", base_url="http://127.0.0.1:9")
    try:
        assert isinstance(backend, AnthropicBackend)
        assert backend.spec == "anthropic:claude-sonnet-4-6" and backend.describe()["api_key_source"] == "argument"
    finally:
        backend.close()


def test_open_hf_offline_from_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_engine: list[dict[str, Any]]
) -> None:
    from huggingface_hub import constants

    commit = "0123456789abcdef0123456789abcdef01234567"
    repo = tmp_path / "models--org--geo-GGUF"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(commit)
    cached = repo / "snapshots" / commit / "geo-q4.gguf"
    cached.parent.mkdir(parents=True)
    cached.write_bytes(b"GGUF")
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    open_in_process("hf:org/geo-GGUF/geo-q4.gguf?ctx=1024")
    assert fake_engine[0]["model_path"] == cached and fake_engine[0]["n_ctx"] == 1024
    assert fake_engine[0]["spec"] == "hf:org/geo-GGUF/geo-q4.gguf?ctx=1024"
    with pytest.raises(BackendOpenError) as caught:
        open_in_process("hf:org/geo-GGUF/missing.gguf")
    message = str(caught.value)
    assert message.startswith(
        "missing.gguf from org/geo-GGUF is not in the Hugging Face cache and HF_HUB_OFFLINE is set"
    )
    assert "\n" not in message


# -- the hub through HF_ENDPOINT, in a child process ------------------------------------

HUB_FILE = b"GGUF" + bytes(60)
HUB_COMMIT = "a" * 40

CHILD = """
import json, sys, types
engine = types.ModuleType("gtreview.inference.llama.engine")
class LlamaBackend:
    def __init__(self, spec, model_path, **settings):
        print(json.dumps({"spec": spec, "model_path": str(model_path)}))
engine.LlamaBackend = LlamaBackend
sys.modules["gtreview.inference.llama.engine"] = engine
from gtreview.inference.specs import BackendOpenError, open_in_process
try:
    open_in_process(sys.argv[1])
except BackendOpenError as exc:
    print(json.dumps({"error": str(exc)}))
"""


@pytest.fixture
def fake_hub() -> Iterator[tuple[str, list[str]]]:
    seen: list[str] = []

    class Hub(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def answer(self) -> bool:
            seen.append(f"{self.command} {self.path}")
            found = self.path == "/org/geo-GGUF/resolve/main/geo-q4.gguf"
            self.send_response(200 if found else 404)
            if found:
                self.send_header("X-Repo-Commit", HUB_COMMIT)
                self.send_header("ETag", f'"{hashlib.sha256(HUB_FILE).hexdigest()}"')
                self.send_header("Content-Length", str(len(HUB_FILE)))
            else:
                self.send_header("X-Error-Code", "EntryNotFound")
                self.send_header("Content-Length", "0")
            self.end_headers()
            return found

        def do_HEAD(self) -> None:
            self.answer()

        def do_GET(self) -> None:
            if self.answer():
                self.wfile.write(HUB_FILE)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Hub)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()


def run_child(spec: str, cache: Path, **env: str) -> dict[str, str]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("HF_")}
    environment.update(HF_HUB_CACHE=str(cache), HF_HUB_DISABLE_TELEMETRY="1", HF_HUB_DISABLE_PROGRESS_BARS="1", **env)
    done = subprocess.run(
        [sys.executable, "-c", CHILD, spec], env=environment, capture_output=True, text=True, timeout=60, check=True
    )
    result: dict[str, str] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_hf_download_through_hf_endpoint_then_offline(tmp_path: Path, fake_hub: tuple[str, list[str]]) -> None:
    endpoint, seen = fake_hub
    spec = "hf:org/geo-GGUF/geo-q4.gguf"
    fetched = run_child(spec, tmp_path, HF_ENDPOINT=endpoint)
    assert fetched["spec"] == spec
    assert Path(fetched["model_path"]).read_bytes() == HUB_FILE
    assert Path(fetched["model_path"]).is_relative_to(tmp_path)
    assert seen == ["HEAD /org/geo-GGUF/resolve/main/geo-q4.gguf", "GET /org/geo-GGUF/resolve/main/geo-q4.gguf"]

    seen.clear()
    offline = run_child(spec, tmp_path, HF_ENDPOINT=endpoint, HF_HUB_OFFLINE="1")
    assert offline == fetched and seen == []

    missing = run_child("hf:org/geo-GGUF/other.gguf", tmp_path, HF_ENDPOINT=endpoint)
    assert missing == {"error": "org/geo-GGUF has no file other.gguf"}


def test_runtime_defaults_fill_only_what_a_spec_leaves_out() -> None:
    from gtreview.inference.specs import with_runtime_defaults

    assert (
        with_runtime_defaults("llama:/m/a.gguf", n_gpu_layers=20, threads=8)
        == "llama:/m/a.gguf?n_gpu_layers=20&threads=8"
    )
    assert (
        with_runtime_defaults("llama:/m/a.gguf?threads=2", n_gpu_layers=0, threads=8)
        == "llama:/m/a.gguf?threads=2&n_gpu_layers=0"
    )
    assert with_runtime_defaults("openai:http://h:8000#m", n_gpu_layers=0) == "openai:http://h:8000#m"
    parse_model_spec(with_runtime_defaults("llama:/m/a.gguf?lora=/m/l.gguf", n_gpu_layers=-1))


@pytest.mark.parametrize(
    ("spec", "machine", "gpu_build", "layers"),
    [
        ("llama:/m/a.gguf", {}, True, 30),  # nothing chosen: every layer on a GPU build
        ("llama:/m/a.gguf", {}, False, 0),  # and none on a CPU build, as before
        ("llama:/m/a.gguf", {"n_gpu_layers": 12}, True, 12),  # the machine setting (Preferences)
        ("llama:/m/a.gguf", {"n_gpu_layers": 0}, True, 0),
        ("llama:/m/a.gguf?n_gpu_layers=8", {"n_gpu_layers": 0}, True, 8),  # the spec's own option wins
        ("llama:/m/a.gguf?n_gpu_layers=0", {"n_gpu_layers": -1}, True, 0),
        ("llama:/m/a.gguf?n_gpu_layers=8", {}, False, 0),
    ],
)
def test_gpu_layers_resolve_spec_then_machine_then_every_layer(
    spec: str, machine: dict[str, int], gpu_build: bool, layers: int
) -> None:
    from gtreview.inference.memory_fit import offloaded_layers
    from gtreview.inference.specs import with_runtime_defaults

    parsed = parse_model_spec(with_runtime_defaults(spec, **machine))
    assert offloaded_layers(parsed.n_gpu_layers, 30, gpu_build, 1 if gpu_build else 0) == layers


def test_a_spec_says_which_settings_it_chose(tmp_path: Path, fake_engine: list[dict[str, Any]]) -> None:
    bare = parse_model_spec("llama:m.gguf")
    assert not bare.chose("n_ctx") and not bare.chose("n_seq_max") and not bare.chose("n_gpu_layers")
    assert (bare.n_ctx, bare.n_seq_max, bare.n_gpu_layers) == (8192, 8, -1)
    given = parse_model_spec("llama:m.gguf?ctx=8192&seq=8")  # the default values, chosen
    assert given.chose("n_ctx") and given.chose("n_seq_max")
    (tmp_path / "m.gguf").write_bytes(b"GGUF")
    open_in_process(f"llama:{tmp_path}/m.gguf")  # left unset: the engine may fit them to a GPU
    open_in_process(f"llama:{tmp_path}/m.gguf?ctx=8192")
    open_in_process(f"llama:{tmp_path}/m.gguf", n_ctx=2048)  # an override is a choice too
    assert [(made["n_ctx"], made["n_seq_max"]) for made in fake_engine] == [(None, None), (8192, None), (2048, None)]


def test_a_local_spec_bounds_each_answer_in_time() -> None:
    assert parse_model_spec("llama:m.gguf").answer_timeout_s == 900.0
    assert parse_model_spec("llama:m.gguf?timeout=30").answer_timeout_s == 30.0
    with pytest.raises(ModelSpecError, match=r"timeout .* positive"):
        parse_model_spec("llama:m.gguf?timeout=0")
