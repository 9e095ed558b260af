"""One sequence's sampler, with grammar checked lazily as llama.cpp's own sampler does.

A grammar sampler in front of the chain filters the whole vocabulary at every step:
for each of the 49k (SmolLM2) or 262k (Gemma 3) tokens it matches the token's text
against every live grammar stack. On a real model that made grammar-constrained
decoding about 4x slower than free decoding. llama.cpp's ``common_sampler_sample``
avoids it, and so does :class:`SequenceSampler`:

1. sample from the plain chain (greedy, or top-k/top-p/temperature/seeded dist), or for
   top-p without top-k from :class:`~.nucleus.NucleusSampler` (the same rules in numpy,
   without sorting the vocabulary);
2. offer only that token to the grammar (a one-candidate array): a good model's choice
   is almost always allowed, and then the step costs one token's check;
3. only when the grammar rejects it, let the grammar filter the vocabulary and sample
   again from the chain. For greedy decoding (the judge's) the best 64, 4096, then 32768
   tokens (``TOP_FIRST``), highest first, are offered before the whole vocabulary: the
   first one allowed is the best allowed token of all, and the 262k-token vocabulary of
   Gemma 3 is filtered whole only when none of them is (mostly where the grammar forces
   a key the model did not want).

The chosen token is then accepted by the grammar. The outcome is the same as filtering
first for greedy decoding (the best allowed token is the best token when it is allowed);
for seeded sampling a rejected draw uses one more random number, as in llama.cpp.
When the grammar allows nothing (which a schema-built grammar should never do), the
sampler returns None instead of handing llama.cpp a token it would abort on.
"""

from __future__ import annotations

import ctypes
import math
from typing import Any

import llama_cpp
import numpy as np

from gtreview.inference.backend import Sampling
from gtreview.inference.llama import native as native
from gtreview.inference.llama.jump_forward import CharacterProbe
from gtreview.inference.llama.nucleus import NucleusSampler

# Greedy, after a rejection: offer the grammar the best 64 tokens, then 4096, then 32768,
# before the whole vocabulary (ranked 4096 at a time: one argpartition serves the first two).
TOP_FIRST = (64, 4096, 32768)
_RANK_FIRST = 4096


class Candidates:
    """A reusable full-vocabulary ``llama_token_data_array`` (one per engine)."""

    def __init__(self, n_vocab: int) -> None:
        self.n_vocab = n_vocab
        self._data = (llama_cpp.llama_token_data * n_vocab)()
        self._view = np.frombuffer(memoryview(self._data).cast("B"), dtype=native.TOKEN_DATA)
        self._ids = np.arange(n_vocab, dtype=np.int32)
        self.array = llama_cpp.llama_token_data_array(
            data=ctypes.cast(self._data, llama_cpp.llama_token_data_p), size=n_vocab, selected=-1, sorted=False
        )
        self.pointer = ctypes.byref(self.array)
        self._top: Any = self._ids[:0]
        self._top_logits: Any = np.zeros(0, dtype=np.float32)

    def load(self, ctx: Any, index: int) -> None:
        """Fill with the logits of output ``index`` of the last decode (samplers reorder
        the array in place, so ids are written again every time)."""
        logits = llama_cpp.llama_get_logits_ith(ctx, index)
        self._view["id"] = self._ids
        self._view["logit"] = np.ctypeslib.as_array(logits, shape=(self.n_vocab,))
        self._view["p"] = 0.0
        self.array.size = self.n_vocab
        self.array.selected = -1
        self.array.sorted = False

    def logits(self, ctx: Any, index: int) -> Any:
        """The logits of output ``index`` of the last decode, where llama.cpp keeps them (no copy)."""
        return np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(ctx, index), shape=(self.n_vocab,))

    def loaded_logits(self) -> Any:
        """The logits :meth:`load` wrote, by token id, as a filter (the grammar) left them."""
        return self._view["logit"][: self.array.size]

    def rank_top(self, ctx: Any, index: int, k: int) -> None:
        """Find the ``k`` highest logits of output ``index``, highest first (for :meth:`load_top`)."""
        logits = self.logits(ctx, index)
        k = min(k, self.n_vocab)
        top = np.argpartition(logits, self.n_vocab - k)[self.n_vocab - k :]
        self._top = top[np.argsort(-logits[top], kind="stable")]
        self._top_logits = logits[self._top]

    def load_top(self, start: int, end: int) -> None:
        """Fill with the tokens ranked ``start`` to ``end`` by :meth:`rank_top`, highest first."""
        top = self._top[start:end]
        k = len(top)
        self._view["id"][:k] = top
        self._view["logit"][:k] = self._top_logits[start:end]
        self._view["p"][:k] = 0.0
        self.array.size = k
        self.array.selected = -1
        self.array.sorted = True

    def first_allowed(self) -> int | None:
        """The first token (in array order) a filter left a finite logit, or None."""
        allowed = np.flatnonzero(np.isfinite(self._view["logit"][: self.array.size]))
        return int(self._view["id"][allowed[0]]) if allowed.size else None

    def any_allowed(self) -> bool:
        """Whether a filter (the grammar) left any token a finite logit."""
        return bool(np.isfinite(self._view["logit"][: self.array.size]).any())

    def selected(self) -> int:
        return int(self._data[self.array.selected].id)


