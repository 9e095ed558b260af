"""Text preparation shared by the inventory detectors.

Every detector needs the same things from a report: passages joined into running
text (words hyphenated across a line break put back together), sentence bounds,
section headings, and a way back from a character offset to the page and line a
reviewer would cite. :func:`prepare` computes them once per corpus.

Headings (``WATER.--``, ``## 3. Geology``, ``**Garibaldi.**``) are blanked out of
``Block.text`` (same length, so offsets still map to lines) and kept as the section
context of the text that follows them: "the water stands at 184 ft." under the
heading "Garibaldi" is about the Garibaldi.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass, field

from gtreview.core.corpus import ParsedDocument
from gtreview.corpus.inventory.lexicon import ABBREVIATIONS, NEVER_SPLIT, STOPWORDS

WORD = re.compile(r"[A-Za-z](?:[A-Za-z'\u2019]*[A-Za-z])?")
_HYPHENATED = re.compile(r"\b([A-Za-z]+)-([A-Za-z]+)\b")
_INLINE_HEADING = re.compile(r"^\s*(.{2,80}?)\s*--+\s*")
_BOLD_HEADING = re.compile(r"^\s*\*\*(.{1,80}?)\*\*")
_MD_HEADING = re.compile(r"^\s*#{1,6}\s")
_LIST_ITEM = re.compile(r"^\s*(?:\d{1,2}[.)]|[a-z][.)]|\([a-z0-9]{1,3}\))\s+\S")
_LEADERS = re.compile(r"\.{4,}|\s{3,}\S+\s{3,}|^\s*\|")
_BOUNDARY = re.compile(r"[.!?][\"')\]\u201d]*\s+(?=[\"'(\u201c]?[A-Z0-9])")
_TRAILING_WORD = re.compile(r"([A-Za-z]+)[.!?][\"')\]\u201d]*\s+$")


def caps_ratio(text: str) -> float:
    letters = [c for c in text if c.isalpha()]
    return sum(c.isupper() for c in letters) / len(letters) if letters else 0.0


def is_heading_line(line: str) -> bool:
    """A short line in capitals or a Markdown heading: a title, not running text."""
    stripped = line.strip()
    if not stripped or len(stripped) > 90:
        return False
    if _MD_HEADING.match(stripped):
        return True
    letters = sum(c.isalpha() for c in stripped)
    return letters >= 3 and caps_ratio(stripped) >= 0.85


def is_tabular(line: str) -> bool:
    """Dotted leaders, column gaps or a Markdown table row: values there have no sentence."""
    return bool(_LEADERS.search(line.rstrip()))


@dataclass
class Block:
    """One passage as running text, with a map back to its physical lines."""

    document: str
    index: int
    page: int
    line_start: int
    line_end: int
    raw: str
    text: str
    offsets: list[int]
    tabular: list[bool]
    heading: str
    is_heading: bool
    sentences: list[tuple[int, int]] = field(default_factory=list)

    def line_at(self, offset: int) -> int:
        return self.line_start + max(0, bisect_right(self.offsets, offset) - 1)

    def line_is_tabular(self, line: int) -> bool:
        return self.tabular[line - self.line_start]


@dataclass
class CorpusText:
    """The prepared corpus: blocks per text document and original lines per page."""

    documents: list[ParsedDocument]
    blocks: dict[str, list[Block]]
    pages: dict[str, dict[int, tuple[str, ...]]]
    lower_words: Counter[str]

    def line_text(self, document: str, page: int, line: int) -> str:
        lines = self.pages.get(document, {}).get(page, ())
        return lines[line - 1].strip() if 0 < line <= len(lines) else ""

    @property
    def text_documents(self) -> list[ParsedDocument]:
        return [d for d in self.documents if not d.is_table]


def prepare(documents: list[ParsedDocument]) -> CorpusText:
    """Blocks, sentences and vocabulary for every text document."""
    hyphenated: set[str] = set()
    lower: Counter[str] = Counter()
    for document in documents:
        for page in document.pages:
            for line in page.lines:
                hyphenated.update(f"{a}-{b}".casefold() for a, b in _HYPHENATED.findall(line))
                lower.update(w.casefold() for w in WORD.findall(line) if w[0].islower())
    blocks: dict[str, list[Block]] = {}
    pages: dict[str, dict[int, tuple[str, ...]]] = {}
    for document in documents:
        if document.is_table:
            continue
        pages[document.name] = {page.number: page.lines for page in document.pages}
        blocks[document.name] = _blocks(document, pages[document.name], hyphenated)
    return CorpusText(documents=list(documents), blocks=blocks, pages=pages, lower_words=lower)


def _blocks(document: ParsedDocument, pages: dict[int, tuple[str, ...]], hyphenated: set[str]) -> list[Block]:
    result: list[Block] = []
    heading = ""
    for passage in document.passages:
        lines = pages.get(passage.page, ())[passage.line_start - 1 : passage.line_end]
        if not lines:
            continue
        raw, offsets = _join(lines, hyphenated)
        text = raw.replace("*", " ")
        is_heading = all(is_heading_line(line) for line in lines)
        if is_heading:
            heading = " ".join(line.strip().lstrip("#").strip() for line in lines)
            text = " " * len(raw)
        else:
            found = _BOLD_HEADING.match(raw) or _INLINE_HEADING.match(raw)
            if found and (found.re is _BOLD_HEADING or caps_ratio(found.group(1)) >= 0.8):
                heading = found.group(1).strip(" .*")
                text = " " * found.end() + text[found.end() :]
        block = Block(
            document=document.name,
            index=len(result),
            page=passage.page,
            line_start=passage.line_start,
            line_end=passage.line_end,
            raw=raw,
            text=text,
            offsets=offsets,
            tabular=[is_tabular(line) for line in lines],
            heading=heading,
            is_heading=is_heading,
        )
        block.sentences = [] if is_heading else split_sentences(text, offsets, lines)
        result.append(block)
    return result


def _join(lines: tuple[str, ...], hyphenated: set[str]) -> tuple[str, list[int]]:
    """Join lines with single spaces; re-join words broken by a line-end hyphen.

    ``com-`` + ``mon`` becomes ``common`` unless the hyphenated form (``cross-courses``)
    occurs elsewhere in the corpus, in which case the hyphen is part of the word.
    """
    text = ""
    offsets: list[int] = []
    for line in lines:
        piece = line.strip()
        if not text:
            offsets.append(0)
            text = piece
            continue
        broken = re.search(r"([A-Za-z]+)-$", text)
        first = re.match(r"[a-z]+", piece)
        if broken and first:
            if f"{broken.group(1)}-{first.group(0)}".casefold() not in hyphenated:
                text = text[:-1]
            offsets.append(len(text))
            text += piece
        else:
            text += " "
            offsets.append(len(text))
            text += piece
    return text, offsets


def split_sentences(text: str, offsets: list[int], lines: tuple[str, ...]) -> list[tuple[int, int]]:
    """Sentence bounds in ``text``: full stops that are not abbreviations, plus list items.

    A unit abbreviation (``ft.``, ``dwt.``) ends a sentence only when a capitalised
    function word follows (``... 420 ft. The shaft``), since these reports end many
    sentences with a measurement.
    """
    cuts = {0}
    for match in _BOUNDARY.finditer(text):
        before = _TRAILING_WORD.search(text, max(0, match.start() - 30), match.end())
        word = before.group(1).casefold() if before else ""
        if len(word) == 1 and word.isalpha() and word != "i":
            continue
        if word in NEVER_SPLIT:
            continue
        if word in ABBREVIATIONS:
            following = WORD.match(text, match.end())
            if not following or following.group(0).casefold() not in STOPWORDS:
                continue
        cuts.add(match.end())
    for offset, line in zip(offsets, lines, strict=True):
        if offset and _LIST_ITEM.match(line):
            cuts.add(offset)
    ordered = sorted(cuts)
    bounds = [(start, end) for start, end in zip(ordered, [*ordered[1:], len(text)], strict=True)]
    return [(s, e) for s, e in bounds if text[s:e].strip()]
