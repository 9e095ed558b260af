"""Qt-free, I/O-free models of an imported corpus and of evidence locators.

A corpus document is either paged text (reports: addressed by book, page and line)
or a table (CSV: addressed by row key and column). These models are what the
corpus importer produces, what the store persists and what locator resolution
returns, so the three stay decoupled.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field


class SourceKind(StrEnum):
    TEXT = "text"
    MARKDOWN = "markdown"
    CSV = "csv"
    PDF = "pdf"


class PageText(BaseModel):
    """One page of a text document; ``lines[0]`` is line 1 of the page."""

    model_config = ConfigDict(frozen=True)

    number: int
    lines: tuple[str, ...]


class Passage(BaseModel):
    """A paragraph of paged text (a run of non-blank lines on one page)."""

    model_config = ConfigDict(frozen=True)

    page: int
    line_start: int
    line_end: int
    text: str


class TableRow(BaseModel):
    """One data row of a table; ``index`` is 1-based over data rows (header excluded)."""

    model_config = ConfigDict(frozen=True)

    index: int
    key: str
    cells: dict[str, str]


class ParsedDocument(BaseModel):
    """A parsed corpus file, ready to persist.

    ``name`` is the path relative to the import root with forward slashes; evidence
    ``source`` fields are matched against it.
    """

    name: str
    title: str
    kind: SourceKind
    sha256: str
    size_bytes: int
    pages: list[PageText] = Field(default_factory=list)
    passages: list[Passage] = Field(default_factory=list)
    columns: list[str] = Field(default_factory=list)
    key_column: str | None = None
    rows: list[TableRow] = Field(default_factory=list)

    @property
    def is_table(self) -> bool:
        return self.kind is SourceKind.CSV


class LocatorStatus(StrEnum):
    RESOLVED = "resolved"
    UNRESOLVED = "unresolved"


class TextSpan(BaseModel):
    """Resolved lines of one page of a text document."""

    model_config = ConfigDict(frozen=True)

    document: str
    page: int
    line_start: int
    line_end: int
    text: str


class CellRef(BaseModel):
    """Resolved cells of one table row."""

    model_config = ConfigDict(frozen=True)

    document: str
    row_index: int
    row_key: str
    columns: tuple[str, ...]
    values: tuple[str, ...]


class LocatorResolution(BaseModel):
    """Outcome of resolving one evidence item's (source, locator) against a corpus.

    Unresolved locators carry a plain-sentence ``reason``; nothing is guessed.
    """

    source: str
    locator: str
    status: LocatorStatus
    document: str | None = None
    spans: list[TextSpan] = Field(default_factory=list)
    cells: list[CellRef] = Field(default_factory=list)
    reason: str = ""

    @property
    def resolved(self) -> bool:
        return self.status is LocatorStatus.RESOLVED
