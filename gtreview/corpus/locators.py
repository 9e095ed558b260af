"""Resolve evidence ``(source, locator)`` pairs against parsed corpus documents.

A reviewer must see exactly the text an evidence item cites, so resolution is strict:
it understands a small set of locator forms (page/line for paged text, row key and
column for tables) and answers UNRESOLVED with a one-sentence reason for anything
else, instead of guessing. Pure functions over :class:`ParsedDocument`; no I/O.

Understood forms (case-insensitive keywords, hyphen or en dash in ranges)::

    page=N, lines=A-B    page=N, line=A    p. N, l. A-B    p.N l.A    page N, lines A-B
    book=..., page=N, lines=A-B           (book only used when the source is unclear)
    KEY=VALUE, COLUMN    KEY='VALUE', columns A and B    KEY=VALUE, columns A, B
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from gtreview.core.corpus import (
    CellRef,
    LocatorResolution,
    LocatorStatus,
    PageText,
    ParsedDocument,
    TableRow,
    TextSpan,
)

_DASHES = str.maketrans({"\u2013": "-", "\u2014": "-", "\u2212": "-", "\u2010": "-"})
_QUOTE = r"""(?:'(?P<{0}s>[^']*)'|"(?P<{0}d>[^"]*)"|\u2018(?P<{0}c>[^\u2019]*)\u2019)"""
_TEXT_FORM = re.compile(
    # Numbers of at most 9 digits: a longer one is no page anyone cites, and int()
    # refuses strings of thousands of digits with a ValueError.
    r"^(?:book\s*[=:]\s*(?:" + _QUOTE.format("book") + r"|(?P<book>[^,;]*?))"
    r"\s*[,;]\s*)?"
    r"(?:page|pg\.?|p\.?)\s*[=:]?\s*(?P<page>\d{1,9})\s*[,;]?\s*"
    r"(?:lines?|ll?\.?)\s*[=:]?\s*(?P<start>\d{1,9})(?:\s*-\s*(?P<end>\d{1,9}))?\.?$",
    re.IGNORECASE,
)
_TABLE_FORM = re.compile(
    r"^(?P<key>[^=,;'\"]+?)\s*=\s*(?:" + _QUOTE.format("val") + r"|(?P<val>[^,;]*?))\s*[,;]\s*(?P<rest>.+)$"
)
# Linear on any input: "\s*[=:]?\s+" let a run of spaces split two ways (quadratic).
_COLUMN_PREFIX = re.compile(r"^columns?(?:\s*+[=:])?\s+", re.IGNORECASE)
_NOTE = re.compile(r"\s*\([^()]*\)\s*$")  # "(both Y and N rows present)" after the columns
_COLUMN_SPLIT = re.compile(r"\s*,\s*(?:and\s+)?|\s+and\s+|\s*&\s*", re.IGNORECASE)


@dataclass(frozen=True)
class TextLocator:
    """A parsed page/line locator; ``book`` is kept only as a fallback document name."""

    book: str | None
    page: int
    start: int
    end: int


@dataclass(frozen=True)
class TableLocator:
    """A parsed row-key locator; ``columns_text`` is matched against the table later."""

    key: str
    value: str
    columns_text: str


def _group(match: re.Match[str], name: str) -> str | None:
    for suffix in ("s", "d", "c", ""):
        value = match.group(name + suffix)
        if value is not None:
            return value
    return None


def parse_text_locator(locator: str) -> TextLocator | None:
    """Page/line form, or None when the locator is not one."""
    match = _TEXT_FORM.match(" ".join(locator.translate(_DASHES).split()))
    if not match:
        return None
    start = int(match.group("start"))
    end = int(match.group("end") or start)
    book = _group(match, "book")
    return TextLocator(book.strip() if book else None, int(match.group("page")), start, end)


def parse_table_locator(locator: str) -> TableLocator | None:
    """Row key and column form, or None when the locator is not one."""
    match = _TABLE_FORM.match(" ".join(locator.split()))
    if not match:
        return None
    value = _group(match, "val") or ""
    return TableLocator(match.group("key").strip(), value.strip(), match.group("rest"))


def _parts(path: str) -> tuple[str, ...]:
    return tuple(p for p in path.replace("\\", "/").split("/") if p not in ("", "."))


def _trailing_common(a: tuple[str, ...], b: tuple[str, ...]) -> int:
    count = 0
    for x, y in zip(reversed(a), reversed(b), strict=False):
        if x != y:
            break
        count += 1
    return count


