"""Terminology and thin areas: what the corpus talks about, and what it barely covers.

Terminology has two lists. *Names* are the capitalised runs of
:mod:`inventory_names` (people left out). *Domain words* are lower-case words of
four letters or more that are neither function words nor among the commonest
general-English words, with a plural folded into its singular when both occur.
Both lists rank by ``count x log(1 + documents)``: a term used often *and* across
several sources is what the corpus is about. Per document, TF-IDF
(``tf x log(N / df)``) picks the words that set that document apart.

A *thin area* is a named subject (a name with a head word such as Reef, Shaft,
Creek, Company or Slide, variants merged) that occurs in only one document or on
fewer than ``THIN_LINES`` lines: too little text to ask a fair question about.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict

from gtreview.corpus.inventory.lexicon import (
    COMMON_WORDS,
    HEAD_CLASSES,
    INSTITUTION_WORDS,
    LEFT_HEADS,
    MONTHS,
    STOPWORDS,
    SUBJECT_CLASSES,
    UNIT_WORDS,
    orth_key,
)
from gtreview.corpus.inventory.models import DocumentTerms, Location, Term, Terminology, ThinArea
from gtreview.corpus.inventory.names import NameIndex, NameOccurrence, subject_class
from gtreview.corpus.inventory.text import WORD, CorpusText

TOP_TERMS = 40
DISTINCTIVE_TERMS = 8
THIN_LINES = 3
MAX_THIN = 60


def _domain_words(corpus: CorpusText) -> dict[str, Counter[str]]:
    per_document: dict[str, Counter[str]] = {}
    for name, blocks in corpus.blocks.items():
        counts: Counter[str] = Counter()
        for block in blocks:
            for word in WORD.findall(block.text):
                if not word[0].islower():
                    continue
                folded = word.casefold().replace("\u2019", "'").removesuffix("'s")
                if len(folded) < 4 or "'" in folded:
                    continue
                if folded in STOPWORDS or folded in COMMON_WORDS or folded in UNIT_WORDS:
                    continue
                counts[folded] += 1
        per_document[name] = counts
    vocabulary: Counter[str] = Counter()
    for counts in per_document.values():
        vocabulary.update(counts)
    plural = {w: w[:-1] for w in vocabulary if w.endswith("s") and not w.endswith("ss") and w[:-1] in vocabulary}
    merged: dict[str, Counter[str]] = {}
    for name, counts in per_document.items():
        merged[name] = Counter()
        for word, n in counts.items():
            merged[name][plural.get(word, word)] += n
    return merged


def _rank(per_document: dict[str, Counter[str]], kind: str, minimum_documents: int) -> list[Term]:
    totals: Counter[str] = Counter()
    documents: dict[str, dict[str, int]] = defaultdict(dict)
    for name, counts in per_document.items():
        for term, n in counts.items():
            totals[term] += n
            documents[term][name] = n
    terms = [
        Term(
            term=term,
            kind="name" if kind == "name" else "word",
            count=count,
            score=round(count * math.log(1 + len(documents[term])), 2),
            documents=dict(sorted(documents[term].items())),
        )
        for term, count in totals.items()
        if len(documents[term]) >= minimum_documents and count >= 2
    ]
    terms.sort(key=lambda t: (-t.score, t.term))
    return terms[:TOP_TERMS]


def terminology(corpus: CorpusText, index: NameIndex) -> Terminology:
    """Names and domain words ranked by frequency and spread, and per-document TF-IDF."""
    words = _domain_words(corpus)
    names: dict[str, Counter[str]] = defaultdict(Counter)
    for o in index.occurrences:
        if index.is_person(o.form):
            continue
        folded = o.form.casefold()
        if " " not in o.form and (
            folded in HEAD_CLASSES or folded in LEFT_HEADS or folded in MONTHS or folded in INSTITUTION_WORDS
        ):
            continue
        names[o.document][o.form] += 1
    spread = 2 if len(words) > 1 else 1
    distinctive: list[DocumentTerms] = []
    document_count = len(words)
    df: Counter[str] = Counter(w for counts in words.values() for w in counts)
    for name, counts in words.items():
        total = sum(counts.values()) or 1
        scored = [
            (n / total * math.log(document_count / df[w]), w)
            for w, n in counts.items()
            if n >= 2 and df[w] < document_count
        ]
        scored.sort(key=lambda item: (-item[0], item[1]))
        distinctive.append(DocumentTerms(document=name, terms=[w for _, w in scored[:DISTINCTIVE_TERMS]]))
    return Terminology(
        names=_rank(names, "name", 1),
        words=_rank(words, "word", spread),
        distinctive=distinctive,
    )


def _line_key(o: NameOccurrence) -> tuple[str, object, object]:
    return (o.document, o.page if o.row_key is None else o.row_key, o.line if o.row_key is None else o.column)


def thin_areas(index: NameIndex, canonical: dict[str, str]) -> list[ThinArea]:
    """Named subjects with one document or fewer than THIN_LINES lines, thinnest first."""
    groups: dict[str, list[NameOccurrence]] = defaultdict(list)
    forms: dict[str, Counter[str]] = defaultdict(Counter)
    for o in index.occurrences:
        if index.is_person(o.form) or index.is_institution(o.form):
            continue
        name = canonical.get(o.form, o.form)
        if subject_class(name) not in SUBJECT_CLASSES:
            continue
        key = orth_key(name)
        groups[key].append(o)
        forms[key][name] += 1
    areas: list[ThinArea] = []
    for key, occurrences in groups.items():
        documents = sorted({o.document for o in occurrences})
        lines = len({_line_key(o) for o in occurrences})
        if len(documents) > 1 and lines >= THIN_LINES:
            continue
        first = occurrences[0]
        location = (
            Location(document=first.document, row_key=first.row_key, column=first.column)
            if first.row_key is not None
            else Location(document=first.document, page=first.page, line_start=first.line, line_end=first.line)
        )
        reasons = []
        if len(documents) == 1:
            reasons.append("named in one document only")
        if lines < THIN_LINES:
            reasons.append(f"on {lines} line{'s' if lines != 1 else ''} in the whole corpus")
        areas.append(
            ThinArea(
                name=re.sub(r"['\u2019]s$", "", forms[key].most_common(1)[0][0]),
                documents=documents,
                lines=lines,
                first=location,
                reason="; ".join(reasons),
            )
        )
    areas.sort(key=lambda a: (a.lines, len(a.documents), a.name))
    return areas[:MAX_THIN]
