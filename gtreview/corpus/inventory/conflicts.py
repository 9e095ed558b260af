"""Numeric conflicts: the same quantity given different values in different documents.

Two mentions (in different documents, same kind of measure and base unit) are
linked as "about the same thing" when

* they share a single-valued attribute (a shaft's water level, a nugget's weight,
  a hill's elevation) and their subjects agree: the places and features named in
  the sentence, else in the passage or its section heading, else the document's
  main subject; or
* for everything else (yields, depths, tonnages, percentages), they share at least
  two specific anchors (other quantities, years, ``No. 4``, sample codes, levels),
  at least one of them in the clause of the number on both sides, and their
  subjects do not contradict each other.

A pair is skipped when one value is explained by another number in the other's
sentence (``cut at 62 feet, when for 20 feet on either side``). Linked mentions
form groups; a group is a conflict when two linked values from different documents
differ by more than 5% (10% when either is qualified "about"/"nearly"), with
ranges and "over"/"under" compared as intervals. Confidence combines subject
agreement, shared anchors and shared wording, and orders the report.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import combinations

from gtreview.corpus.inventory.models import Location, NumericConflict, QuantityValue
from gtreview.corpus.inventory.names import EntityResolver, NameIndex
from gtreview.corpus.inventory.quantities import SINGLE_VALUED, Mention, extract_mentions
from gtreview.corpus.inventory.text import CorpusText

MIN_LINK_CONFIDENCE = 0.4
MAX_ANCHOR_POSTINGS = 60
_SINGLE = {name for name, *_cues in SINGLE_VALUED}
NEARBY_SENTENCES = (2, 1)
"""Sentences before and after a mention whose names are its passage context."""
_UNIT_LABEL = {"length": "ft", "gold": "oz", "tonnage": "tons", "loads": "loads", "weight": "lb", "angle": "deg"}


@dataclass
class _Subject:
    sentence: set[str]
    context: set[str]
    topic: set[str]


@dataclass
class _Link:
    a: int
    b: int
    confidence: float
    conflict: bool
    evidence: list[str]
    entity: str | None


def find_conflicts(
    corpus: CorpusText, index: NameIndex, resolver: EntityResolver, years: dict[str, int | None]
) -> list[NumericConflict]:
    """Conflict groups, most confident first."""
    mentions = [m for blocks in corpus.blocks.values() for m in extract_mentions(blocks) if not m.relative]
    subjects = _subjects(corpus, index, resolver, mentions)
    idf = _idf(mentions)
    links: list[_Link] = []
    groups: dict[tuple[str, str, str], list[int]] = defaultdict(list)
    for i, m in enumerate(mentions):
        groups[(m.measure, m.unit, m.attribute)].append(i)
    for (_measure, _unit, attribute), members in groups.items():
        for a, b in _candidates(mentions, subjects, members, attribute in _SINGLE):
            link = _link(mentions, subjects, a, b, idf, attribute in _SINGLE)
            if link is not None:
                links.append(link)
    return _report(corpus, resolver, mentions, links, years)


def _subjects(
    corpus: CorpusText, index: NameIndex, resolver: EntityResolver, mentions: list[Mention]
) -> list[_Subject]:
    by_sentence: dict[tuple[str, int | None, int | None], set[str]] = defaultdict(set)
    per_document: dict[str, Counter[str]] = defaultdict(Counter)
    for o in index.occurrences:
        key = resolver.key(o.form)
        if key is None or o.block is None:
            continue
        by_sentence[(o.document, o.block, o.sentence)].add(key)
        per_document[o.document][key] += 1
    topics: dict[str, set[str]] = {}
    for document, counts in per_document.items():
        top = counts.most_common(1)[0][1]
        topics[document] = {key for key, n in counts.items() if n * 2 >= top}
    headings: dict[str, set[str]] = {}
    subjects: list[_Subject] = []
    for m in mentions:
        sentence = by_sentence.get((m.document, m.block.index, m.sentence), set())
        if m.block.heading not in headings:
            headings[m.block.heading] = resolver.keys_in(m.block.heading)
        heading = headings[m.block.heading]
        context = set(sentence | heading)
        before, after = NEARBY_SENTENCES
        for n in range(m.sentence - before, m.sentence + after + 1):
            context |= by_sentence.get((m.document, m.block.index, n), set())
        subjects.append(_Subject(sentence, context, topics.get(m.document, set())))
    return subjects


def _idf(mentions: list[Mention]) -> dict[str, float]:
    df: Counter[str] = Counter(w for m in mentions for w in m.words)
    return {w: math.log(1 + len(mentions) / n) for w, n in df.items()}


def _candidates(
    mentions: list[Mention], subjects: list[_Subject], members: list[int], single: bool
) -> Iterable[tuple[int, int]]:
    """Pairs from different documents sharing a subject key (single-valued attributes)
    or an anchor (everything else); inverted indexes keep this near linear."""
    postings: dict[str, list[int]] = defaultdict(list)
    for i in members:
        keys = subjects[i].context | subjects[i].topic if single else mentions[i].anchors
        for key in keys:
            postings[key].append(i)
    seen: set[tuple[int, int]] = set()
    for posting in postings.values():
        if not single and len(posting) > MAX_ANCHOR_POSTINGS:
            continue
        for a, b in combinations(posting, 2):
            if mentions[a].document != mentions[b].document and (a, b) not in seen:
                seen.add((a, b))
                yield a, b


def _entity_relation(x: _Subject, y: _Subject) -> tuple[float, str | None] | None:
    """How surely two mentions have the same subject (1.0 .. 0.5), or None if not."""
    if x.sentence and y.sentence:
        shared = x.sentence & y.sentence
        if shared:
            return 1.0, min(shared)
        shared = (x.sentence & y.context) | (y.sentence & x.context)
        return (0.75, min(shared)) if shared else None
    shared = x.context & y.context
    if shared:
        return 0.75, min(shared)
    left = x.context or x.topic
    right = y.context or y.topic
    shared = left & right
    if shared and (not x.context or not y.context):
        return 0.5, min(shared)
    return None


def _explained_by_sibling(m: Mention, other: Mention) -> bool:
    return any(
        measure == other.measure and _agree(low, high, other.low, other.high, other.tolerance)
        for measure, low, high in m.siblings
    )


def _agree(low1: float, high1: float, low2: float, high2: float, tolerance: float) -> bool:
    gap = max(low1, low2) - min(high1, high2)
    if gap <= 0:
        return True
    scale = max(v for v in (low1, high1, low2, high2) if not math.isinf(v))
    return scale == 0 or gap / scale <= tolerance


def _link(
    mentions: list[Mention], subjects: list[_Subject], a: int, b: int, idf: dict[str, float], single: bool
) -> _Link | None:
    """The link between mentions ``a`` and ``b``, or None when they are not about
    the same quantity (see the module docstring for the rules)."""
    m1, m2, s1, s2 = mentions[a], mentions[b], subjects[a], subjects[b]
    if _explained_by_sibling(m1, m2) or _explained_by_sibling(m2, m1):
        return None
    relation = _entity_relation(s1, s2)
    shared = m1.anchors & m2.anchors
    evidence: list[str] = []
    if single:
        if relation is None:
            return None
        confidence = 0.5 + 0.3 * relation[0] + 0.2 * min(1.0, len(shared) / 2)
        evidence.append(f"same attribute: {m1.attribute}")
    else:
        in_clauses = m1.clause_anchors & m2.clause_anchors
        if len(shared) < 2 or not in_clauses:
            return None
        if relation is None and (s1.context or s1.sentence) and (s2.context or s2.sentence):
            return None
        union = m1.clause_words | m2.clause_words
        common = m1.clause_words & m2.clause_words
        words = sum(idf.get(w, 0.0) for w in common) / (sum(idf.get(w, 0.0) for w in union) or 1.0)
        entity = relation[0] if relation else 0.25
        confidence = 0.25 * entity + 0.45 * min(1.0, len(shared) / 4) + 0.3 * words
    if confidence < MIN_LINK_CONFIDENCE:
        return None
    if relation:
        evidence.append(
            f"same subject ({'sentence' if relation[0] == 1.0 else 'passage' if relation[0] == 0.75 else 'document'})"
        )
    if shared:
        evidence.append("shared: " + ", ".join(anchor_label(a) for a in sorted(shared)))
    tolerance = max(m1.tolerance, m2.tolerance)
    conflict = not _agree(m1.low, m1.high, m2.low, m2.high, tolerance)
    return _Link(a, b, round(confidence, 3), conflict, evidence, relation[1] if relation else None)


def anchor_label(anchor: str) -> str:
    kind, _, value = anchor.partition(":")
    if kind == "no":
        return f"No. {value}"
    if kind in {"year", "code"}:
        return value
    if kind == "percent":
        return f"{value}%"
    if kind == "grade":
        return f"{value} oz/ton"
    return f"{value} {_UNIT_LABEL.get(kind, kind)}"


def _report(
    corpus: CorpusText,
    resolver: EntityResolver,
    mentions: list[Mention],
    links: list[_Link],
    years: dict[str, int | None],
) -> list[NumericConflict]:
    parent = list(range(len(mentions)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for link in links:
        parent[find(link.b)] = find(link.a)
    best: dict[int, _Link] = {}
    for link in links:
        root = find(link.a)
        if link.conflict and (root not in best or link.confidence > best[root].confidence):
            best[root] = link
    members: dict[int, list[int]] = defaultdict(list)
    for i in range(len(mentions)):
        if find(i) in best:
            members[find(i)].append(i)
    conflicts: list[NumericConflict] = []
    for root, group in members.items():
        link = best[root]
        first = mentions[link.a]
        group.sort(key=lambda i: (years.get(mentions[i].document) or 0, mentions[i].document, mentions[i].line))
        values = [_value(corpus, mentions[i]) for i in group]
        points = [v.value for v in values]
        subject = resolver.display.get(link.entity, "") if link.entity else ""
        what = first.attribute or first.measure
        conflicts.append(
            NumericConflict(
                subject=f"{subject}: {what}" if subject else what,
                measure=first.measure,
                unit=first.unit,
                confidence=link.confidence,
                spread=round((max(points) - min(points)) / max(max(points), 1e-9), 3),
                values=values,
                evidence=link.evidence,
            )
        )
    conflicts.sort(key=lambda c: (-c.confidence, -c.spread, c.subject))
    return conflicts


def _value(corpus: CorpusText, m: Mention) -> QuantityValue:
    start, end = m.block.sentences[m.sentence]
    sentence = " ".join(m.block.raw[start:end].split())
    return QuantityValue(
        value=round(m.value, 4),
        low=round(m.low, 4),
        high=None if math.isinf(m.high) else round(m.high, 4),
        unit=m.unit,
        text=" ".join(m.text.split()),
        location=Location(document=m.document, page=m.block.page, line_start=m.line, line_end=m.line),
        line_text=corpus.line_text(m.document, m.block.page, m.line),
        context=sentence if len(sentence) <= 300 else sentence[:297] + "...",
    )