class _TableIndex:
    """Column lookup and lazily built per-column value -> rows maps for one table."""

    def __init__(self, document: ParsedDocument) -> None:
        self.document = document
        self.columns = set(document.columns)
        folded: dict[str, list[str]] = {}
        for column in document.columns:
            folded.setdefault(column.casefold(), []).append(column)
        self._folded = folded
        self._by_value: dict[str, dict[str, list[TableRow]]] = {}

    def column(self, name: str) -> str | None:
        """Exact column name, else a case-insensitive match when it is unique."""
        if name in self.columns:
            return name
        candidates = self._folded.get(name.casefold(), [])
        return candidates[0] if len(candidates) == 1 else None

    def rows_where(self, column: str, value: str) -> list[TableRow]:
        index = self._by_value.get(column)
        if index is None:
            index = {}
            for row in self.document.rows:
                index.setdefault(row.cells.get(column, "").strip(), []).append(row)
            self._by_value[column] = index
        return index.get(value, [])


class CorpusIndex:
    """Documents indexed once (by file name, page number, column values) so that
    resolving every evidence item of a benchmark set stays fast."""

    def __init__(self, documents: Sequence[ParsedDocument]) -> None:
        self.documents = list(documents)
        self._by_file: dict[str, list[tuple[tuple[str, ...], ParsedDocument]]] = {}
        for doc in self.documents:
            parts = _parts(doc.name)
            if parts:
                self._by_file.setdefault(parts[-1], []).append((parts, doc))
        self._pages: dict[int, dict[int, PageText]] = {}
        self._tables: dict[int, _TableIndex] = {}

    def candidates(self, source: str) -> list[ParsedDocument]:
        """Documents sharing the most trailing path components with ``source``
        (at least the file name); more than one means the source is ambiguous."""
        parts = _parts(source)
        if not parts:
            return []
        best: list[ParsedDocument] = []
        best_count = 0
        for doc_parts, doc in self._by_file.get(parts[-1], []):
            count = _trailing_common(parts, doc_parts)
            if count > best_count:
                best, best_count = [doc], count
            elif count == best_count:
                best.append(doc)
        return best

    def match(self, source: str) -> ParsedDocument | None:
        found = self.candidates(source)
        return found[0] if len(found) == 1 else None

    def resolve(self, source: str, locator: str) -> LocatorResolution:
        """Resolve one evidence item; never raises for bad input."""
        if not locator.strip():
            return _unresolved(source, locator, "The locator is empty.")
        text_form = parse_text_locator(locator)
        found = self.candidates(source)
        if len(found) != 1 and text_form is not None and text_form.book:
            by_book = self.candidates(text_form.book)
            if len(by_book) == 1:
                found = by_book
        if not found:
            reason = f"No document in the corpus matches the source '{source}'."
            return _unresolved(source, locator, reason)
        if len(found) > 1:
            names = ", ".join(sorted(d.name for d in found))
            reason = f"The source '{source}' matches several documents ({names})."
            return _unresolved(source, locator, reason)
        doc = found[0]
        if doc.is_table:
            return self._resolve_table(doc, source, locator, text_form is not None)
        if text_form is None:
            if parse_table_locator(locator) is not None:
                reason = f"{doc.name} is paged text, but the locator names a table row."
            else:
                reason = _not_understood(locator)
            return _unresolved(source, locator, reason, doc.name)
        return self._resolve_text(doc, source, locator, text_form)

    def _resolve_text(self, doc: ParsedDocument, source: str, locator: str, loc: TextLocator) -> LocatorResolution:
        pages = self._pages.get(id(doc))
        if pages is None:
            pages = self._pages[id(doc)] = {page.number: page for page in doc.pages}
        page = pages.get(loc.page)
        reason = ""
        if page is None:
            reason = f"{doc.name} has no page {loc.page} ({_page_range(doc)})."
        elif loc.start > loc.end:
            reason = f"The line range {loc.start}-{loc.end} runs backwards."
        elif loc.start < 1 or loc.end > len(page.lines):
            cited = f"{loc.start}-{loc.end}" if loc.end != loc.start else f"{loc.start}"
            reason = f"Page {loc.page} of {doc.name} has {len(page.lines)} lines, so line {cited} is out of range."
        if page is None or reason:
            return _unresolved(source, locator, reason, doc.name)
        span = TextSpan(
            document=doc.name,
            page=loc.page,
            line_start=loc.start,
            line_end=loc.end,
            text="\n".join(page.lines[loc.start - 1 : loc.end]),
        )
        return LocatorResolution(
            source=source,
            locator=locator,
            status=LocatorStatus.RESOLVED,
            document=doc.name,
            spans=[span],
        )

    def _resolve_table(self, doc: ParsedDocument, source: str, locator: str, is_text: bool) -> LocatorResolution:
        table = self._tables.get(id(doc))
        if table is None:
            table = self._tables[id(doc)] = _TableIndex(doc)
        loc = parse_table_locator(locator)
        key = table.column(loc.key) if loc is not None else None
        if loc is None or key is None:
            if is_text:
                reason = f"{doc.name} is a table, but the locator cites a page and lines."
            elif loc is None:
                reason = _not_understood(locator)
            else:
                reason = f"{doc.name} has no column '{loc.key}'."
            return _unresolved(source, locator, reason, doc.name)
        columns, unknown = _columns(table, loc.columns_text)
        note = _NOTE.search(loc.columns_text)
        if unknown and note and not _columns(table, loc.columns_text[: note.start()])[1]:
            # the columns exist: what is not understood is the note after them
            reason = (
                _not_understood(locator).rstrip(".") + f"; it has a note after the column: '{note.group(0).strip()}'."
            )
            return _unresolved(source, locator, reason, doc.name)
        if unknown:
            listed = ", ".join(f"'{c}'" for c in unknown)
            plural = "s" if len(unknown) > 1 else ""
            reason = f"{doc.name} has no column{plural} {listed}."
            return _unresolved(source, locator, reason, doc.name)
        rows = table.rows_where(key, loc.value)
        if not rows:
            reason = f"No row of {doc.name} has {key} = '{loc.value}'."
            return _unresolved(source, locator, reason, doc.name)
        cells = [
            CellRef(
                document=doc.name,
                row_index=row.index,
                row_key=row.key,
                columns=tuple(columns),
                values=tuple(row.cells[c] for c in columns),
            )
            for row in rows
        ]
        return LocatorResolution(
            source=source,
            locator=locator,
            status=LocatorStatus.RESOLVED,
            document=doc.name,
            cells=cells,
        )


