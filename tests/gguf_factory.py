"""Random-weight llama GGUF models and LoRA adapters for the tests and benchmarks.

The tiny llama itself is the product's (``gtreview.inference.tiny_model``: ``gtreview
doctor`` checks llama.cpp with it); here are its variants (a larger benchmark model, one
that aborts llama.cpp, LoRA adapters of matching shapes).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from gguf import GGUFReader, GGUFWriter

from gtreview.inference.tiny_model import CHATML_TEMPLATE, DEFAULT_WORDS, build_vocab, write_tiny_llama_gguf

__all__ = [
    "CHATML_TEMPLATE",
    "DEFAULT_WORDS",
    "TinyDims",
    "build_vocab",
    "write_aborting_llama_gguf",
    "write_larger_llama_gguf",
    "write_tiny_llama_gguf",
    "write_tiny_lora_gguf",
]


@dataclass(frozen=True)
class TinyDims:
    """The shapes a LoRA adapter must match."""

    width: int
    layers: int
    heads: int
    head_count_kv: int


def write_larger_llama_gguf(path: str | Path, *, seed: int = 0) -> Path:
    """The ~230 MB benchmark model (width 768, 8 layers, f32): a fair CPU workload."""
    return write_tiny_llama_gguf(
        path, width=768, layers=8, heads=12, ctx=4096, ff=2048, seed=seed, name="larger-random-llama"
    )


def write_aborting_llama_gguf(path: str | Path) -> Path:
    """A model that passes gtreview's header check and loads, but aborts the process
    (SIGABRT) the first time it tokenizes a newline, i.e. on any chat prompt, before the
    first decode: its SPM vocabulary has no byte tokens, so llama.cpp's byte fallback
    throws ``std::out_of_range`` through the C API and the C++ runtime calls abort(),
    as a failed ``GGML_ASSERT`` does."""
    return write_tiny_llama_gguf(path, ctx=4096, byte_tokens=False, name="aborting-random-llama")


def read_dims(base: str | Path) -> TinyDims:
    """Read the shapes of a model written by :func:`write_tiny_llama_gguf`."""
    reader = GGUFReader(base)

    def scalar(key: str) -> int:
        field = reader.get_field(key)
        assert field is not None, key
        return int(field.parts[field.data[0]][0])

    return TinyDims(
        width=scalar("llama.embedding_length"),
        layers=scalar("llama.block_count"),
        heads=scalar("llama.attention.head_count"),
        head_count_kv=scalar("llama.attention.head_count_kv"),
    )


def write_tiny_lora_gguf(
    path: str | Path,
    base_path_or_dims: str | Path | TinyDims,
    rank: int = 4,
    alpha: float = 8.0,
    seed: int = 1,
) -> Path:
    """Write a LoRA adapter on attn_q and attn_v of every block; returns the path.

    ``lora_a`` has ggml shape (n_in, rank) and ``lora_b`` (rank, n_out), as llama.cpp
    expects. Unlike a freshly initialised PEFT adapter (B = 0), both factors are random
    so the adapter visibly changes the logits.
    """
    path = Path(path)
    dims = base_path_or_dims if isinstance(base_path_or_dims, TinyDims) else read_dims(base_path_or_dims)
    rng = np.random.default_rng(seed)
    n_kv = dims.width // dims.heads * dims.head_count_kv
    writer = GGUFWriter(path, "llama")
    writer.add_type("adapter")
    writer.add_string("adapter.type", "lora")
    writer.add_float32("adapter.lora.alpha", float(alpha))
    writer.add_name("tiny-random-lora")
    for i in range(dims.layers):
        for name, n_out in (("attn_q", dims.width), ("attn_v", n_kv)):
            a = (rng.standard_normal((rank, dims.width)) / np.sqrt(dims.width)).astype(np.float32)
            b = (rng.standard_normal((n_out, rank)) / np.sqrt(rank)).astype(np.float32)
            writer.add_tensor(f"blk.{i}.{name}.weight.lora_a", a)
            writer.add_tensor(f"blk.{i}.{name}.weight.lora_b", b)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path
