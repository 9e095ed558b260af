"""Fixtures shared across the test suite."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests import real_models
from tests.gguf_factory import write_aborting_llama_gguf, write_tiny_llama_gguf, write_tiny_lora_gguf

INTEROP_DIR = Path(__file__).resolve().parents[2] / "shared" / "interop" / "groundtruth"

# Native inference runs in a forked child per test, never in this process (tests/native_isolation.py).
pytest_plugins = ["tests.native_isolation"]


def _made_once(tmp_path_factory: pytest.TempPathFactory, name: str, make: Callable[[Path], object]) -> Path:
    """A model file made at most once per test session, whichever process asks first: a
    native test's forked child sets up its session fixtures again, so a file another
    process made is reused. Written beside its path and renamed, so never read half-made."""
    path = tmp_path_factory.getbasetemp() / "models" / name
    if not path.exists():
        path.parent.mkdir(exist_ok=True)
        partial = path.with_name(f".{name}.{os.getpid()}.part")
        make(partial)
        os.replace(partial, path)
    return path


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
    return _made_once(tmp_path_factory, "tiny.gguf", write_tiny_llama_gguf)


@pytest.fixture(scope="session")
def tiny_lora(tiny_gguf: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A rank-4 LoRA adapter on attn_q/attn_v of the tiny model."""
    return _made_once(tmp_path_factory, "tiny-lora.gguf", lambda path: write_tiny_lora_gguf(path, tiny_gguf))


@pytest.fixture(scope="session")
def tiny_judge_gguf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny llama with a 4,096-token training context: long enough for a judge prompt."""
    return _made_once(tmp_path_factory, "tiny-judge.gguf", lambda path: write_tiny_llama_gguf(path, ctx=4096))


@pytest.fixture(scope="session")
def aborting_gguf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny llama that passes the header check and loads, then aborts llama.cpp
    (SIGABRT from an escaped C++ exception) on the first chat prompt it tokenizes."""
    return _made_once(tmp_path_factory, "aborting.gguf", write_aborting_llama_gguf)


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
    return _made_once(
        tmp_path_factory,
        "smollm2-lora.gguf",
        lambda path: write_tiny_lora_gguf(path, smollm2_gguf, rank=8, alpha=4.0),
    )
