"""Model backends: the Protocols, model specs, the ONE factory, the local engine, HTTP clients.

Open every model with :func:`open_backend` (or :func:`open_scoring_backend` for the
memorisation probes): a local GGUF (``llama:``, ``hf:``) always runs in a worker
process, so a crash in llama.cpp's native code never takes the caller down; servers
(``openai:``, ``anthropic:``) are HTTP clients opened directly.

The names below are imported on first use, so that ``import gtreview.inference.backend``
(which judging and authoring need) does not load the spec parser, the worker or numpy.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gtreview.inference.backend import (
        ChatMessage,
        CompletionBackend,
        CompletionRequest,
        CompletionResult,
        Sampling,
        ScoringBackend,
        TokenScores,
    )
    from gtreview.inference.context_fit import PromptCheck, PromptsDoNotFit, check_prompts_fit
    from gtreview.inference.factory import open_backend, open_scoring_backend
    from gtreview.inference.specs import (
        BackendOpenError,
        ModelSpec,
        ModelSpecError,
        parse_model_spec,
        with_runtime_defaults,
    )
    from gtreview.inference.worker import GenerationCancelled, WorkerDied

_HOMES = {
    "ChatMessage": "backend",
    "CompletionBackend": "backend",
    "CompletionRequest": "backend",
    "CompletionResult": "backend",
    "Sampling": "backend",
    "ScoringBackend": "backend",
    "TokenScores": "backend",
    "PromptCheck": "context_fit",
    "PromptsDoNotFit": "context_fit",
    "check_prompts_fit": "context_fit",
    "open_backend": "factory",
    "open_scoring_backend": "factory",
    "BackendOpenError": "specs",
    "ModelSpec": "specs",
    "ModelSpecError": "specs",
    "parse_model_spec": "specs",
    "with_runtime_defaults": "specs",
    "GenerationCancelled": "worker",
    "WorkerDied": "worker",
}

__all__ = [
    "BackendOpenError",
    "ChatMessage",
    "CompletionBackend",
    "CompletionRequest",
    "CompletionResult",
    "GenerationCancelled",
    "ModelSpec",
    "ModelSpecError",
    "PromptCheck",
    "PromptsDoNotFit",
    "Sampling",
    "ScoringBackend",
    "TokenScores",
    "WorkerDied",
    "check_prompts_fit",
    "open_backend",
    "open_scoring_backend",
    "parse_model_spec",
    "with_runtime_defaults",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
