"""Builds the corpus inventory from parsed documents: its sources, then each finder in turn."""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Callable
from pathlib import PurePosixPath
from typing import TypeVar

from gtreview.core.corpus import ParsedDocument
from gtreview.corpus.inventory.conflicts import find_conflicts
from gtreview.corpus.inventory.duplicates import find_duplicates
from gtreview.corpus.inventory.markdown import inventory_to_markdown
from gtreview.corpus.inventory.models import (
    CorpusInventory,
    DocumentSummary,
    DocumentTerms,
    DuplicatePassage,
    Location,
    NumericConflict,
    QuantityValue,
    SourceFamily,
    Term,
    Terminology,
    ThinArea,
    VariantCluster,
    VariantForm,
)
from gtreview.corpus.inventory.names import EntityResolver, extract_names
from gtreview.corpus.inventory.terms import terminology, thin_areas
from gtreview.corpus.inventory.text import prepare
from gtreview.corpus.inventory.variants import find_variants

__all__ = [
    "CorpusInventory",
    "DocumentSummary",
    "DocumentTerms",
    "DuplicatePassage",
    "Location",
    "NumericConflict",
    "QuantityValue",
    "SourceFamily",
    "Term",
    "Terminology",
    "ThinArea",
    "VariantCluster",
    "VariantForm",
    "build_inventory",
    "document_summary",
    "inventory_to_markdown",
    "source_families",
]

_YEAR = re.compile(r"(?<![\d,.])(1[5-9]\d\d|20\d\d)(?!\d|,\d)")
_OCR_YEAR = re.compile(r"(?<![\w,.])[lI]([5-9]\d\d)(?![\d,])")
HEADER_LINES = 12
SIGNATURE_LINES = 12
_ISSUERS: list[tuple[str, re.Pattern[str]]] = [
    (label, re.compile(pattern, re.IGNORECASE))
    for label, pattern in [
        ("Geological Survey", r"geological\s+survey|government\s+geologist"),
        ("Warden", r"\bwarden\b"),
        ("Inspector of Mines", r"inspector\s+of\s+mines"),
        ("Mines Department", r"department\s+of\s+mines|mines\s+department|metallurgist\s+to\s+the\s+department"),
        ("Mining Surveyor", r"mining\s+surveyor"),
        ("State Laboratory", r"state\s+laboratory"),
        ("School of Mines", r"school\s+of\s+mines"),
    ]
]
"""Issuing bodies looked for in a report's header and signature block. A heuristic:
a body named there may be the addressee or a cited authority, not the issuer."""
_ADDRESSEE = re.compile(r"^\s*(?:to\s+the|the\s+hono(?:u)?rable|sir\b)", re.IGNORECASE)
_SOURCE_COLUMNS = re.compile(r"^(?:source|sources|reference|references|ref|citation)$", re.IGNORECASE)
_YEAR_COLUMNS = re.compile(r"year|date", re.IGNORECASE)

METHODS = {
    "families": "Documents grouped by folder and kind. Year: from the file name, else the title, else the latest "
    "year in the first lines of the first page (tables: YEAR/DATE columns). Issuing bodies: a fixed list of "
    "names searched in the header and signature block; heuristic, and an addressee line is skipped.",
    "terminology": "Capitalised word runs (sentence starts checked against lower-case use; people dropped) and "
    "lower-case words outside stopword and common-English lists; ranked by count x log(1 + documents). "
    "Per document: TF-IDF.",
    "duplicates": "Reports as word streams (case, punctuation and line-end hyphens folded); shared 8-word shingles "
    "grown into maximal runs and chained across gaps of up to 4 words; kept at >= 20 words and >= 80% aligned "
    "words.",
    "variants": "Union of: equal orthographic keys (case, Mac/Mc/M', apostrophes, plurals, word division); equal "
    "head words with the same consonant skeleton (Soundex-like, untruncated) and edit similarity >= 0.6, or "
    "edit similarity >= 0.85; same specific name with formation or marker-bed head words. Canonical: most "
    "documents, then most frequent spelling.",
    "conflicts": "Quantities with units normalised (ft; oz with 20 dwt and 480 gr; oz/ton; tons; %), linked "
    "across documents by a shared single-valued attribute (water level, nugget weight, elevation) and subject, "
    "or by >= 2 shared anchors (quantities, years, No. N, codes) with compatible subjects; conflict when "
    "values differ by > 5% (10% if approximate).",
    "thin_areas": "Named subjects (names with a head word such as Reef, Shaft, Creek, Company; variants merged) "
    "in one document only or on fewer than 3 lines.",
}

_T = TypeVar("_T")


