"""Seeded top-p in numpy: llama.cpp's nucleus, the temperature's distribution, the seed.

The nucleus is compared with llama.cpp's own top-p sampler applied to the same logits
(a candidate array, as ``llama_sampler_sample`` builds it); the draws with the exact
probabilities of the kept tokens at the temperature.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import llama_cpp
import numpy as np
import pytest

from gtreview.inference.backend import ChatMessage, CompletionRequest, Sampling
from gtreview.inference.llama.engine import BatchedLlamaEngine
from gtreview.inference.llama.nucleus import NucleusSampler
from gtreview.inference.llama.sampling import Candidates

pytestmark = pytest.mark.native  # llama.cpp's samplers run in this process: each test in a forked child

VOCAB = 49152  # SmolLM2's


def model_like(rng: np.random.Generator, peak: float) -> np.ndarray:
    """Logits with a few strong tokens over a noisy tail, as a language model's are."""
    logits = rng.standard_normal(VOCAB).astype(np.float32) * 2.0
    logits[rng.choice(VOCAB, 12, replace=False)] += peak * rng.random(12).astype(np.float32)
    return logits


def llama_nucleus(logits: np.ndarray, top_p: float) -> set[int]:
    """The tokens llama.cpp's top-p sampler keeps (min_keep 1, as the engine's chain has it)."""
    candidates = Candidates(logits.shape[0])
    candidates._view["id"] = np.arange(logits.shape[0], dtype=np.int32)
    candidates._view["logit"] = logits
    candidates._view["p"] = 0.0
    top_p_sampler = llama_cpp.llama_sampler_init_top_p(top_p, 1)
    try:
        llama_cpp.llama_sampler_apply(top_p_sampler, candidates.pointer)
    finally:
        llama_cpp.llama_sampler_free(top_p_sampler)
    return {int(t) for t in candidates._view["id"][: candidates.array.size]}


@pytest.mark.parametrize("top_p", [0.5, 0.9, 0.95, 0.99])
def test_the_nucleus_is_llama_cpps(top_p: float) -> None:
    rng = np.random.default_rng(11)
    sampler = NucleusSampler(Sampling(temperature=0.7, top_p=top_p, seed=1))
    sizes = []
    for peak in (4.0, 8.0, 12.0, 16.0):
        for _ in range(5):
            logits = model_like(rng, peak)
            kept = sampler.kept(logits)
            assert {int(t) for t in kept} == llama_nucleus(logits, top_p)
            assert np.all(np.diff(logits[kept]) <= 0)  # highest first
            sizes.append(kept.size)
    assert min(sizes) < 20 < max(sizes)  # peaked and flat heads both met (a band widened)


def test_a_flat_distribution_widens_the_band_to_the_whole_vocabulary() -> None:
    """Nearly uniform logits: the nucleus holds most of the vocabulary and is still
    llama.cpp's, token for token (its float32 sums, added in its order)."""
    rng = np.random.default_rng(5)
    logits = rng.standard_normal(VOCAB).astype(np.float32) * 0.5
    ours = NucleusSampler(Sampling(temperature=1.0, top_p=0.95, seed=1)).kept(logits)
    assert len(ours) > 30000
    assert {int(t) for t in ours} == llama_nucleus(logits, 0.95)


def test_draws_follow_the_temperature_over_the_nucleus() -> None:
    rng = np.random.default_rng(3)
    logits = rng.standard_normal(VOCAB).astype(np.float32) * 2.0
    logits[rng.choice(VOCAB, 8, replace=False)] = np.linspace(17.0, 14.0, 8, dtype=np.float32)  # a head of 8
    sampler = NucleusSampler(Sampling(temperature=0.7, top_p=0.95, seed=42))
    kept = sampler.kept(logits)
    assert 3 <= kept.size <= 40  # a head of several tokens, each drawn often enough to count
    weights = np.exp((logits[kept].astype(np.float64) - logits[kept[0]]) / 0.7)
    expected = weights / weights.sum()
    n = 4000
    drawn = np.array([sampler.draw(logits) for _ in range(n)])
    assert np.isin(drawn, kept).all()  # nothing outside the nucleus
    counts = np.array([np.count_nonzero(drawn == t) for t in kept])
    chi2 = float((((counts - n * expected) ** 2) / (n * expected)).sum())
    assert chi2 < 3 * max(1, kept.size - 1) + 30, (chi2, kept.size)


