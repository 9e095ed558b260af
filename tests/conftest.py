"""Fixtures shared across the test suite."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.gguf_factory import write_tiny_llama_gguf, write_tiny_lora_gguf

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