def _years(text: str, *, ocr: bool = False) -> list[int]:
    years = [int(y) for y in _YEAR.findall(text)]
    if ocr:
        years += [int("1" + y) for y in _OCR_YEAR.findall(text)]
    return years


def document_summary(document: ParsedDocument) -> DocumentSummary:
    """Extent, year and issuing bodies of one document."""
    name = PurePosixPath(document.name)
    summary = DocumentSummary(
        name=document.name,
        title=document.title,
        kind="table" if document.is_table else "report",
        pages=len(document.pages),
        lines=sum(len(page.lines) for page in document.pages),
        rows=len(document.rows),
    )
    if document.is_table:
        years = [
            y
            for row in document.rows
            for column, value in row.cells.items()
            if _YEAR_COLUMNS.search(column)
            for y in _years(value)
        ]
        summary.years_mentioned = (min(years), max(years)) if years else None
        return summary
    header = [line for line in (document.pages[0].lines if document.pages else ()) if line.strip()][:HEADER_LINES]
    for source, years in (
        ("file name", _years(name.stem)),
        ("title", _years(document.title, ocr=True)),
        ("first page", _years("\n".join(header), ocr=True)),
    ):
        if years:
            summary.year, summary.year_source = (years[0] if source != "first page" else max(years)), source
            break
    mentioned = [y for page in document.pages for line in page.lines for y in _years(line)]
    summary.years_mentioned = (min(mentioned), max(mentioned)) if mentioned else None
    signature = [line for line in (document.pages[-1].lines if document.pages else ()) if line.strip()]
    places = [*header, *(line for line in signature[-SIGNATURE_LINES:] if len(line.strip()) <= 60)]
    found: list[str] = []
    for line in places:
        if _ADDRESSEE.match(line):
            continue
        found.extend(label for label, pattern in _ISSUERS if pattern.search(line) and label not in found)
    summary.issuing_bodies = found
    return summary


def source_families(documents: list[ParsedDocument]) -> list[SourceFamily]:
    """Documents grouped by folder and kind (report or table)."""
    grouped: dict[tuple[str, str], list[ParsedDocument]] = {}
    for document in sorted(documents, key=lambda d: d.name):
        folder = str(PurePosixPath(document.name).parent)
        grouped.setdefault((folder, "table" if document.is_table else "report"), []).append(document)
    families: list[SourceFamily] = []
    for (folder, kind), members in sorted(grouped.items()):
        summaries = [document_summary(d) for d in members]
        years = [s.year for s in summaries if s.year] + [
            y for s in summaries if s.year is None and s.years_mentioned for y in s.years_mentioned
        ]
        provenance: Counter[str] = Counter(body for s in summaries for body in s.issuing_bodies)
        cited: Counter[str] = Counter(
            part.strip()
            for d in members
            for row in d.rows
            for column, value in row.cells.items()
            if _SOURCE_COLUMNS.match(column)
            for part in value.split(";")
            if part.strip()
        )
        families.append(
            SourceFamily(
                name=f"{folder if folder != '.' else '(top level)'} ({kind}s)",
                folder=folder,
                kind="table" if kind == "table" else "report",
                formats=sorted({d.kind.value for d in members}),
                documents=summaries,
                pages=sum(s.pages for s in summaries),
                lines=sum(s.lines for s in summaries),
                rows=sum(s.rows for s in summaries),
                year_from=min(years) if years else None,
                year_to=max(years) if years else None,
                provenance=dict(provenance.most_common()),
                cited_sources=[value for value, _ in cited.most_common(10)],
            )
        )
    return families


def build_inventory(documents: list[ParsedDocument]) -> CorpusInventory:
    """Run every detector over ``documents``; stage timings go into ``timings_s``."""
    timings: dict[str, float] = {}

    def timed(stage: str, work: Callable[[], _T]) -> _T:
        start = time.perf_counter()
        result = work()
        timings[stage] = round(time.perf_counter() - start, 4)
        return result

    families = timed("families", lambda: source_families(documents))
    years = {s.name: s.year for family in families for s in family.documents}
    corpus = timed("prepare", lambda: prepare(documents))
    index = timed("names", lambda: extract_names(corpus))
    variants, canonical = timed("variants", lambda: find_variants(corpus, index, years))
    resolver = EntityResolver(index, canonical)
    return CorpusInventory(
        documents=len(documents),
        families=families,
        terminology=timed("terminology", lambda: terminology(corpus, index)),
        duplicates=timed("duplicates", lambda: find_duplicates(corpus)),
        variants=variants,
        conflicts=timed("conflicts", lambda: find_conflicts(corpus, index, resolver, years)),
        thin_areas=timed("thin_areas", lambda: thin_areas(index, canonical)),
        methods=dict(METHODS),
        timings_s={**timings, "total": round(sum(timings.values()), 4)},
    )
