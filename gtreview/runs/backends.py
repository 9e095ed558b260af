"""The opener a pass uses: the one factory, so local models run in a worker process.

A native crash or an out-of-memory kill in llama.cpp then costs one batch (recorded as
errors and retried in a fresh worker), never the CLI or the GUI. Kept as a name of its
own because passes take the opener as a parameter (tests give a scripted one).
"""

from __future__ import annotations

from gtreview.inference.backend import CompletionBackend
from gtreview.inference.factory import open_backend


def open_pass_backend(spec: str) -> CompletionBackend:
    """``gtreview.inference.factory.open_backend`` with no overrides."""
    return open_backend(spec)