def _unresolved(source: str, locator: str, reason: str, document: str | None = None) -> LocatorResolution:
    return LocatorResolution(
        source=source,
        locator=locator,
        status=LocatorStatus.UNRESOLVED,
        document=document,
        reason=reason,
    )


def _columns(table: _TableIndex, text: str) -> tuple[list[str], list[str]]:
    """Cited columns and the unknown names; the whole text is tried as one column
    first so a name containing 'and' or a comma is not split apart."""
    # Single spaces only: the split pattern scans a run of spaces from each of its
    # starts, which is quadratic in a long run.
    spec = _COLUMN_PREFIX.sub("", " ".join(text.split())).strip()
    whole = table.column(spec)
    if whole is not None:
        return [whole], []
    names = [n.strip() for n in _COLUMN_SPLIT.split(spec) if n.strip()]
    resolved = [table.column(n) for n in names]
    if not names or all(r is None for r in resolved):
        return [], [spec]
    unknown = [n for n, r in zip(names, resolved, strict=True) if r is None]
    return [r for r in resolved if r is not None], unknown


def _page_range(doc: ParsedDocument) -> str:
    numbers = [page.number for page in doc.pages]
    if not numbers:
        return "it has no pages"
    if numbers == list(range(numbers[0], numbers[0] + len(numbers))):
        if len(numbers) == 1:
            return f"it has page {numbers[0]} only"
        return f"its pages are {numbers[0]}-{numbers[-1]}"
    return "its pages are " + ", ".join(str(n) for n in numbers)


def _not_understood(locator: str) -> str:
    return f"The locator '{locator}' is not a form gtreview can resolve (page=N, lines=A-B or KEY=VALUE, COLUMN)."


def match_document(source: str, documents: Sequence[ParsedDocument]) -> ParsedDocument | None:
    """The document an evidence ``source`` path names, or None if none or several do."""
    return CorpusIndex(documents).match(source)


def resolve_locator(source: str, locator: str, documents: Sequence[ParsedDocument]) -> LocatorResolution:
    """Resolve one evidence item; build a :class:`CorpusIndex` to resolve many."""
    return CorpusIndex(documents).resolve(source, locator)


def resolve_evidence(items: Iterable[tuple[str, str]], documents: Sequence[ParsedDocument]) -> list[LocatorResolution]:
    """Resolve many ``(source, locator)`` pairs against one index built once."""
    index = CorpusIndex(documents)
    return [index.resolve(source, locator) for source, locator in items]
