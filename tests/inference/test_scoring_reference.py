"""The engine's per-token scores against a plain ``llama_cpp.Llama`` evaluation.

``score_texts`` decodes many texts as parallel sequences and reduces each position's
logits to three numbers as they arrive: the log-probability of the actual next token
and the mean and variance of log p over the whole vocabulary (what Min-K%++ needs).
The reference here is as plain as it gets: ``Llama(logits_all=True)`` evaluates one
text at a time, keeps every row of logits, and numpy takes the log-softmax and the
moments of the whole table. Both run with flash attention off, so the two differ by
float rounding only.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import llama_cpp
import numpy as np
import pytest

from gtreview.inference.backend import TokenScores
from gtreview.inference.llama.engine import BatchedLlamaEngine

pytestmark = pytest.mark.native  # llama.cpp runs in this process: each test in a forked child

TEXTS = [
    "the gold ore in the quartz vein is graded by assay of each drill core sample",
    "a drill hole cut the granite and the basalt dyke at the shear zone",
    "copper and silver deposit in the sericite alteration of the schist",
    "pyrite and carbonate in the lode",
    "gold",  # one token after BOS at most: little or nothing to score
]
REPORT_TEXTS = [
    "The quartz veins at the northern contact carry visible gold, and assays of the drill "
    "core returned 4.2 grams per tonne over 3 metres.",
    "Sericite alteration envelops the shear zone; pyrite is disseminated through the "
    "schist and increases towards the lode.",
    "A basalt dyke cuts the granite at depth, offset by the late fault that bounds the deposit to the east.",
]


@dataclass(frozen=True)
class Reference:
    tokens: list[int]
    logprobs: np.ndarray
    means: np.ndarray
    variances: np.ndarray


def llama_reference(model: Path, texts: list[str], start: int = 1) -> list[Reference]:
    """Each text evaluated alone with every position's logits kept, then numpy."""
    llm = llama_cpp.Llama(
        str(model), n_ctx=512, logits_all=True, flash_attn=False, n_threads=2, n_threads_batch=2, verbose=False
    )
    try:
        references = []
        for text in texts:
            tokens = llm.tokenize(text.encode("utf-8"), add_bos=True, special=False)
            llm.reset()  # type: ignore[no-untyped-call]
            llm.eval(tokens)
            logits = np.asarray(llm.scores[: len(tokens)], dtype=np.float64)
            peak = logits.max(axis=1, keepdims=True)
            log_softmax = logits - peak - np.log(np.exp(logits - peak).sum(axis=1, keepdims=True))
            rows = log_softmax[start - 1 : len(tokens) - 1]  # row p predicts token p + 1
            p = np.exp(rows)
            means = (p * rows).sum(axis=1)
            references.append(
                Reference(
                    tokens=list(tokens),
                    logprobs=rows[np.arange(len(rows)), tokens[start:]],
                    means=means,
                    variances=(p * rows**2).sum(axis=1) - means**2,
                )
            )
        return references
    finally:
        llm.close()


def assert_matches(scores: list[TokenScores], references: list[Reference], tolerance: float) -> None:
    for got, expected in zip(scores, references, strict=True):
        assert list(got.text_tokens) == expected.tokens
        assert got.expected_logprobs is not None and got.logprob_variances is not None
        assert len(got.logprobs) == len(got.expected_logprobs) == len(got.logprob_variances) == len(expected.logprobs)
        np.testing.assert_allclose(got.logprobs, expected.logprobs, rtol=0, atol=tolerance)
        np.testing.assert_allclose(got.expected_logprobs, expected.means, rtol=0, atol=tolerance)
        np.testing.assert_allclose(got.logprob_variances, expected.variances, rtol=tolerance, atol=tolerance)


def test_scores_and_moments_equal_a_plain_llama_evaluation(tiny_gguf: Path) -> None:
    """Five texts in one batched call over four sequences (two waves), against each alone."""
    with BatchedLlamaEngine(tiny_gguf, n_seq_max=4, n_ctx=1024, n_threads=2, flash_attn=False) as engine:
        scores = engine.score_texts(TEXTS)
        tail = engine.score_texts(TEXTS[:2], prefix_tokens=5)
    assert_matches(scores, llama_reference(tiny_gguf, TEXTS), tolerance=1e-4)
    assert_matches(tail, llama_reference(tiny_gguf, TEXTS[:2], start=5), tolerance=1e-4)
    moments = [v for s in scores for v in s.logprob_variances or ()]
    assert moments and all(v > 0 for v in moments)  # what Min-K%++ divides by


@pytest.mark.real_model
def test_a_real_model_scores_as_llama_cpp_evaluates(smollm2_gguf: Path) -> None:
    """SmolLM2 (49k vocabulary, Q4_1). One text per call the engine's numbers are the
    plain ones to float32 rounding of the reduction. Batched, this 4-bit model is
    sensitive to how its attention sums are ordered (the cells a sequence sits in, the
    queries beside it): single tokens move by up to ~0.4 nats (median ~0.01), the loss
    of a passage by under ~0.02 nats/token, which is what the membership signals read."""
    references = llama_reference(smollm2_gguf, REPORT_TEXTS)
    with BatchedLlamaEngine(smollm2_gguf, n_seq_max=4, n_ctx=2048, n_threads=2, flash_attn=False) as engine:
        alone = [engine.score_texts([text])[0] for text in REPORT_TEXTS]
        batched = engine.score_texts(REPORT_TEXTS)
    assert_matches(alone, references, tolerance=1e-5)
    for got, expected in zip(batched, references, strict=True):
        assert list(got.text_tokens) == expected.tokens
        assert got.mean == pytest.approx(float(expected.logprobs.mean()), abs=0.05)
        assert float(np.median(np.abs(np.asarray(got.logprobs) - expected.logprobs))) < 0.05
