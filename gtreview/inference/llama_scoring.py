"""Per-token log-likelihoods and raw greedy continuations on the batched llama engine.

Memorisation probes ask how surprised a model is by a text and whether it can recite
the rest of a passage from its start. Both need what a chat completion hides: the
logits at *every* position of a raw text (no chat template), and plain-text greedy
continuation of a token prefix. These helpers run on a :class:`BatchedLlamaEngine`'s
own context, batch and generation waves, so many texts are decoded as parallel
sequences in one ``llama_batch`` (in waves when there are more texts than sequences
or cells), and each text's numbers are those of scoring it alone up to float rounding
(exactly so with ``flash_attn=False``; see the engine's docstring).

The engine calls in here from two thin methods (``score_texts``,
``greedy_continuations``); the module reaches into its private state on purpose, so
that the engine's existing generation path stays untouched.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import llama_cpp
import numpy as np

from gtreview.inference import llama_native as native
from gtreview.inference.backend import CompletionRequest, Sampling, TokenScores

if TYPE_CHECKING:
    from gtreview.inference.llama_engine import BatchedLlamaEngine

__all__ = ["TokenScores", "greedy_continuations", "score_texts", "tokenize_text"]


def tokenize_text(engine: BatchedLlamaEngine, text: str) -> list[int]:
    """Raw text as the model reads it at the start of a document: BOS (if the model
    adds one) and the text, with template markers left as plain text."""
    return native.tokenize(engine._vocab, text, add_special=True, parse_special=False)


def _waves(lengths: Sequence[int], n_seq: int, n_cells: int) -> list[list[int]]:
    """Indices of texts per wave: at most ``n_seq`` texts whose tokens fit ``n_cells``."""
    waves: list[list[int]] = []
    current: list[int] = []
    used = 0
    for index, length in enumerate(lengths):
        if current and (len(current) >= n_seq or used + length > n_cells):
            waves.append(current)
            current, used = [], 0
        current.append(index)
        used += length
    if current:
        waves.append(current)
    return waves


def _collector(
    ctx: Any, n_vocab: int, start: int, seq_of: dict[int, int], tokenized: list[list[int]], results: list[list[float]]
) -> Callable[[int, int], None]:
    """The logits callback of one wave: outputs of a sequence arrive in position order,
    so a counter per sequence says which position (and next token) each one is for."""
    next_pos = dict.fromkeys(seq_of, start - 1)

    def on_logits(seq: int, index: int) -> None:
        text = seq_of[seq]
        pos = next_pos[seq]
        next_pos[seq] = pos + 1
        pointer = llama_cpp.llama_get_logits_ith(ctx, index)
        logits = np.ctypeslib.as_array(pointer, shape=(n_vocab,)).astype(np.float64)
        peak = float(logits.max())
        log_norm = peak + math.log(float(np.exp(logits - peak).sum()))
        results[text].append(float(logits[tokenized[text][pos + 1]]) - log_norm)

    return on_logits


def score_texts(engine: BatchedLlamaEngine, texts: Sequence[str], prefix_tokens: int = 0) -> list[TokenScores]:
    """See :meth:`BatchedLlamaEngine.score_texts`."""
    from gtreview.inference.llama_schedule import DecodeError

    start = max(1, prefix_tokens)
    with engine._lock:
        if engine.closed:
            raise RuntimeError("the engine is closed")
        tokenized = [tokenize_text(engine, text) for text in texts]
        for index, tokens in enumerate(tokenized):
            if len(tokens) > engine.n_ctx_seq:
                raise ValueError(f"text {index} has {len(tokens)} tokens; a sequence holds {engine.n_ctx_seq}")
        n_vocab = int(llama_cpp.llama_vocab_n_tokens(engine._vocab))
        ctx = engine._native.ctx
        results: list[list[float]] = [[] for _ in texts]
        for wave in _waves([len(t) for t in tokenized], engine.n_seq_max, engine.n_ctx):
            live = [i for i in wave if len(tokenized[i]) > start]  # texts with a token to score
            if not live:
                continue
            seq_of = dict(enumerate(live))
            on_logits = _collector(ctx, n_vocab, start, seq_of, tokenized, results)
            # Position p's logits predict token p + 1: they are wanted from the position
            # before the first scored token up to the one before the last token.
            entries = [
                (tokenized[i][pos], pos, seq, start - 1 <= pos < len(tokenized[i]) - 1)
                for seq, i in seq_of.items()
                for pos in range(len(tokenized[i]))
            ]
            llama_cpp.llama_memory_clear(engine._memory, True)
            try:
                engine._decode(entries, on_logits)
            except DecodeError as exc:
                raise RuntimeError(str(exc)) from exc
            finally:
                llama_cpp.llama_memory_clear(engine._memory, True)
        return [
            TokenScores(text_tokens=tuple(tokens), start=min(start, len(tokens)), logprobs=tuple(scores))
            for tokens, scores in zip(tokenized, results, strict=True)
        ]


def greedy_continuations(
    engine: BatchedLlamaEngine, prompts: Sequence[str | Sequence[int]], max_tokens: int
) -> list[list[int]]:
    """See :meth:`BatchedLlamaEngine.greedy_continuations`."""
    from gtreview.inference.llama_schedule import Job

    request = CompletionRequest(messages=[], sampling=Sampling(temperature=0.0, max_tokens=max(0, max_tokens)))
    with engine._lock:
        if engine.closed:
            raise RuntimeError("the engine is closed")
        jobs: list[Job] = []
        for index, prompt in enumerate(prompts):
            tokens = tokenize_text(engine, prompt) if isinstance(prompt, str) else [int(t) for t in prompt]
            if not tokens:
                raise ValueError(f"prompt {index} is empty")
            if len(tokens) >= engine.n_ctx_seq:
                raise ValueError(f"prompt {index} has {len(tokens)} tokens; a sequence holds {engine.n_ctx_seq}")
            job = Job(index=index, request=request, prompt=tokens, grammar=None)
            if job.max_tokens == 0:
                job.finish = "length"
            jobs.append(job)
        engine._run_jobs([j for j in jobs if j.finish is None], None)
        failed = next((j for j in jobs if j.finish == "error"), None)
        if failed is not None:
            raise RuntimeError(f"prompt {failed.index}: {failed.error}")
        return [list(job.generated) for job in jobs]
