"""Duplicated and near-duplicated passages, found at word level across line breaks.

Passages are a poor unit for this: a quotation is rarely a whole paragraph in both
the source and the work that quotes it. So each report becomes one stream of
normalised words (case-folded, punctuation dropped, line-end hyphenation undone),
each word remembering its page and line. Every run of ``SHINGLE`` words is indexed
(a hash map, linear in corpus size); two places sharing a run seed a match, seeds
on one diagonal grow into maximal exact runs, and runs separated by a few changed,
inserted or deleted words are chained into one near-duplicate span. A span is kept
when it is at least ``MIN_WORDS`` long and at least 80% of the longer side's words
align (``similarity``); it is "exact" when both sides have the same words.

Shingles found in more than ``MAX_POSTINGS`` places (boilerplate such as "I have
the honour to submit") are ignored, which keeps the pair count near linear.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from itertools import combinations

from gtreview.corpus.inventory.models import DuplicatePassage, Location
from gtreview.corpus.inventory.text import CorpusText

SHINGLE = 8
MIN_WORDS = 20
MAX_GAP = 4
MIN_SIMILARITY = 0.8
MAX_POSTINGS = 50
_TOKEN = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True)
class _Word:
    norm: str
    page: int
    line: int


@dataclass
class _Run:
    a_start: int
    a_end: int
    b_start: int
    b_end: int
    matched: int


def _streams(corpus: CorpusText) -> list[tuple[str, list[_Word]]]:
    streams: list[tuple[str, list[_Word]]] = []
    for name, blocks in corpus.blocks.items():
        words: list[_Word] = []
        for block in blocks:
            line, next_offsets = block.line_start, block.offsets[1:]
            for match in _TOKEN.finditer(block.raw.casefold()):
                while next_offsets and match.start() >= next_offsets[0]:
                    next_offsets = next_offsets[1:]
                    line += 1
                words.append(_Word(match.group(0), block.page, line))
        streams.append((name, words))
    return streams


def find_duplicates(corpus: CorpusText) -> list[DuplicatePassage]:
    """Exact and near-duplicate spans between (or within) reports, longest first."""
    streams = _streams(corpus)
    postings: dict[tuple[str, ...], list[tuple[int, int]]] = defaultdict(list)
    for doc, (_name, words) in enumerate(streams):
        norms = [w.norm for w in words]
        for i in range(len(norms) - SHINGLE + 1):
            postings[tuple(norms[i : i + SHINGLE])].append((doc, i))
    diagonals: dict[tuple[int, int, int], list[int]] = defaultdict(list)
    for places in postings.values():
        if len(places) < 2 or len(places) > MAX_POSTINGS:
            continue
        for (doc_a, i), (doc_b, j) in combinations(sorted(places), 2):
            if doc_a == doc_b and j - i < SHINGLE:
                continue  # overlapping repeats inside one passage
            diagonals[(doc_a, doc_b, j - i)].append(i)
    runs: dict[tuple[int, int], list[_Run]] = defaultdict(list)
    for (doc_a, doc_b, offset), starts in diagonals.items():
        starts.sort()
        first = previous = starts[0]
        for start in [*starts[1:], None]:
            if start is not None and start == previous + 1:
                previous = start
                continue
            length = previous + SHINGLE - first
            runs[(doc_a, doc_b)].append(_Run(first, first + length, first + offset, first + offset + length, length))
            if start is not None:
                first = previous = start
    found: list[DuplicatePassage] = []
    for (doc_a, doc_b), pair_runs in runs.items():
        for chain in _chains(pair_runs):
            duplicate = _duplicate(streams[doc_a], streams[doc_b], chain, corpus)
            if duplicate is not None:
                found.append(duplicate)
    found.sort(key=lambda d: (-d.words, d.first.document, d.first.page or 0, d.first.line_start or 0))
    return found


def _chains(runs: list[_Run]) -> list[_Run]:
    """Join runs on neighbouring diagonals separated by at most MAX_GAP words."""
    runs.sort(key=lambda r: (r.a_start, r.b_start))
    chains: list[_Run] = []
    for run in runs:
        for chain in reversed(chains[-8:]):
            gap_a, gap_b = run.a_start - chain.a_end, run.b_start - chain.b_end
            if -SHINGLE < gap_a <= MAX_GAP and -SHINGLE < gap_b <= MAX_GAP:
                overlap = max(0, -min(gap_a, gap_b))
                chain.a_end, chain.b_end = max(chain.a_end, run.a_end), max(chain.b_end, run.b_end)
                chain.matched += run.matched - overlap
                break
        else:
            chains.append(_Run(run.a_start, run.a_end, run.b_start, run.b_end, run.matched))
    return chains


def _span(name: str, words: list[_Word], start: int, end: int) -> Location:
    first, last = words[start], words[end - 1]
    return Location(
        document=name,
        page=first.page,
        line_start=first.line,
        line_end=last.line,
        page_end=last.page if last.page != first.page else None,
    )


def _text(corpus: CorpusText, location: Location, limit: int = 600) -> str:
    """The span's lines joined, cut at ``limit`` characters (a preview, not the evidence)."""
    parts: list[str] = []
    size = 0
    page = location.page or 0
    for number in range(page, (location.page_end or page) + 1):
        lines = corpus.pages[location.document].get(number, ())
        first = (location.line_start or 1) if number == page else 1
        last = (location.line_end or len(lines)) if number == (location.page_end or page) else len(lines)
        for line in lines[first - 1 : last]:
            if line.strip():
                parts.append(line.strip())
                size += len(parts[-1]) + 1
            if size > limit:
                break
        if size > limit:
            break
    text = " ".join(parts)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _duplicate(
    a: tuple[str, list[_Word]], b: tuple[str, list[_Word]], chain: _Run, corpus: CorpusText
) -> DuplicatePassage | None:
    length = max(chain.a_end - chain.a_start, chain.b_end - chain.b_start)
    similarity = min(1.0, chain.matched / length)
    if length < MIN_WORDS or similarity < MIN_SIMILARITY:
        return None
    words_a = [w.norm for w in a[1][chain.a_start : chain.a_end]]
    words_b = [w.norm for w in b[1][chain.b_start : chain.b_end]]
    first = _span(a[0], a[1], chain.a_start, chain.a_end)
    second = _span(b[0], b[1], chain.b_start, chain.b_end)
    return DuplicatePassage(
        kind="exact" if words_a == words_b else "near",
        similarity=round(similarity, 3),
        words=length,
        first=first,
        second=second,
        first_text=_text(corpus, first),
        second_text=_text(corpus, second),
    )
