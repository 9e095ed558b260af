"""Read corpus files (txt, md, csv, pdf) into :class:`ParsedDocument` models.

Evidence locators cite sources by page and line (reports) or by row key and column
(tables), so the reader's one job is to fix those addresses exactly as a human reading
the file would count them: page numbers come from the file's own page markers, every
physical line counts, and nothing is reflowed. Anything the reader cannot address
reliably is refused with a one-line :class:`CorpusImportError` instead of being
imported half-right, because a wrong address is worse than no address.
"""

from __future__ import annotations

import csv
import hashlib
import io
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from gtreview.core.corpus import PageText, ParsedDocument, Passage, SourceKind, TableRow
from gtreview.core.errors import UserError
from gtreview.corpus.pdf_warnings import pdf_warnings
from gtreview.inputs import InputReadError, check_regular_file, read_at_most

MAX_FILE_BYTES = 200 * 1024 * 1024
"""Largest file accepted; bigger ones are almost certainly not a single source text."""

SUFFIX_KINDS: dict[str, SourceKind] = {
    ".txt": SourceKind.TEXT,
    ".text": SourceKind.TEXT,
    ".md": SourceKind.MARKDOWN,
    ".markdown": SourceKind.MARKDOWN,
    ".csv": SourceKind.CSV,
    ".pdf": SourceKind.PDF,
}

# Possessive quantifiers (``*+``, ``?+``) never give back what they took. Each one is
# followed by something its own characters cannot start, so no match is lost, but a
# hostile line can no longer make the engine retry every split of a run of spaces
# (the greedy form was cubic in the spaces of one line: 10 s for 811 bytes).
_MARKER = re.compile(
    r"^\s*+\[?+\s*+(?:={3,}+|-{3,}+)\s*+\[?+\s*+page\s*+\[?+\s*+(\d++)\s*+\]?+\s*+\]?+"
    r"\s*+(?:={3,}+|-{3,}+)\s*+\]?+\s*+$",
    re.IGNORECASE,
)
MAX_PAGE_NUMBER = 1_000_000
"""Largest page a marker may name; a bigger one is a typo and would not fit the store."""
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_NUMBER = re.compile(r"^[+-]?(\d+([.,]\d*)?|[.,]\d+)$")


class CorpusImportError(UserError, ValueError):
    """A corpus file that cannot be imported; ``str()`` is one line: ``file: reason``.

    It is the only exception :func:`parse_file` raises for bad input, so callers (the
    CLI, the import dialog) can show it as-is and carry on with the next file.
    """

    def __init__(self, file: str, reason: str) -> None:
        self.file = file
        self.reason = " ".join(reason.split())
        super().__init__(f"{file}: {self.reason}")

    def __reduce__(self) -> tuple[type[CorpusImportError], tuple[str, str]]:
        # Keep the error picklable: imports may run in a worker process.
        return (type(self), (self.file, self.reason))


def parse_file(path: Path, name: str | None = None) -> ParsedDocument:
    """Parse one corpus file; ``name`` is its path relative to the import root.

    The size and suffix are checked before reading so a huge or foreign file is
    refused without loading it.
    """
    path = Path(path)
    name = name or path.name
    kind = _kind_for(name, path.suffix)
    try:
        check_regular_file(path)  # a pipe or a device is refused before it is opened
        _check_size(name, path.stat().st_size)  # a regular file's size is its own: no need to read it
        # the file may have grown since: read at most one byte over the limit, and _parse
        # checks the size of what was read
        data = read_at_most(path, MAX_FILE_BYTES)
    except InputReadError as exc:
        raise CorpusImportError(name, exc.reason) from None
    except OSError as exc:
        raise CorpusImportError(name, f"cannot be read ({exc.strerror or exc})") from exc
    return _parse(data, name, kind)


def parse_bytes(data: bytes, name: str) -> ParsedDocument:
    """Parse file content already in memory; the kind comes from ``name``'s suffix.

    Lets the store re-parse a stored original (and tests feed bytes) without a file.
    """
    return _parse(data, name, _kind_for(name, PurePosixPath(name).suffix))


def _kind_for(name: str, suffix: str) -> SourceKind:
    kind = SUFFIX_KINDS.get(suffix.lower())
    if kind is None:
        shown = f"'{suffix}'" if suffix else "no extension"
        allowed = ", ".join(sorted(SUFFIX_KINDS))
        raise CorpusImportError(name, f"unsupported file type ({shown}); supported types are {allowed}")
    return kind


