"""The engine fits its cache and parallelism to a GPU's free memory: wiring, on the tiny model.

Every test here loads a model in-process (or reads ggml's real device list, which on a
CUDA build starts CUDA), so the module is ``native``: each test runs in a forked child.
This machine's build has no GPU, so a GPU is played by replacing the device list and
``llama_supports_gpu_offload``; llama.cpp itself still runs on the CPU. The arithmetic
is tested in test_memory_fit.py, the ctypes binding's failure paths in llama/test_devices.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import llama_cpp
import pytest

from gtreview.inference import memory_fit
from gtreview.inference.backend import ChatMessage, CompletionRequest, Sampling
from gtreview.inference.gguf_check import inspect_gguf
from gtreview.inference.llama import devices as llama_devices
from gtreview.inference.llama.devices import Device
from gtreview.inference.llama.engine import DEFAULT_N_CTX, DEFAULT_N_SEQ_MAX, BatchedLlamaEngine
from gtreview.inference.specs import open_in_process

pytestmark = pytest.mark.native

GPU = Device(0, "CUDA0", "NVIDIA test card", "GPU", 3 * 2**30, 4 * 2**30)
CPU = Device(1, "CPU", "the host", "CPU", 64 * 2**30, 64 * 2**30)


def test_this_build_lists_its_devices() -> None:
    devices = llama_devices.list_devices()
    assert all(isinstance(d, Device) and d.total >= d.free >= 0 for d in devices)
    if not llama_cpp.llama_supports_gpu_offload():
        assert llama_devices.gpu_devices() == []
        assert [d.type for d in devices] in ([], ["CPU"], ["CPU", "ACCEL"])


@pytest.fixture
def fake_gpu(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """A build that offloads and one 3 GiB-free GPU; records every fit the engine asks for
    and answers it with no reserve and room for 2,100 cells beyond the buffers."""
    monkeypatch.setattr(llama_devices, "list_devices", lambda: [GPU, CPU])
    monkeypatch.setattr(llama_devices, "supports_gpu_offload", lambda: True)
    asked: list[dict[str, Any]] = []
    real = memory_fit.fit_to_memory

    def fit(**options: Any) -> memory_fit.MemoryFit:
        asked.append(dict(options))
        options["free_bytes"] = options["overhead_bytes"] + 2100 * options["bytes_per_cell"]
        return real(**{**options, "margin_fraction": 0.0, "margin_bytes": 0})

    monkeypatch.setattr(memory_fit, "fit_to_memory", fit)
    return asked


def chat(n: int) -> list[CompletionRequest]:
    return [
        CompletionRequest(messages=[ChatMessage(role="user", content=f"question {i}")], sampling=Sampling(max_tokens=4))
        for i in range(n)
    ]


def test_defaults_shrink_to_the_gpu_parallelism_first(tiny_gguf: Path, fake_gpu: list[dict[str, Any]]) -> None:
    with BatchedLlamaEngine(tiny_gguf, n_threads=2) as engine:
        assert len(fake_gpu) == 1
        asked = fake_gpu[0]
        assert asked["free_bytes"] == GPU.free  # the GPU's, not the host's
        assert (asked["n_ctx"], asked["n_seq_max"], asked["ctx_fixed"], asked["seq_fixed"]) == (
            DEFAULT_N_CTX,
            DEFAULT_N_SEQ_MAX,
            False,
            False,
        )
        info = inspect_gguf(tiny_gguf)
        shape = memory_fit.kv_shape(info.metadata, info.architecture)
        assert shape is not None
        assert asked["bytes_per_cell"] == shape.bytes_per_cell() + 4 * 512  # flash attention assumed: the mask
        assert "CUDA0 (NVIDIA test card)" in asked["where"]
        # 2,100 cells: 2,048 of them, two sequences of the 1,024 each was asked with
        assert (engine.n_ctx, engine.n_seq_max, engine.stats.slots) == (2048, 2, 2)
        assert engine.offloaded_layers == info.block_count
        results = engine.generate(chat(5))  # five requests through two slots
        assert all(r.ok for r in results), [r.error for r in results]
        described = engine.describe()
    fit = described["memory_fit"]
    assert (fit["n_ctx"], fit["n_seq_max"], fit["requested_ctx"], fit["requested_seq"]) == (2048, 2, 8192, 8)
    assert "2048 cells x 2 sequences instead of 8192 cells x 8 sequences" in fit["reason"]
    assert [d["name"] for d in described["devices"]] == ["CUDA0", "CPU"]
    assert described["offloaded_layers"] == info.block_count
    assert (described["n_ctx"], described["n_seq_max"]) == (2048, 2)


def test_the_decision_is_logged(
    tiny_gguf: Path, fake_gpu: list[dict[str, Any]], caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level("INFO", logger="gtreview.inference.llama.engine"), BatchedLlamaEngine(tiny_gguf, n_threads=2):
        pass
    assert "tiny.gguf: " in caplog.text and "instead of 8192 cells x 8 sequences" in caplog.text


def test_settings_given_are_used_as_given(tiny_gguf: Path, fake_gpu: list[dict[str, Any]]) -> None:
    with BatchedLlamaEngine(tiny_gguf, n_ctx=4096, n_seq_max=6, n_threads=2) as engine:
        assert (engine.n_ctx, engine.n_seq_max, engine.memory_fit) == (4096, 6, None)
        assert engine.describe()["memory_fit"] is None
    assert fake_gpu == []
    with BatchedLlamaEngine(tiny_gguf, n_seq_max=6, n_threads=2) as engine:  # seq set, ctx not
        assert fake_gpu[-1]["seq_fixed"] and not fake_gpu[-1]["ctx_fixed"]
        assert (engine.n_ctx, engine.n_seq_max) == (2048, 6)


def test_no_fit_without_offloaded_layers(tiny_gguf: Path, fake_gpu: list[dict[str, Any]]) -> None:
    with BatchedLlamaEngine(tiny_gguf, n_gpu_layers=0, n_threads=2) as engine:
        assert (engine.offloaded_layers, engine.memory_fit) == (0, None)
        assert (engine.n_ctx, engine.n_seq_max) == (DEFAULT_N_CTX, DEFAULT_N_SEQ_MAX)
    assert fake_gpu == []


def test_a_spec_leaves_unset_what_it_does_not_set(tiny_gguf: Path, fake_gpu: list[dict[str, Any]]) -> None:
    free = open_in_process(f"llama:{tiny_gguf}?threads=2")
    try:
        engine = free.engine  # type: ignore[attr-defined]
        assert (engine.requested_ctx, engine.requested_seq) == (None, None)
        assert (engine.n_ctx, engine.n_seq_max) == (2048, 2)
    finally:
        free.close()
    given = open_in_process(f"llama:{tiny_gguf}?threads=2&ctx=1024&seq=3")
    try:
        engine = given.engine  # type: ignore[attr-defined]
        assert (engine.n_ctx, engine.n_seq_max, engine.memory_fit) == (1024, 3, None)
    finally:
        given.close()


def test_a_cpu_build_changes_nothing(tiny_gguf: Path) -> None:
    if llama_cpp.llama_supports_gpu_offload():
        pytest.skip("this llama-cpp-python build offloads to a GPU")
    with BatchedLlamaEngine(tiny_gguf, n_threads=2) as engine:
        assert (engine.n_ctx, engine.n_seq_max, engine.offloaded_layers, engine.memory_fit) == (
            DEFAULT_N_CTX,
            DEFAULT_N_SEQ_MAX,
            0,
            None,
        )
        described = engine.describe()
    assert described["n_gpu_layers"] == -1 and described["gpu_offload"] is False
    assert all(d["type"] != "GPU" for d in described["devices"])
