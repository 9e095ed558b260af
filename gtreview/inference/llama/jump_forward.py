"""Jump-forward decoding: the text a JSON grammar leaves no choice about, fed in one step.

A judge's verdict is mostly its schema's skeleton: keys, quotes, commas and braces (249
of 287 tokens of a v3 verdict on SmolLM2). Decoded one token a step, each of those costs
a whole forward pass of every live sequence, though the grammar allows one character
there and nothing else. So after each sampled token the sequence's sampler asks the
grammar which printable ASCII characters may come next: one ``llama_sampler_apply``
over their one-character tokens (about 100 candidates, not the vocabulary). While
exactly one may, it is forced: a clone of the grammar takes it and is asked again. The
sampled token's text and the forced run are tokenized together, as the model reads them
written out (a closing quote and the comma and key after it are often one token), and
fed in the next step (logits only for the last); the clone, already past the forced
text, becomes the sequence's grammar (``SequenceSampler.jump``). A run of skeleton costs
one step instead of one per token.

Why asking the ASCII characters is enough: in a JSON grammar a character outside ASCII
is allowed only inside a string, where almost every ASCII character is allowed too; so
where exactly one ASCII character is allowed, it is the only text that can come next.
The grammar's whitespace is fixed (``json_grammar`` writes compact JSON) so that a key
and its punctuation are one forced run, not broken by optional spaces. Where no ASCII
character is allowed but the end of generation is, the reply is complete: the sequence
ends without another step.

The text is the one constrained decoding would reach, but it is tokenized as written
rather than chosen token by token, so the model reads the same characters split into
tokens differently (as in other jump-forward decoders), and what it writes next may
differ. Agreement on the calibration fixtures is measured with it on and off
(``benchmarks/bench_judging.py --jump-forward off,on``), and whether a verdict was decoded
so is recorded with it (the engine's ``describe()``).
"""

from __future__ import annotations

import ctypes
import math
import string
from dataclasses import dataclass
from typing import Any

import llama_cpp
import numpy as np

from gtreview.inference.llama import native as native

# The characters asked about: every printable ASCII one, and the whitespace JSON allows.
PROBE_CHARACTERS = string.printable.replace("\x0b", "").replace("\x0c", "")
MAX_FORCED_CHARACTERS = 256  # one run at most (a verdict's longest run is about 40)


class CharacterProbe:
    """The one-character tokens of a model's vocabulary, as one reusable candidate array.

    ``usable`` is False when some probe character has no token of its own (asking the
    grammar would then miss an allowed character): the engine decodes without jumping.
    """

    def __init__(self, vocab: Any) -> None:
        self.vocab = vocab
        found: dict[str, int] = {}
        for char in PROBE_CHARACTERS:
            tokens = native.tokenize(vocab, char, add_special=False, parse_special=False)
            if len(tokens) == 1 and native.token_bytes(vocab, tokens[0]) == char.encode("ascii"):
                found[char] = tokens[0]
        self.usable = len(found) == len(PROBE_CHARACTERS)
        self.characters = list(found)
        self.tokens = [found[c] for c in self.characters]
        self._data = (llama_cpp.llama_token_data * max(1, len(self.tokens)))()
        self._view = np.frombuffer(memoryview(self._data).cast("B"), dtype=native.TOKEN_DATA)[: len(self.tokens)]
        self._view["id"] = self.tokens
        self._array = llama_cpp.llama_token_data_array(
            data=ctypes.cast(self._data, llama_cpp.llama_token_data_p), size=0, selected=-1, sorted=False
        )
        self._pointer = ctypes.byref(self._array)
        self._end = _end_token(vocab)

    def allowed(self, grammar: Any) -> list[int]:
        """Indices (into ``characters``) of the characters ``grammar`` allows next."""
        self._view["id"] = self.tokens  # a grammar only masks logits, but the array is the sampler's to write
        self._view["logit"] = 1.0
        self._array.size, self._array.selected, self._array.sorted = len(self.tokens), -1, False
        llama_cpp.llama_sampler_apply(grammar, self._pointer)
        return np.flatnonzero(np.isfinite(self._view["logit"])).tolist()

    def allows_end(self, grammar: Any) -> bool:
        """Whether ``grammar`` allows the end of generation now (its reply is complete)."""
        if self._end < 0:
            return False
        one = llama_cpp.llama_token_data(id=self._end, logit=1.0, p=0.0)
        array = llama_cpp.llama_token_data_array(data=ctypes.pointer(one), size=1, selected=-1, sorted=False)
        llama_cpp.llama_sampler_apply(grammar, ctypes.byref(array))
        return not math.isinf(one.logit)

    def forced_text(self, grammar: Any, limit: int = MAX_FORCED_CHARACTERS) -> tuple[str, bool]:
        """The characters ``grammar`` forces next (at most ``limit``), and whether the reply
        is complete after them. ``grammar`` itself is not changed (a clone walks ahead)."""
        forced = self.advance(grammar, limit)
        forced.discard()
        return forced.text, forced.complete

    def advance(self, grammar: Any, limit: int = MAX_FORCED_CHARACTERS) -> Forced:
        """What :meth:`forced_text` says, with the clone of ``grammar`` that took the forced
        characters (the caller adopts it, or discards it)."""
        allowed = self.allowed(grammar)
        if len(allowed) != 1 or limit <= 0:
            return Forced("", not allowed and self.allows_end(grammar), None)
        walker = llama_cpp.llama_sampler_clone(grammar)
        try:
            forced: list[str] = []
            while len(allowed) == 1 and len(forced) < limit:
                forced.append(self.characters[allowed[0]])
                llama_cpp.llama_sampler_accept(walker, self.tokens[allowed[0]])
                allowed = self.allowed(walker)
            return Forced("".join(forced), not allowed and self.allows_end(walker), walker)
        except BaseException:
            llama_cpp.llama_sampler_free(walker)
            raise


@dataclass
class Forced:
    """Text a grammar forces: ``complete`` when the reply ends after it; ``grammar`` a
    clone in the state after it (None when there is no text), the caller's to free."""

    text: str
    complete: bool
    grammar: Any

    def discard(self) -> None:
        if self.grammar is not None:
            llama_cpp.llama_sampler_free(self.grammar)
            self.grammar = None


def _end_token(vocab: Any) -> int:
    """An end-of-generation token the grammar is asked about (end of turn, else EOS)."""
    for token in (int(llama_cpp.llama_vocab_eot(vocab)), int(llama_cpp.llama_vocab_eos(vocab))):
        if token >= 0 and llama_cpp.llama_vocab_is_eog(vocab, token):
            return token
    return -1
