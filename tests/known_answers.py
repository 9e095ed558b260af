"""Tiny fine-tunes whose truth is known, made in seconds, for the known-answer tests.

A *memoriser* is the tiny random llama with its output layer fine-tuned, by gradient
descent on the cross-entropy of next-token prediction, on a few passages (the
membership split's member passages) and on nothing else: every other weight stays the
base's, so whatever it does better on those passages than the base is recitation of
them, by construction. The features the head is trained on are the base's own final
hidden states (llama.cpp's ``embed`` without pooling: the output of the last norm,
which the output layer multiplies), so the fine-tuned head drops into the same model.

llama.cpp reads the hidden states in a spawned child process, never in the caller (the
tests' rule: no native inference in the pytest process).
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
from gguf import GGUFReader

from gtreview.inference.tiny_model import write_tiny_llama_gguf

WIDTH = 64
HEADS = 4
CTX = 2048


def write_base(path: Path) -> Path:
    return write_tiny_llama_gguf(path, width=WIDTH, heads=HEADS, ctx=CTX)


def _features(model: Path, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """(hidden state at each position but the last, the token that follows it) over ``texts``."""
    import llama_cpp

    llm = llama_cpp.Llama(
        str(model),
        embedding=True,
        pooling_type=llama_cpp.LLAMA_POOLING_TYPE_NONE,
        n_ctx=CTX,
        n_batch=CTX,
        n_ubatch=CTX,
        verbose=False,
    )
    xs, ys = [], []
    for text in texts:
        tokens = llm.tokenize(text.encode("utf-8"), add_bos=True, special=False)
        hidden = np.asarray(llm.embed(text, normalize=False), dtype=np.float32)
        if hidden.shape[0] != len(tokens):
            raise RuntimeError(f"{hidden.shape[0]} hidden states for {len(tokens)} tokens")
        xs.append(hidden[:-1])
        ys.append(np.asarray(tokens[1:], dtype=np.int64))
    llm.close()
    return np.concatenate(xs), np.concatenate(ys)


def train_output_head(
    base: Path, texts: Sequence[str], *, steps: int = 200, lr: float = 0.05
) -> tuple[np.ndarray, list[float]]:
    """The base's output layer after ``steps`` of Adam on next-token cross-entropy over
    ``texts``; and the loss (nats per token) before and after."""
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as child:
        features, targets = child.submit(_features, base, list(texts)).result()
    reader = GGUFReader(str(base))
    head = next(t for t in reader.tensors if t.name == "output.weight").data.astype(np.float32).copy()
    first = second = np.zeros_like(head)
    rows = np.arange(len(targets))
    losses: list[float] = []
    for step in range(1, steps + 1):
        logits = features @ head.T
        logits -= logits.max(axis=1, keepdims=True)
        probs = np.exp(logits)
        probs /= probs.sum(axis=1, keepdims=True)
        if step == 1:
            losses.append(float(-np.log(probs[rows, targets] + 1e-12).mean()))
        probs[rows, targets] -= 1.0
        grad = probs.T @ features / len(targets)
        first = 0.9 * first + 0.1 * grad
        second = 0.999 * second + 0.001 * grad * grad
        head -= lr * (first / (1 - 0.9**step)) / (np.sqrt(second / (1 - 0.999**step)) + 1e-8)
    logits = features @ head.T
    logits -= logits.max(axis=1, keepdims=True)
    log_probs = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    losses.append(float(-log_probs[rows, targets].mean()))
    return head, losses


def write_memoriser(path: Path, base: Path, texts: Sequence[str], *, steps: int = 200) -> tuple[Path, list[float]]:
    """The base with its output layer fine-tuned on ``texts`` (see the module doc)."""
    head, losses = train_output_head(base, texts, steps=steps)
    return write_tiny_llama_gguf(path, width=WIDTH, heads=HEADS, ctx=CTX, output_weight=head), losses