def _check_size(name: str, size: int) -> None:
    if size > MAX_FILE_BYTES:
        raise CorpusImportError(
            name,
            f"is {size / 2**20:.0f} MB, over the {MAX_FILE_BYTES // 2**20} MB limit",
        )
    if size == 0:
        raise CorpusImportError(name, "is empty (0 bytes)")


def _parse(data: bytes, name: str, kind: SourceKind) -> ParsedDocument:
    _check_size(name, len(data))
    base = {
        "name": name,
        "kind": kind,
        "sha256": hashlib.sha256(data).hexdigest(),
        "size_bytes": len(data),
    }
    stem = PurePosixPath(name).stem or name
    if kind is SourceKind.CSV:
        columns, rows = _read_table(_decode(data, name), name)
        return ParsedDocument(**base, title=stem, columns=columns, key_column=columns[0], rows=rows)
    if kind is SourceKind.PDF:
        pages = _read_pdf(data, name)
    else:
        pages = _paginate(_decode(data, name), name)
    title = _title(pages, markdown=kind is SourceKind.MARKDOWN) or stem
    return ParsedDocument(**base, title=title, pages=pages, passages=passages_of(pages))


def _decode(data: bytes, name: str) -> str:
    """Decode strict UTF-8 (BOM allowed): a mis-decoded byte would shift no address
    but would silently corrupt the quoted evidence text."""
    if b"\x00" in data:
        raise CorpusImportError(name, "looks binary (contains NUL bytes), not text")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise CorpusImportError(
            name,
            f"is not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start}); re-save it as UTF-8",
        ) from exc
    if not text.strip():
        raise CorpusImportError(name, "is empty (only whitespace)")
    return text


def split_lines(text: str) -> list[str]:
    """Physical lines without terminators (CRLF, LF or CR); a final terminator does
    not start an extra line, but blank lines in between all count."""
    lines = _LINE_BREAK.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


@dataclass
class _Segment:
    number: int | None
    origin: str  # "start", "marker" or "formfeed"
    lines: list[str] = field(default_factory=list)

    @property
    def blank(self) -> bool:
        return not any(line.strip() for line in self.lines)


def _paginate(text: str, name: str) -> list[PageText]:
    """Split text into pages at marker lines and form feeds.

    Markers give explicit numbers; unnumbered pages (text before the first marker,
    pages after a form feed) count up from the previous page. A blank lead-in, a
    blank tail after a final form feed, and the empty gap of a form feed directly
    followed by a marker are not pages (pdftotext and hand-made files produce them).
    """
    segments = [_Segment(None, "start")]
    for index, chunk in enumerate(text.split("\f")):
        if index:
            segments.append(_Segment(None, "formfeed"))
        for line in split_lines(chunk):
            match = _MARKER.match(line)
            if match:
                segments.append(_Segment(_page_number(match.group(1), line, name), "marker"))
            else:
                segments[-1].lines.append(line)

    kept: list[_Segment] = []
    for i, seg in enumerate(segments):
        if seg.origin != "marker" and seg.blank:
            is_last = i == len(segments) - 1
            before_marker = not is_last and segments[i + 1].origin == "marker"
            if seg.origin == "start" or is_last or before_marker:
                continue
        kept.append(seg)

    pages: list[PageText] = []
    seen: set[int] = set()
    previous = 0
    for seg in kept:
        number = seg.number if seg.number is not None else previous + 1
        if number in seen:
            raise CorpusImportError(
                name,
                f"page {number} occurs twice (check the page markers; text before the first marker counts as page 1)",
            )
        seen.add(number)
        pages.append(PageText(number=number, lines=tuple(seg.lines)))
        previous = number
    return pages


def _page_number(digits: str, line: str, name: str) -> int:
    # Compare the digits before int(): a number thousands of digits long is refused
    # by int() itself, and anything over the limit would overflow the store.
    stripped = digits.lstrip("0") or "0"
    if len(stripped) > len(str(MAX_PAGE_NUMBER)) or int(stripped) > MAX_PAGE_NUMBER:
        shown = line.strip() if len(line.strip()) <= 60 else line.strip()[:57] + "..."
        raise CorpusImportError(name, f"the page marker '{shown}' names a page over {MAX_PAGE_NUMBER:,}")
    return int(stripped)