class SequenceSampler:
    """The sampler chain of one sequence plus, for a JSON schema, its grammar.

    ``rejections`` counts the steps whose first choice the grammar refused (what the
    lazy check saved is every other step's full-vocabulary filter).
    """

    def __init__(
        self,
        vocab: Any,
        sampling: Sampling,
        grammar: str | None,
        candidates: Candidates,
        *,
        lazy: bool = True,
        probe: CharacterProbe | None = None,
        numpy_top_p: bool = True,
    ) -> None:
        """``lazy=False`` puts the grammar first in the chain instead (every step filters
        the whole vocabulary): the reference the lazy check is measured and tested against.
        ``probe``: jump forward over the text the grammar forces (:mod:`.jump_forward`);
        only with the lazy grammar, which is a sampler of its own. ``numpy_top_p=False``
        keeps llama.cpp's chain for top-p too (the benchmark's before)."""
        self.vocab = vocab
        takes = numpy_top_p and lazy and NucleusSampler.takes(sampling)
        self.nucleus = NucleusSampler(sampling) if takes else None
        self.chain = None if takes else native.new_sampler(vocab, sampling, None if lazy else grammar)
        self.greedy = sampling.temperature <= 0
        self.full_filters = 0  # rejections that filtered the whole vocabulary
        self.grammar: Any = None
        self.candidates = candidates
        self.rejections = 0
        self.probe = probe if probe is not None and probe.usable and grammar is not None and lazy else None
        self._one = llama_cpp.llama_token_data()
        self._one_array = llama_cpp.llama_token_data_array(
            data=ctypes.pointer(self._one), size=1, selected=-1, sorted=False
        )
        self._one_pointer = ctypes.byref(self._one_array)
        if grammar is not None and lazy:
            self.grammar = llama_cpp.llama_sampler_init_grammar(vocab, grammar.encode("utf-8"), b"root") or None
            if self.grammar is None:
                self.free()
                raise ValueError("llama.cpp rejected the grammar built from the JSON schema")

    def allows(self, token: int) -> bool:
        """Whether the grammar, in its current state, admits ``token`` next."""
        one: Any = self._one
        one.id, one.logit, one.p = token, 1.0, 0.0
        self._one_array.size, self._one_array.selected, self._one_array.sorted = 1, -1, False
        llama_cpp.llama_sampler_apply(self.grammar, self._one_pointer)
        return not math.isinf(one.logit)

    def sample(self, ctx: Any, index: int) -> int | None:
        """The next token for output ``index`` of the last decode; None when the grammar
        admits no token at all."""
        if self.nucleus is not None:
            drawn = self.nucleus.draw(self.candidates.logits(ctx, index))
            if drawn is None:  # no finite logit: nothing to offer the grammar either
                return None
            token = drawn
        else:
            token = int(llama_cpp.llama_sampler_sample(self.chain, ctx, index))
        if self.grammar is None:
            return token
        if not self.allows(token):
            self.rejections += 1
            candidates = self.candidates
            levels = [k for k in TOP_FIRST if k < candidates.n_vocab] if self.greedy else []
            ranked = offered = 0
            for k in levels:  # the best allowed token is usually among the best few
                if k > ranked:
                    ranked = max(k, _RANK_FIRST)
                    candidates.rank_top(ctx, index, ranked)
                candidates.load_top(offered, k)  # only the ones not offered yet
                offered = k
                llama_cpp.llama_sampler_apply(self.grammar, candidates.pointer)
                best = candidates.first_allowed()
                if best is not None:
                    llama_cpp.llama_sampler_accept(self.grammar, best)
                    return best
            self.full_filters += 1
            candidates.load(ctx, index)
            llama_cpp.llama_sampler_apply(self.grammar, candidates.pointer)
            if not candidates.any_allowed():
                return None
            if self.nucleus is not None:
                drawn = self.nucleus.draw(candidates.loaded_logits())
                assert drawn is not None  # any_allowed: a finite logit is left
                token = drawn
            else:
                # The chain's samplers keep no state that accepting a token changes (greedy,
                # top-k/top-p, temperature; dist only advances its generator when applied).
                llama_cpp.llama_sampler_apply(self.chain, candidates.pointer)
                token = candidates.selected()
        llama_cpp.llama_sampler_accept(self.grammar, token)
        return token

    def jump(self, token: int, room: int) -> tuple[list[int], bool]:
        """What the next step feeds after the sampled ``token``: the token alone or, where
        the grammar forces text after it, its text and the forced text tokenized together
        (as the model reads them written out: a closing quote and the comma and key after
        it are often one token), when that is at most ``room`` tokens; and whether the
        reply is complete after them (the sequence ends without sampling again)."""
        if self.probe is None:
            return [token], False
        forced = self.probe.advance(self.grammar)
        if not forced.text:
            return [token], forced.complete
        tokens = self._spelled(token, forced.text)
        if tokens is None or len(tokens) > room:
            forced.discard()
            return [token], False
        llama_cpp.llama_sampler_free(self.grammar)  # the clone has taken the forced text
        self.grammar, forced.grammar = forced.grammar, None
        return tokens, forced.complete

    def _spelled(self, token: int, text: str) -> list[int] | None:
        """Tokens spelling ``token``'s text then ``text`` exactly: tokenized together, else
        ``token`` and ``text`` tokenized alone; None when neither spells it."""
        head = native.token_bytes(self.vocab, token)
        whole = head + text.encode("utf-8")
        try:
            together = native.tokenize(self.vocab, head.decode("utf-8") + text, add_special=False, parse_special=False)
            if self._spells(together, whole):
                return together
        except UnicodeDecodeError:  # the token ends inside a character: not written out on its own
            pass
        apart = [token, *native.tokenize(self.vocab, text, add_special=False, parse_special=False)]
        return apart if self._spells(apart, whole) else None

    def _spells(self, tokens: list[int], text: bytes) -> bool:
        return b"".join(native.token_bytes(self.vocab, t) for t in tokens) == text

    def free(self) -> None:
        if self.chain is not None:
            llama_cpp.llama_sampler_free(self.chain)
            self.chain = None
        if self.grammar is not None:
            llama_cpp.llama_sampler_free(self.grammar)
            self.grammar = None
