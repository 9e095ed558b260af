"""Which prompt tokens to prefill once and share between sequences (a prefix tree).

Judge prompts nest: one instruction shared by every request, a marking block shared by
the answers to one question, then each answer. Prefilling each shared stretch once, in
one sequence, and copying it to the others by ``llama_memory_seq_cp`` (which, with a
unified KV cache, only tags cells with more sequence ids) saves all repeated prefill,
also when several questions are in flight in one wave. Pure Python, no llama.cpp.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Segment:
    """Prompt positions [start, end) decoded in sequence ``owner``, then copied to ``copies``."""

    owner: int
    start: int
    end: int
    copies: tuple[int, ...]


@dataclass(frozen=True)
class PrefixPlan:
    segments: list[Segment]  # parents before children
    own_start: list[int]  # where each prompt's unshared suffix begins

    def prefill_tokens(self, prompts: Sequence[Sequence[int]]) -> int:
        """Tokens decoded for the prompts under this plan (the KV cells they occupy)."""
        shared = sum(s.end - s.start for s in self.segments)
        return shared + sum(len(p) - start for p, start in zip(prompts, self.own_start, strict=True))


def shared_prefix_length(prompts: Sequence[Sequence[int]]) -> int:
    """Tokens all prompts share, leaving each at least one token of its own to prefill
    (a sequence's last prompt token must be decoded in that sequence to give it logits)."""
    if not prompts:
        return 0
    first, n = prompts[0], min(len(p) for p in prompts)
    common = n
    for other in prompts[1:]:
        if list(other[:common]) == list(first[:common]):  # the usual case, compared in C
            continue
        k = 0
        while k < common and other[k] == first[k]:
            k += 1
        common = k
    return max(0, min(common, n - 1))


def plan_prefixes(prompts: Sequence[Sequence[int]]) -> PrefixPlan:
    """Split non-empty prompts into shared segments (a prefix tree) and own suffixes.

    Sequence ids are prompt indices; the first prompt of every group owns the group's
    shared segment, so the longest common prefix of all prompts is decoded in sequence 0.
    """
    segments: list[Segment] = []
    own_start = [0] * len(prompts)

    def visit(group: list[int], start: int) -> None:
        if len(group) == 1:
            own_start[group[0]] = start
            return
        end = shared_prefix_length([prompts[i] for i in group])
        if end > start:
            segments.append(Segment(group[0], start, end, tuple(group[1:])))
        elif all(prompts[i][start] == prompts[group[0]][start] for i in group):
            # All share the next token but one prompt ends there: it keeps that token
            # as its own suffix and the others may still share more.
            short = [i for i in group if len(prompts[i]) == start + 1]
            for i in short:
                own_start[i] = start
            rest = [i for i in group if len(prompts[i]) > start + 1]
            if rest:
                visit(rest, start)
            return
        by_token: dict[int, list[int]] = {}
        for i in group:
            by_token.setdefault(prompts[i][end], []).append(i)
        for subgroup in by_token.values():
            visit(subgroup, end)

    if prompts:
        visit(list(range(len(prompts))), 0)
    return PrefixPlan(segments, own_start)
