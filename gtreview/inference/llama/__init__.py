"""llama.cpp in this process: the batched engine, its scheduler, sampler, scorer and devices.

Importing this package loads nothing native. llama.cpp, and with it code built for one
CPU, is loaded when a name below is first used (PEP 562), which happens only in a model
worker (``inference.worker``): a crash there is a dead worker, never a dead app. Import
from here, never from the package's modules.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gtreview.inference.llama.devices import Device, DeviceType, gpu_devices, list_devices, supports_gpu_offload
    from gtreview.inference.llama.engine import DEFAULT_N_CTX, DEFAULT_N_SEQ_MAX, BatchedLlamaEngine, LlamaBackend
    from gtreview.inference.llama.schedule import DecodeError
    from gtreview.inference.llama.scoring import greedy_continuations, score_texts, tokenize_text
    from gtreview.inference.llama.stats import EngineStats

# Each public name and the module that defines it, imported on first use.
_HOMES = {
    "DEFAULT_N_CTX": "engine",
    "DEFAULT_N_SEQ_MAX": "engine",
    "BatchedLlamaEngine": "engine",
    "LlamaBackend": "engine",
    "DecodeError": "schedule",
    "EngineStats": "stats",
    "Device": "devices",
    "DeviceType": "devices",
    "gpu_devices": "devices",
    "list_devices": "devices",
    "supports_gpu_offload": "devices",
    "greedy_continuations": "scoring",
    "score_texts": "scoring",
    "tokenize_text": "scoring",
}

__all__ = [
    "DEFAULT_N_CTX",
    "DEFAULT_N_SEQ_MAX",
    "BatchedLlamaEngine",
    "DecodeError",
    "Device",
    "DeviceType",
    "EngineStats",
    "LlamaBackend",
    "gpu_devices",
    "greedy_continuations",
    "list_devices",
    "score_texts",
    "supports_gpu_offload",
    "tokenize_text",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOMES))