def _read_pdf(data: bytes, name: str) -> list[PageText]:
    """One page per PDF page from pypdf's text layer; scanned PDFs are refused since
    their lines cannot be cited until someone runs OCR on them."""
    with pdf_warnings(name) as warned:  # how pypdf repaired a damaged file: the log, or the error below
        try:
            from pypdf import PdfReader

            reader = PdfReader(io.BytesIO(data))
            if reader.is_encrypted and not reader.decrypt(""):
                raise CorpusImportError(name, "is an encrypted PDF; remove the password")
            texts = [page.extract_text() or "" for page in reader.pages]
        except CorpusImportError:
            raise
        except Exception as exc:  # pypdf raises many exception types on malformed files
            detail = str(exc) or type(exc).__name__
            first = f"; first problem: {warned[0]}" if warned else ""
            raise CorpusImportError(name, f"cannot be opened as a PDF ({detail}{first})") from exc
    if not texts:
        raise CorpusImportError(name, "is a PDF without pages")
    if not any(text.strip() for text in texts):
        raise CorpusImportError(name, "is a PDF with no text layer; OCR it first")
    return [PageText(number=number, lines=tuple(text.splitlines())) for number, text in enumerate(texts, start=1)]


def _read_table(text: str, name: str) -> tuple[list[str], list[TableRow]]:
    """Header plus data rows, keyed by the first column.

    Ragged rows and header-less files are refused: a row key or column name that
    shifted by one cell would make every table locator point at the wrong value.
    """
    # strict: an unterminated quote is an error, not a cell that swallows every row
    # after it (which would import "successfully" with the rows merged into one).
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    header: list[str] | None = None
    rows: list[TableRow] = []
    line_end = 0
    try:
        for record in reader:
            line_start, line_end = line_end + 1, reader.line_num
            if header is None:
                header = _header(record, name, line_start)
                continue
            if not record or (len(record) == 1 and not record[0].strip()):
                continue  # blank line
            if len(record) != len(header):
                raise CorpusImportError(
                    name,
                    f"line {line_start} has {len(record)} fields but the header has {len(header)}",
                )
            cells = dict(zip(header, record, strict=True))
            rows.append(TableRow(index=len(rows) + 1, key=record[0], cells=cells))
    except csv.Error as exc:
        if "unexpected end of data" in str(exc):
            # line_end is where the last whole record ended: the broken one starts next
            reason = f'line {line_end + 1} opens a quoted field (") that is never closed'
            raise CorpusImportError(name, reason) from exc
        raise CorpusImportError(name, f"is not valid CSV at line {reader.line_num} ({exc})") from exc
    if header is None:
        raise CorpusImportError(name, "is empty (no header row)")
    return header, rows


def _header(record: Sequence[str], name: str, line: int) -> list[str]:
    columns = [cell.strip() for cell in record]
    if not any(columns):
        raise CorpusImportError(name, f"has no header row (line {line} is blank; it must name the columns)")
    if _NUMBER.match(columns[0]):
        raise CorpusImportError(
            name,
            f"has no header row (line {line} starts with the value '{columns[0]}', not a column name)",
        )
    for position, column in enumerate(columns, start=1):
        if not column:
            raise CorpusImportError(name, f"header (line {line}) has an empty name for column {position}")
    duplicates = sorted({c for c in columns if columns.count(c) > 1})
    if duplicates:
        raise CorpusImportError(name, f"header (line {line}) repeats column {', '.join(duplicates)}")
    return columns


def passages_of(pages: Iterable[PageText]) -> list[Passage]:
    """Runs of consecutive non-blank lines per page: the unit a reviewer reads and
    the unit search and evidence suggestions point at."""
    passages: list[Passage] = []
    for page in pages:
        start: int | None = None
        for number, line in enumerate((*page.lines, ""), start=1):
            if line.strip():
                if start is None:
                    start = number
            elif start is not None:
                text = "\n".join(page.lines[start - 1 : number - 1])
                passages.append(Passage(page=page.number, line_start=start, line_end=number - 1, text=text))
                start = None
    return passages


def _title(pages: Sequence[PageText], *, markdown: bool) -> str:
    """First non-blank line of the first page, as a human would name the report."""
    if not pages:
        return ""
    for line in pages[0].lines:
        title = line.strip()
        if markdown:
            title = title.lstrip("#").strip()
        if title:
            return title[:200]
    return ""
