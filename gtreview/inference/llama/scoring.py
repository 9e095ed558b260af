"""Per-token log-likelihoods and raw greedy continuations on the batched llama engine.

Memorisation probes ask how surprised a model is by a text and whether it can recite
the rest of a passage from its start. Both need what a chat completion hides: the
logits at *every* position of a raw text (no chat template), and plain-text greedy
continuation of a token prefix. These helpers run on a :class:`BatchedLlamaEngine`'s
own context, batch and generation waves, so many texts are decoded as parallel
sequences in one ``llama_batch`` (in waves when there are more texts than sequences
or cells), and each text's numbers are those of scoring it alone up to float rounding
(see the engine's docstring; on a 4-bit real model that rounding moves single tokens by
up to ~0.4 nats and a passage's mean by ~0.02: tests/inference/test_scoring_reference.py).

Each position's row of logits is reduced as it arrives, in place and vectorised over
the vocabulary: the next token's log-probability and the mean and variance of log p
under the model's distribution (Min-K%++ standardises by them). Nothing of the
(tokens x vocabulary) table is kept, so a 262k vocabulary costs no memory per token.

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

from gtreview.inference.backend import CompletionRequest, Sampling, TokenScores
from gtreview.inference.llama import native as native

if TYPE_CHECKING:
    from gtreview.inference.llama.engine import BatchedLlamaEngine

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


class _PositionStats:
    """Per-position scores of the texts of one call: the next token's log p, and the mean
    and variance of log p over the whole vocabulary."""

    def __init__(self, n_texts: int) -> None:
        self.logprobs: list[list[float]] = [[] for _ in range(n_texts)]
        self.means: list[list[float]] = [[] for _ in range(n_texts)]
        self.variances: list[list[float]] = [[] for _ in range(n_texts)]


class _RowReducer:
    """Reduces one row of logits to (log p of a token, mean of log p, variance of log p).

    The row is read in place from llama.cpp's buffer and every step writes into buffers
    allocated once, in float32 with float64 sums: a fresh float64 copy of a 49k- or
    262k-entry row per position (page faults and all) would cost more than the model's
    own forward pass on a fast machine. Rounding stays near 1e-6 nats (checked against
    a float64 log-softmax in tests/inference/test_scoring_reference.py).
    """

    def __init__(self, n_vocab: int) -> None:
        self.shifted = np.empty(n_vocab, dtype=np.float32)  # logits − max: log p up to log Z
        self.p = np.empty(n_vocab, dtype=np.float32)  # exp(shifted): p up to 1/Z
        self.work = np.empty(n_vocab, dtype=np.float32)

    def reduce(self, logits: np.ndarray, token: int) -> tuple[float, float, float]:
        peak = logits.max()
        np.subtract(logits, peak, out=self.shifted)
        np.exp(self.shifted, out=self.p)
        z = float(self.p.sum(dtype=np.float64))
        log_z = math.log(z)
        np.multiply(self.p, self.shifted, out=self.work)
        shifted_mean = float(self.work.sum(dtype=np.float64)) / z  # E[log p] + log Z
        # Variance about the mean (two passes): the one-pass E[x²] − E[x]² cancels badly.
        np.subtract(self.shifted, np.float32(shifted_mean), out=self.work)
        np.multiply(self.work, self.work, out=self.work)
        np.multiply(self.work, self.p, out=self.work)
        variance = float(self.work.sum(dtype=np.float64)) / z
        logprob = float(logits[token]) - float(peak) - log_z  # in float64: the figure that is reported
        return logprob, shifted_mean - log_z, variance


def _collector(
    ctx: Any, n_vocab: int, start: int, seq_of: dict[int, int], tokenized: list[list[int]], stats: _PositionStats
) -> Callable[[int, int], None]:
    """The logits callback of one wave: outputs of a sequence arrive in position order,
    so a counter per sequence says which position (and next token) each one is for."""
    next_pos = dict.fromkeys(seq_of, start - 1)
    reducer = _RowReducer(n_vocab)

    def on_logits(seq: int, index: int) -> None:
        text = seq_of[seq]
        pos = next_pos[seq]
        next_pos[seq] = pos + 1
        pointer = llama_cpp.llama_get_logits_ith(ctx, index)
        logits = np.ctypeslib.as_array(pointer, shape=(n_vocab,))  # a view: read before the next decode
        logprob, mean, variance = reducer.reduce(logits, tokenized[text][pos + 1])
        stats.logprobs[text].append(logprob)
        stats.means[text].append(mean)
        stats.variances[text].append(variance)

    return on_logits


def score_texts(engine: BatchedLlamaEngine, texts: Sequence[str], prefix_tokens: int = 0) -> list[TokenScores]:
    """See :meth:`BatchedLlamaEngine.score_texts`."""
    from gtreview.inference.llama.schedule import DecodeError

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
        stats = _PositionStats(len(texts))
        for wave in _waves([len(t) for t in tokenized], engine.n_seq_max, engine.n_ctx):
            live = [i for i in wave if len(tokenized[i]) > start]  # texts with a token to score
            if not live:
                continue
            seq_of = dict(enumerate(live))
            on_logits = _collector(ctx, n_vocab, start, seq_of, tokenized, stats)
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
            TokenScores(
                text_tokens=tuple(tokens),
                start=min(start, len(tokens)),
                logprobs=tuple(stats.logprobs[i]),
                expected_logprobs=tuple(stats.means[i]),
                logprob_variances=tuple(stats.variances[i]),
            )
            for i, tokens in enumerate(tokenized)
        ]


def greedy_continuations(
    engine: BatchedLlamaEngine, prompts: Sequence[str | Sequence[int]], max_tokens: int
) -> list[list[int]]:
    """See :meth:`BatchedLlamaEngine.greedy_continuations`."""
    from gtreview.inference.llama.schedule import Job

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
