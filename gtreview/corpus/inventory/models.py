"""Pydantic read models of the corpus exploration report (``corpus inventory``).

They are plain, JSON-serialisable data so the CLI can print them, the GUI can show
them in table models and the expert can confirm proposed synonyms, without any of
them knowing how the inventory was computed.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class Location(BaseModel):
    """Where something was found: a page/line range of a report, or a table cell.

    ``page_end`` is set only when a span runs onto a later page, so the common
    one-page case stays as short as the locators reviewers already write.
    """

    document: str
    page: int | None = None
    line_start: int | None = None
    line_end: int | None = None
    page_end: int | None = None
    row_key: str | None = None
    column: str | None = None

    def label(self) -> str:
        """A locator-style label (``doc, page=3, lines=4-11``) for reports."""
        if self.row_key is not None:
            column = f", {self.column}" if self.column else ""
            return f"{self.document}, row {self.row_key}{column}"
        if self.page is None:
            return self.document
        if self.page_end is not None and self.page_end != self.page:
            return (
                f"{self.document}, page={self.page} line={self.line_start} to page={self.page_end} line={self.line_end}"
            )
        if self.line_start is None:
            return f"{self.document}, page={self.page}"
        if self.line_end is None or self.line_end == self.line_start:
            return f"{self.document}, page={self.page}, line={self.line_start}"
        return f"{self.document}, page={self.page}, lines={self.line_start}-{self.line_end}"


class DocumentSummary(BaseModel):
    """One document as the families section lists it."""

    name: str
    title: str
    kind: str
    pages: int = 0
    lines: int = 0
    rows: int = 0
    year: int | None = None
    year_source: str = ""
    years_mentioned: tuple[int, int] | None = None
    issuing_bodies: list[str] = Field(default_factory=list)


class SourceFamily(BaseModel):
    """Documents of one folder and kind (reports or tables)."""

    name: str
    folder: str
    kind: Literal["report", "table"]
    formats: list[str]
    documents: list[DocumentSummary]
    pages: int = 0
    lines: int = 0
    rows: int = 0
    year_from: int | None = None
    year_to: int | None = None
    provenance: dict[str, int] = Field(default_factory=dict)
    cited_sources: list[str] = Field(default_factory=list)


class Term(BaseModel):
    """A domain term with its corpus frequency and where it occurs."""

    term: str
    kind: Literal["name", "word"]
    count: int
    score: float
    documents: dict[str, int]


class DocumentTerms(BaseModel):
    """Words that set one document apart from the rest (TF-IDF)."""

    document: str
    terms: list[str]


class Terminology(BaseModel):
    names: list[Term] = Field(default_factory=list)
    words: list[Term] = Field(default_factory=list)
    distinctive: list[DocumentTerms] = Field(default_factory=list)


class DuplicatePassage(BaseModel):
    """Two places with the same (or nearly the same) run of words."""

    kind: Literal["exact", "near"]
    similarity: float
    words: int
    first: Location
    second: Location
    first_text: str
    second_text: str


class VariantForm(BaseModel):
    form: str
    count: int
    documents: dict[str, int]
    first: Location


class VariantCluster(BaseModel):
    """A proposed synonym-table entry; the expert sets ``confirmed`` after checking."""

    canonical: str
    kind: Literal["spelling", "phonetic", "naming"]
    method: str
    forms: list[VariantForm]
    confirmed: bool = False


class QuantityValue(BaseModel):
    """One quantity mention in a conflict, normalised to the kind's base unit."""

    value: float
    low: float
    high: float | None
    unit: str
    text: str
    location: Location
    line_text: str
    context: str = ""


class NumericConflict(BaseModel):
    """Mentions of the same quantity in different documents whose values disagree."""

    subject: str
    measure: str
    unit: str
    confidence: float
    spread: float
    values: list[QuantityValue]
    evidence: list[str] = Field(default_factory=list)


class ThinArea(BaseModel):
    """A named subject with too little text to be questioned fairly."""

    name: str
    documents: list[str]
    lines: int
    first: Location
    reason: str


class CorpusInventory(BaseModel):
    """Everything ``corpus inventory`` reports, ready for Markdown or JSON."""

    documents: int
    families: list[SourceFamily] = Field(default_factory=list)
    terminology: Terminology = Field(default_factory=Terminology)
    duplicates: list[DuplicatePassage] = Field(default_factory=list)
    variants: list[VariantCluster] = Field(default_factory=list)
    conflicts: list[NumericConflict] = Field(default_factory=list)
    thin_areas: list[ThinArea] = Field(default_factory=list)
    methods: dict[str, str] = Field(default_factory=dict)
    timings_s: dict[str, float] = Field(default_factory=dict)
