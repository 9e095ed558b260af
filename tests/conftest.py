"""Fixtures shared across the test suite."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import real_models
from tests.gguf_factory import write_aborting_llama_gguf, write_tiny_llama_gguf, write_tiny_lora_gguf

INTEROP_DIR = Path(__file__).resolve().parents[2] / "shared" / "interop" / "groundtruth"


@pytest.fixture(scope="session")
def interop_dir() -> Path:
    """The Groundtruth interop fixtures (../shared/interop/groundtruth); tests that
    need them skip cleanly on checkouts without the shared folder."""
    if not INTEROP_DIR.is_dir():
        pytest.skip(f"interop fixtures not found at {INTEROP_DIR}")
    return INTEROP_DIR


@pytest.fixture(scope="session")
def tiny_gguf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 2-layer, width-64 llama with a ChatML template (about 1 MB, loads in ms)."""
    return write_tiny_llama_gguf(tmp_path_factory.mktemp("gguf") / "tiny.gguf")


@pytest.fixture(scope="session")
def tiny_lora(tiny_gguf: Path) -> Path:
    """A rank-4 LoRA adapter on attn_q/attn_v of the tiny model."""
    return write_tiny_lora_gguf(tiny_gguf.with_name("tiny-lora.gguf"), tiny_gguf)


@pytest.fixture(scope="session")
def tiny_judge_gguf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny llama with a 4,096-token training context: long enough for a judge prompt."""
    return write_tiny_llama_gguf(tmp_path_factory.mktemp("gguf-judge") / "tiny-judge.gguf", ctx=4096)


@pytest.fixture(scope="session")
def aborting_gguf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny llama that passes the header check and loads, then aborts llama.cpp
    (SIGABRT from an escaped C++ exception) on the first chat prompt it tokenizes."""
    return write_aborting_llama_gguf(tmp_path_factory.mktemp("gguf-abort") / "aborting.gguf")


@pytest.fixture(scope="session")
def smollm2_gguf() -> Path:
    """SmolLM2-135M-Instruct Q4_1, a real instruct model (ChatML, 49k vocabulary), fetched
    once into the model cache (tests/real_models.py); the test skips when it cannot be had."""
    return real_models.require("smollm2")


@pytest.fixture(scope="session")
def gemma3_gguf() -> Path:
    """Gemma 3 270M Q4_K_M, a real base model (262k vocabulary, no chat template)."""
    return real_models.require("gemma3")


@pytest.fixture(scope="session")
def smollm2_lora(smollm2_gguf: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A random rank-8 LoRA with SmolLM2's real attn_q/attn_v shapes: a 'fine-tune' whose
    answers differ from the base model's and still read as text (scale 0.5)."""
    return write_tiny_lora_gguf(tmp_path_factory.mktemp("lora") / "smollm2-lora.gguf", smollm2_gguf, rank=8, alpha=4.0)
