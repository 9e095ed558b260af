"""Corpus passages that the drafting model reads, and how they are shown to it.

The model can only cite what it was shown, so every passage carries its exact address
(document, page and line range, or table row key) and every line is printed with its
number: a model that sees ``  14 | ...`` cites ``page=3, lines=14-17`` correctly far
more often than one counting lines itself. The program later checks each cited
locator against these passages, so a claim about text the model never saw is caught.

``select_passages`` picks a spread over the corpus within a character budget: every
document contributes in turn, and within a document the picks are spread over its
length rather than taken from the start, so a set is not drafted from page 1 alone.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from gtreview.core.corpus import CellRef, LocatorResolution, ParsedDocument, TextSpan

DEFAULT_CHUNK_CHARS = 1500


class SourcePassage(BaseModel):
    """A chunk of one document: lines ``line_start..line_end`` of a page, or one table row."""

    model_config = ConfigDict(frozen=True)

    document: str
    text: str
    page: int | None = None
    line_start: int | None = None
    line_end: int | None = None
    key_column: str | None = None
    key_value: str | None = None

    @property
    def is_row(self) -> bool:
        return self.key_column is not None

    @property
    def locator(self) -> str:
        """The passage's own address, in the form evidence locators use."""
        if self.is_row:
            value = self.key_value or ""
            if any(ch in value for ch in ",;'\"=") or value != value.strip():
                value = f"'{value}'" if "'" not in value else f'"{value}"'
            return f"{self.key_column}={value}"
        return f"page={self.page}, lines={self.line_start}-{self.line_end}"

    def covers_span(self, span: TextSpan) -> bool:
        return (
            not self.is_row
            and span.document == self.document
            and span.page == self.page
            and (self.line_start or 0) <= span.line_start
            and span.line_end <= (self.line_end or 0)
        )

    def covers_cell(self, cell: CellRef) -> bool:
        return self.is_row and cell.document == self.document and cell.row_key == self.key_value


def shown_in(passages: Sequence[SourcePassage], resolution: LocatorResolution) -> bool:
    """Whether everything a resolved locator cites lies inside the passages shown.

    A claim citing lines the model was never shown is not grounded in what it read,
    even when those lines exist in the corpus.
    """
    if not resolution.resolved or not (resolution.spans or resolution.cells):
        return False
    return all(any(p.covers_span(s) for p in passages) for s in resolution.spans) and all(
        any(p.covers_cell(c) for p in passages) for c in resolution.cells
    )


def text_passage(document: str, page: int, line_start: int, lines: Sequence[str]) -> SourcePassage:
    return SourcePassage(
        document=document,
        page=page,
        line_start=line_start,
        line_end=line_start + len(lines) - 1,
        text="\n".join(lines),
    )


def _text_chunks(doc: ParsedDocument, chunk_chars: int) -> list[SourcePassage]:
    """Consecutive paragraphs of one page merged up to ``chunk_chars`` (lines kept exact)."""
    chunks: list[SourcePassage] = []
    for page in sorted(doc.pages, key=lambda p: p.number):
        lines = page.lines
        spans = [(p.line_start, p.line_end) for p in doc.passages if p.page == page.number]
        if not spans and any(line.strip() for line in lines):
            spans = [(1, len(lines))]
        start: int | None = None
        end = 0
        for first, last in spans:
            if start is not None and sum(len(x) + 1 for x in lines[start - 1 : last]) > chunk_chars:
                chunks.append(text_passage(doc.name, page.number, start, lines[start - 1 : end]))
                start = None
            if start is None:
                start = first
            end = last
        if start is not None:
            chunks.append(text_passage(doc.name, page.number, start, lines[start - 1 : end]))
    return chunks


def _row_chunks(doc: ParsedDocument) -> list[SourcePassage]:
    if doc.key_column is None:
        return []
    return [
        SourcePassage(
            document=doc.name,
            text="\n".join(f"{column}: {row.cells.get(column, '')}" for column in doc.columns),
            key_column=doc.key_column,
            key_value=row.key,
        )
        for row in doc.rows
    ]


def document_chunks(doc: ParsedDocument, chunk_chars: int = DEFAULT_CHUNK_CHARS) -> list[SourcePassage]:
    """Every chunk of a document in reading order (tables: one chunk per keyed row)."""
    return _row_chunks(doc) if doc.is_table else _text_chunks(doc, chunk_chars)


def spread_order(n: int) -> list[int]:
    """0..n-1 ordered so that any prefix is spread over the range (0, n/2, n/4, 3n/4, ...)."""
    order: list[int] = []
    seen: set[int] = set()
    k = 0
    while len(order) < n and k < 4 * n + 8:
        fraction, denominator, i = 0.0, 1.0, k
        while i:  # van der Corput sequence in base 2
            denominator *= 2
            fraction += (i % 2) / denominator
            i //= 2
        position = int(fraction * n)
        if position not in seen:
            seen.add(position)
            order.append(position)
        k += 1
    order.extend(i for i in range(n) if i not in seen)
    return order


def select_passages(
    documents: Sequence[ParsedDocument], *, max_chars: int, chunk_chars: int = DEFAULT_CHUNK_CHARS
) -> list[SourcePassage]:
    """A spread of chunks from every document within ``max_chars`` of passage text."""
    queues = []
    for doc in documents:
        chunks = document_chunks(doc, chunk_chars)
        queues.append([chunks[i] for i in spread_order(len(chunks))])
    chosen: list[SourcePassage] = []
    used = 0
    progress = True
    while progress:
        progress = False
        for queue in queues:
            while queue:
                chunk = queue.pop(0)
                if used + len(chunk.text) <= max_chars:
                    chosen.append(chunk)
                    used += len(chunk.text)
                    progress = True
                    break
    order = {doc.name: i for i, doc in enumerate(documents)}
    return sorted(chosen, key=lambda p: (order.get(p.document, 0), p.page or 0, p.line_start or 0, p.key_value or ""))


def render_passage(label: str, passage: SourcePassage) -> str:
    if passage.is_row:
        head = f"[{label}] {passage.document} | row {passage.locator} (cite as {passage.locator}, COLUMN)"
        return f"{head}\n{passage.text}"
    head = f"[{label}] {passage.document} | page {passage.page}, lines {passage.line_start}-{passage.line_end}"
    first = passage.line_start or 1
    width = len(str(passage.line_end or first))
    numbered = [f"{number:>{width}} | {line}" for number, line in enumerate(passage.text.split("\n"), start=first)]
    return "\n".join([head, *numbered])


def passage_labels(passages: Sequence[SourcePassage]) -> list[str]:
    return [f"P{i}" for i in range(1, len(passages) + 1)]
