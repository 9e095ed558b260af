"""What an engine records with every result: the model and adapter files (hashed), the
context and parallelism it runs with, the devices, and the decoding choices that can
change a reply."""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

import llama_cpp

from gtreview.inference.llama import native as native

if TYPE_CHECKING:
    from gtreview.inference.llama.engine import BatchedLlamaEngine


def describe_engine(engine: BatchedLlamaEngine) -> dict[str, Any]:
    """The engine's description; hashes are computed once per file."""
    model = engine._native.model
    template = engine.chat_template
    lora = engine.lora_path
    return {
        "backend": "llama.cpp",
        "model_path": str(engine.model_path.resolve()),
        "model_sha256": engine.model_sha256(),
        "model_size": engine.info.size,
        "model_name": engine.info.name,
        "architecture": engine.info.architecture,
        "quantisation": engine.info.quantisation,
        "n_params": int(llama_cpp.llama_model_n_params(model)) if model is not None else engine.info.n_params,
        "chat_template": template is not None,
        "chat_template_sha256": hashlib.sha256(template.encode("utf-8")).hexdigest() if template else None,
        "lora_path": str(lora.resolve()) if lora is not None else None,
        "lora_sha256": native.file_sha256(lora) if lora is not None else None,
        "lora_scale": engine.lora_scale if lora is not None else None,
        "n_ctx": engine.n_ctx,
        "n_ctx_seq": engine.n_ctx_seq,
        "n_seq_max": engine.n_seq_max,
        "n_batch": engine.n_batch,
        "kv_unified": True,
        "flash_attn": "auto" if engine.flash_attn is None else engine.flash_attn,
        "n_gpu_layers": engine.n_gpu_layers,
        "gpu_offload": bool(llama_cpp.llama_supports_gpu_offload()),
        "offloaded_layers": engine.offloaded_layers,
        "devices": [d.as_dict() for d in engine.devices],
        "memory_fit": engine.memory_fit.as_dict() if engine.memory_fit is not None else None,
        "n_threads": engine.n_threads,
        "n_threads_batch": engine.n_threads_batch,
        # Grammar-forced text fed in one step, tokenized as written (llama.jump_forward): the
        # same text as a token a step, possibly other token boundaries, so recorded with every
        # verdict. (A vocabulary that puts a space before text it tokenizes never jumps.)
        "jump_forward": engine.jump_forward,
        # Seeded top-p without top-k is drawn by llama.nucleus (numpy, PCG64 per seed), not
        # llama.cpp's generator: the same seed gives another reply than llama.cpp's chain would.
        "top_p_sampler": "gtreview-numpy-pcg64" if engine.numpy_top_p else "llama.cpp",
        "llama_cpp": llama_cpp.llama_version().decode("utf-8", errors="replace"),
        "llama_cpp_python": llama_cpp.__version__,
    }
