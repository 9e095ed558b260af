"""Opening the backends of a pass: local models in a worker process, servers directly.

A native crash or an out-of-memory kill in llama.cpp then costs one batch (recorded as
errors and retried in a fresh worker), never the CLI or the GUI.
"""

from __future__ import annotations

from gtreview.inference.backend import CompletionBackend
from gtreview.inference.specs import open_backend, parse_model_spec


def open_pass_backend(spec: str) -> CompletionBackend:
    if parse_model_spec(spec).kind in ("llama", "hf"):
        from gtreview.inference.worker import WorkerBackend

        return WorkerBackend(spec)
    return open_backend(spec)