def test_the_seed_decides_the_draws_and_refused_tokens_are_never_drawn() -> None:
    logits = model_like(np.random.default_rng(9), 6.0)

    def draws(seed: int, values: np.ndarray) -> list[int | None]:
        sampler = NucleusSampler(Sampling(temperature=1.0, top_p=0.9, seed=seed))
        return [sampler.draw(values) for _ in range(50)]

    assert draws(7, logits) == draws(7, logits)
    assert draws(7, logits) != draws(8, logits)
    assert draws(2**40 + 7, logits) == draws(7, logits)  # a seed is taken modulo 2**32
    refused = logits.copy()
    best = NucleusSampler(Sampling(temperature=1.0, top_p=0.9, seed=0)).kept(logits)[:3]
    refused[best] = -np.inf  # what a grammar does to the tokens it refuses
    assert not set(draws(7, refused)) & {int(t) for t in best}
    assert draws(7, np.full(VOCAB, -np.inf, dtype=np.float32)) == [None] * 50


@pytest.mark.parametrize(
    ("sampling", "takes"),
    [
        (Sampling(temperature=0.7, top_p=0.95), True),
        (Sampling(temperature=0.7, top_p=0.95, top_k=40), False),  # llama.cpp's top-k sorts only k
        (Sampling(temperature=0.7, top_p=1.0), False),
        (Sampling(temperature=0.0, top_p=0.95), False),  # greedy
    ],
)
def test_it_draws_for_top_p_without_top_k_only(sampling: Sampling, takes: bool) -> None:
    assert NucleusSampler.takes(sampling) is takes
    if not takes:
        with pytest.raises(ValueError, match="top-p below 1"):
            NucleusSampler(sampling)


SCHEMA = {
    "type": "object",
    "properties": {"reason": {"type": "string", "maxLength": 40}, "awarded": {"enum": [0, 1, 2, 3]}},
    "required": ["reason", "awarded"],
    "additionalProperties": False,
}


@pytest.fixture(scope="module")
def engine(tiny_gguf: Path) -> Iterator[BatchedLlamaEngine]:
    # Without flash attention, whose CPU kernel moves logits with the batch around a sequence
    # (test_engine.py): so a reply drawn alone can be compared with the same one in a batch.
    with BatchedLlamaEngine(tiny_gguf, n_seq_max=4, n_ctx=4096, n_threads=2, flash_attn=False) as eng:
        yield eng


def ask(seed: int, schema: dict[str, object] | None = None) -> CompletionRequest:
    return CompletionRequest(
        messages=[ChatMessage(role="user", content="Is the gold in the quartz vein?")],
        sampling=Sampling(temperature=1.0, top_p=0.9, seed=seed, max_tokens=40),
        json_schema=schema,
    )


def test_the_engine_draws_top_p_with_it_reproducibly_and_under_a_grammar(engine: BatchedLlamaEngine) -> None:
    """Free text and grammar-constrained replies (the grammar's refusals redrawn from the
    filtered logits) with seeded top-p: the same seed gives the same reply, in a batch or
    alone; the engine records which sampler drew them."""
    free = [r.text for r in engine.generate([ask(s) for s in (1, 2, 1)])]
    assert free[0] == free[2] and free[0] != free[1]
    assert engine.generate([ask(1)])[0].text == free[0]
    verdicts = engine.generate([ask(s, SCHEMA) for s in range(4)])
    for verdict in verdicts:
        assert verdict.finish_reason == "stop", verdict.error
        assert json.loads(verdict.text)["awarded"] in (0, 1, 2, 3)
    assert engine.describe()["top_p_sampler"] == "gtreview-numpy-pcg64"
    engine.numpy_top_p = False
    try:
        chain = [r.text for r in engine.generate([ask(s) for s in (1, 1)])]
        assert chain[0] == chain[1] and engine.describe()["top_p_sampler"] == "llama.cpp"
    finally:
        engine.numpy_top_p = True
