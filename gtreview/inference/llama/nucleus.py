"""Seeded top-p (nucleus) sampling of one sequence, in numpy.

llama.cpp's own chain (``llama_sampler_sample`` with top-p, temperature and dist) copies
all logits into a candidate array and, for top-p, takes the softmax of the whole
vocabulary and sorts its head: about 2 ms a token on SmolLM2's 49k-token vocabulary on
this machine, 15-17% of a decode step (``benchmarks/README.md``). This sampler follows
the same rules on the logits where they lie:

1. top-p: of the softmax at temperature 1, the fewest highest tokens whose
   probabilities sum to at least ``p`` stay (at least one);
2. temperature: the kept tokens are drawn with weights ``exp(logit / T)``.

The nucleus is found among the tokens within a few nats of the best: those are the
highest tokens, so where their share of the whole vocabulary's mass reaches ``p`` the
cut lies among them, and the rest of the vocabulary is never sorted. Only where it does
not (a flat distribution) is the band widened, up to the whole vocabulary. That is where
the time goes: one exponential over the vocabulary for the softmax's denominator, and a
sort of a handful of tokens. With top-k set, or top-p at 1, llama.cpp's chain is as fast
(top-k sorts only ``k``) and the engine keeps it.

The draw comes from the sequence's own PCG64 generator seeded with its request's seed,
so the same seed gives the same reply; the draws differ from llama.cpp's generator, so
a reply is not the one llama.cpp's chain would draw with that seed, though the nucleus
and the distribution over it are llama.cpp's. Logits a grammar set to -inf are never
drawn.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from gtreview.inference.backend import Sampling

BANDS = (8.0, 16.0, 32.0)  # nats below the best logit searched for the nucleus, then everything
SEED_MODULUS = 2**32  # a request's seed as a 32-bit generator seed, as llama.cpp's chain takes it

FloatArray = npt.NDArray[np.floating]
IntArray = npt.NDArray[np.intp]


class NucleusSampler:
    """One sequence's seeded top-p sampler (temperature above 0, top-p below 1, no top-k)."""

    def __init__(self, sampling: Sampling) -> None:
        if not self.takes(sampling):
            raise ValueError("NucleusSampler draws with top-p below 1, no top-k, at a temperature above 0")
        self.top_p = sampling.top_p
        self.temperature = sampling.temperature
        self.generator = np.random.Generator(np.random.PCG64(sampling.seed % SEED_MODULUS))

    @staticmethod
    def takes(sampling: Sampling) -> bool:
        """Whether this sampler draws for ``sampling`` (else llama.cpp's chain does)."""
        return sampling.temperature > 0 and sampling.top_k == 0 and 0 < sampling.top_p < 1

    def kept(self, logits: FloatArray) -> IntArray:
        """The ids top-p keeps, highest logit first (empty when no logit is finite).

        The arithmetic is llama.cpp's, in float32 and in its order, so the cut falls where
        its own falls: each ``exp(logit - best)`` over the sum of all of them added in token
        order, then those probabilities added highest first until the sum reaches ``p``.
        (Summed more exactly, the cut of a flat head moves by a token or two.)"""
        best = logits.max() if logits.size else -np.inf
        if not np.isfinite(best):
            return np.zeros(0, dtype=np.intp)
        # expf as glibc rounds it (numpy's own float32 exp is up to 2.5 ulp off, which moves the cut)
        weights = np.exp((logits - best).astype(np.float64)).astype(np.float32)
        total = np.cumsum(weights, dtype=np.float32)[-1]  # a sequential float32 sum, as llama.cpp adds
        top_p = np.float32(self.top_p)
        for band in (*BANDS, np.inf):
            near = np.flatnonzero(logits >= best - band)
            order = near[np.argsort(-logits[near], kind="stable")]
            mass = np.cumsum(weights[order] / total, dtype=np.float32)
            if mass[-1] >= top_p or band == np.inf:
                return order[: min(int(np.searchsorted(mass, top_p)) + 1, order.size)]
        raise AssertionError("unreachable: the widest band holds every token")

    def draw(self, logits: FloatArray) -> int | None:
        """A token for these logits (one sequence's, -inf where a grammar refused it);
        None when no logit is finite."""
        kept = self.kept(logits)
        if kept.size == 0:
            return None
        scaled = (logits[kept].astype(np.float64) - float(logits[kept[0]])) / self.temperature
        cumulative = np.cumsum(np.exp(scaled))
        at = int(np.searchsorted(cumulative, self.generator.random() * cumulative[-1], side="right"))
        return int(kept[min(at, kept.size - 1)])
