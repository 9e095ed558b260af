"""What one request may hold in the engine besides its tokens (which ``max_tokens`` and
the context bound): the prompt text a chat template writes, and the answer's bytes (a
vocabulary's pieces may be of any length). A request past either ends as an error
result; the worker's memory bound (``inference.worker_memory``) catches whatever else
grows. A chat template that loops while it writes had grown a worker to 2.3 GB in 30 s.
"""

from __future__ import annotations

MIN_PROMPT_CHARS = 1 << 20
PROMPT_CHARS_PER_TOKEN = 64  # far more than any real token spells
MAX_OUTPUT_BYTES = 4 << 20


def prompt_chars(n_ctx_seq: int) -> int:
    """The longest prompt text a template may write: far more than a sequence can hold."""
    return max(MIN_PROMPT_CHARS, PROMPT_CHARS_PER_TOKEN * n_ctx_seq)


def output_overflow(limit: int, tokens: int) -> str:
    """The error of an answer stopped past ``limit`` bytes, after ``tokens`` tokens."""
    return f"the answer passed {limit:,} bytes after {tokens} tokens and was stopped (a model whose output grows without end)"


__all__ = ["MAX_OUTPUT_BYTES", "output_overflow", "prompt_chars"]
