"""Quantity mentions in report text: value, unit, kind and the words around them.

A mention is a number with a unit (``212 feet``, ``143 0z. 8 dwt.``, ``1 oz. 4 dwt.
per ton``, ``from 3 to 6 per cent.``). Values are normalised to one base unit per
kind (feet; troy ounces, with 20 dwt = 1 oz and 24 gr = 1 dwt; oz per ton; tons;
lb; per cent; gallons per hour; degrees), ranges keep both ends and qualifiers
(``about``, ``over``, ``barely``) widen the value, so the conflict detector compares
like with like. Lines laid out as tables (dotted leaders, column gaps) are skipped:
their numbers have no sentence to give them a subject.

Each mention also carries its *context*: content words and "anchors" (other
quantities, years, ``No. 4``, sample codes, ``420-ft.`` levels) of its clause and
sentence, which is what tells "the 620-ton crushing of 1890-91 on the No. 4 level"
apart from every other yield of the same mine.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from dataclasses import dataclass, field
from itertools import pairwise

from gtreview.corpus.inventory.lexicon import COMMON_WORDS, MONTHS, STOPWORDS, UNIT_WORDS, singular
from gtreview.corpus.inventory.text import WORD, Block

_NUM = r"(?:\d+/\d+(?!\d)|(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:\s+\d+/\d+)?|\.\d+)"
_UNITS: list[tuple[str, str, str, float]] = [
    # (regex, kind, base unit, factor to the base unit)
    (r"feet|foot|ft\b\.?", "length", "ft", 1.0),
    (r"inch(?:es)?|in\.(?![A-Za-z])", "length", "ft", 1 / 12),
    (r"yards?|yds?\b\.?", "length", "ft", 3.0),
    (r"fathoms?", "length", "ft", 6.0),
    (r"miles?", "length", "ft", 5280.0),
    (r"chains?", "length", "ft", 66.0),
    (r"ounces?|oz\b\.?|0z\b\.?", "gold", "oz", 1.0),
    (r"dwt\b\.?|pennyweights?", "gold", "oz", 1 / 20),
    (r"grains?|grs?\b\.?", "gold", "oz", 1 / 480),
    (r"tonnes?|tons?\b", "tonnage", "tons", 1.0),
    (r"loads?\b", "loads", "loads", 1.0),
    (r"lbs?\b\.?|pounds?\s+weight", "weight", "lb", 1.0),
    (r"cwt\b\.?", "weight", "lb", 112.0),
    (r"per\s+cent\b\.?|percent|%", "percent", "%", 1.0),
    (r"gallons?(?=\s+(?:per|an|a)\s+hour)", "flow", "gal/h", 1.0),
    (r"degrees?|deg\b\.?", "angle", "deg", 1.0),
]
_UNIT_GROUP = "|".join(f"(?P<u{i}>{pattern})" for i, (pattern, *_rest) in enumerate(_UNITS))
_MEASURE = re.compile(rf"(?<![\w.,/])(?<!\D-)(?P<num>{_NUM})\s*(?:{_UNIT_GROUP})", re.IGNORECASE)
_HYPHEN_MEASURE = re.compile(rf"(?<![\w.,/-])(?P<num>\d+)-(?:{_UNIT_GROUP})", re.IGNORECASE)
_PER = re.compile(
    r"\s*\)?\s*(?:\([^)]{0,30}\)\s*)?(?:of\s+(?:fine\s+)?gold\s+)?"
    r"(?:per|to\s+the|to\s+a|a|the|on\s+every|/)\s*(?P<per>ton|load|tub)s?\b",
    re.IGNORECASE,
)
_PER_HOUR = re.compile(r"\s*(?:per|an|a)\s+hour\b", re.IGNORECASE)
_RANGE_LOW = re.compile(rf"(?:from\s+|between\s+)?(?P<low>{_NUM})\s*(?:to|or|-|–)\s*(?:as\s+much\s+as\s+)?$")
_JOIN = re.compile(r"^\s*(?:to|or|-|–)\s*(?:as\s+much\s+as\s+)?$")
_QUALIFIER = re.compile(
    r"\b(?P<q>about|nearly|some|approximately|close\s+to|almost|roughly|upwards\s+of|over|more\s+than|"
    r"at\s+least|(?:not|no)\s+less\s+than|exceeding|exceeds|less\s+than|under|barely|(?:not|no)\s+more\s+than|"
    r"up\s+to)\s*$",
    re.IGNORECASE,
)
_RELATIVE = re.compile(
    r"\s*(?:\([^)]*\)\s*)?(?P<dir>below|above|beneath|under|deeper\s+than|short\s+of)\s+(?:the\s+)?(?P<ref>\w+)",
    re.IGNORECASE,
)
_ABSOLUTE_REFERENCES = frozenset({"surface", "collar", "sea", "ground", "grass"})
_YEAR = re.compile(r"(?<![\d,.\w])(?P<year>1[6-9]\d\d)(?:\s*[-–]\s*(?P<to>\d{1,2}))?(?!\d|,\d)")
_CITATION_OPEN = re.compile(r"[A-Z][a-z]+\s*\(\s*$")
_CITATION_COMMA = re.compile(r"[A-Z][a-z]+,?\s*$")
_NUMBER_ID = re.compile(r"\bNos?\.\s*(?P<n>\d+)(?P<more>(?:\s*(?:,|and|to|&)\s*\d+)*)", re.IGNORECASE)
_CODE = re.compile(r"\b(?P<code>[A-Z]{1,2}\d{1,3})\b")
_CLAUSE_SPLIT = re.compile(r";|:|,\s+(?:and|but|while|whereas|so\s+that)\s+")
_GOLD_ORDER = {1.0: 0, 1 / 20: 1, 1 / 480: 2}
_APPROXIMATE = {"about", "nearly", "some", "approximately", "close to", "almost", "roughly"}
_AT_LEAST = {"over", "more than", "upwards of", "at least", "not less than", "no less than", "exceeding", "exceeds"}
_AT_MOST = {"less than", "under", "barely", "not more than", "no more than", "up to"}

SINGLE_VALUED: list[tuple[str, str, re.Pattern[str], re.Pattern[str] | None]] = [
    # (attribute, measure, cue before the number, cue just after it)
    (
        "water level",
        "length",
        re.compile(r"(?<!below )(?<!above )(?<!under )(?<!beneath )\bwater\b", re.IGNORECASE),
        None,
    ),
    ("nugget weight", "gold", re.compile(r"\bnuggets?\b", re.IGNORECASE), None),
    (
        "elevation",
        "length",
        re.compile(r"\brises?\s+to\b|\belevation\b|\baltitude\b", re.IGNORECASE),
        re.compile(r"\s*above\s+(?:the\s+)?sea\b", re.IGNORECASE),
    ),
]
"""Attributes a subject has one value of (a shaft's water level, a nugget's weight):
two mentions sharing the attribute and the subject are about the same quantity even
when nothing else in their sentences matches. The cue must sit close before the
number (``CUE_WINDOW`` characters, same clause, no other quantity in between) or
right after it, so a long sentence that mentions water somewhere does not make all
its depths water levels. Other quantities (yields, depths, tonnages) need shared
anchors as well."""
CUE_WINDOW = 60

_ASSAY = re.compile(r"\bassay(?:s|ed)?\b|\bsamples?\b|\bhead\b", re.IGNORECASE)


def parse_number(text: str) -> float:
    """``1,020`` -> 1020; ``1 1/4`` -> 1.25; ``.5`` -> 0.5."""
    text = text.replace(",", "").strip()
    whole, _, fraction = text.partition(" ")
    if "/" in whole:
        numerator, denominator = whole.split("/")
        return int(numerator) / int(denominator) if int(denominator) else 0.0
    value = float(whole)
    if fraction and "/" in fraction:
        numerator, denominator = fraction.split("/")
        value += int(numerator) / int(denominator) if int(denominator) else 0.0
    return value


def short_value(value: float) -> str:
    """Anchor-friendly value: 3 significant figures, no trailing zeros."""
    if value == 0 or math.isinf(value):
        return str(value)
    text = f"{value:.{max(0, 2 - math.floor(math.log10(abs(value))))}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


@dataclass
class Mention:
    """One quantity with its normalised value and context."""

    document: str
    block: Block
    sentence: int
    start: int
    end: int
    measure: str
    unit: str
    low: float
    high: float
    tolerance: float
    line: int
    attribute: str = ""
    relative: bool = False
    clause_anchors: set[str] = field(default_factory=set)
    anchors: set[str] = field(default_factory=set)
    clause_words: set[str] = field(default_factory=set)
    words: set[str] = field(default_factory=set)
    siblings: list[tuple[str, float, float]] = field(default_factory=list)
    block_spans: list[tuple[int, int, str]] = field(default_factory=list, repr=False)

    @property
    def value(self) -> float:
        if math.isinf(self.high):
            return self.low
        return (self.low + self.high) / 2

    @property
    def text(self) -> str:
        return self.block.raw[self.start : self.end]

    @property
    def anchor(self) -> str:
        if self.low == self.high or math.isinf(self.high):
            return f"{self.measure}:{short_value(self.low)}"
        return f"{self.measure}:{short_value(self.low)}-{short_value(self.high)}"


@dataclass
class _Raw:
    start: int
    end: int
    measure: str
    unit: str
    factor: float
    value: float


def _unit_of(match: re.Match[str]) -> tuple[str, str, float]:
    for i, (_pattern, measure, unit, factor) in enumerate(_UNITS):
        if match.group(f"u{i}") is not None:
            return measure, unit, factor
    raise AssertionError("no unit group matched")


def _raw_measures(text: str, start: int, end: int) -> list[_Raw]:
    raws: list[_Raw] = []
    for match in _MEASURE.finditer(text, start, end):
        measure, unit, factor = _unit_of(match)
        raws.append(_Raw(match.start(), match.end(), measure, unit, factor, parse_number(match.group("num")) * factor))
    merged: list[_Raw] = []
    for raw in raws:  # 1 oz. 4 dwt. 8 gr. is one quantity
        last = merged[-1] if merged else None
        if (
            last
            and raw.measure == last.measure == "gold"
            and not text[last.end : raw.start].strip()
            and _GOLD_ORDER.get(raw.factor, 0) > _GOLD_ORDER.get(last.factor, 0)
        ):
            last.end, last.value, last.factor = raw.end, last.value + raw.value, raw.factor
            continue
        merged.append(raw)
    return merged


def _finish(raw: _Raw, text: str, sentence_start: int) -> tuple[str, str, float, float, float, int, int]:
    """(measure, unit, low, high, tolerance, start, end) with per-ton, range and qualifier."""
    measure, unit, start, end = raw.measure, raw.unit, raw.start, raw.end
    low = high = raw.value
    if measure == "gold":
        per = _PER.match(text, end)
        if per:
            measure, unit, end = "grade", f"oz/{per.group('per').lower()}", per.end()
    elif measure == "flow":
        per_hour = _PER_HOUR.match(text, end)
        end = per_hour.end() if per_hour else end
    before = text[max(sentence_start, start - 40) : start]
    ranged = _RANGE_LOW.search(before)
    if ranged:
        low = parse_number(ranged.group("low")) * raw.factor
        start = start - (len(before) - ranged.start())
        before = text[max(sentence_start, start - 40) : start]
    qualifier = _QUALIFIER.search(before)
    tolerance = 0.05
    if qualifier:
        word = " ".join(qualifier.group("q").lower().split())
        if word in _APPROXIMATE:
            tolerance = 0.10
        elif word in _AT_LEAST:
            high = math.inf
        elif word in _AT_MOST:
            low = 0.0
    return measure, unit, min(low, high), max(low, high), tolerance, start, end


def _clauses(text: str, start: int, end: int) -> list[tuple[int, int]]:
    bounds = [start]
    bounds.extend(m.start() for m in _CLAUSE_SPLIT.finditer(text, start, end))
    bounds.append(end)
    return [(a, b) for a, b in pairwise(bounds) if b > a]


def content_words(text: str) -> set[str]:
    return {
        singular(w.casefold())
        for w in WORD.findall(text)
        if len(w) >= 3
        and w.casefold() not in STOPWORDS
        and w.casefold() not in COMMON_WORDS
        and w.casefold() not in UNIT_WORDS
    }


def anchor_spans(text: str, start: int, end: int) -> list[tuple[int, int, str]]:
    """Specific anchors of a span with their offsets: quantities, years, numbers,
    codes and ``420-ft.`` levels. Computed once per sentence, then filtered."""
    found: list[tuple[int, int, str]] = []
    for raw in _raw_measures(text, start, end):
        measure, _unit, low, high, _tol, a, b = _finish(raw, text, start)
        value = short_value(low) if low == high or math.isinf(high) else f"{short_value(low)}-{short_value(high)}"
        found.append((a, b, f"{measure}:{value}"))
    for match in _HYPHEN_MEASURE.finditer(text, start, end):
        measure, _unit, factor = _unit_of(match)
        found.append((match.start(), match.end(), f"{measure}:{short_value(int(match.group('num')) * factor)}"))
    for match in _YEAR.finditer(text, start, end):
        if _is_citation(text, match):
            continue
        year = int(match.group("year"))
        found.append((match.start(), match.end(), f"year:{year}"))
        if match.group("to"):
            suffix = match.group("to")
            found.append((match.start(), match.end(), f"year:{int(str(year)[: 4 - len(suffix)] + suffix)}"))
    for match in _NUMBER_ID.finditer(text, start, end):
        found.append((match.start(), match.end(), f"no:{match.group('n')}"))
        found.extend((match.start(), match.end(), f"no:{n}") for n in re.findall(r"\d+", match.group("more")))
    found.extend((m.start(), m.end(), f"code:{m.group('code').upper()}") for m in _CODE.finditer(text, start, end))
    return found


def _select(spans: list[tuple[int, int, str]], start: int, end: int, skip: tuple[int, int]) -> set[str]:
    return {anchor for a, b, anchor in spans if start <= a < end and not (a < skip[1] and b > skip[0])}


def _is_citation(text: str, match: re.Match[str]) -> bool:
    """``Marlowe (1903)`` or ``(Ashby, 1912)``: a reference, not a date of the subject."""
    before = text[max(0, match.start() - 20) : match.start()]
    if _CITATION_OPEN.search(before):
        return True
    word = _CITATION_COMMA.search(before)
    closes = text[match.end() : match.end() + 2].lstrip().startswith(")")
    return bool(word and closes and word.group(0).split(",")[0].strip().casefold() not in MONTHS)


def extract_mentions(blocks: list[Block]) -> list[Mention]:
    """Every quantity mention in running text (not in table-like lines) of one document."""
    mentions: list[Mention] = []
    for block in blocks:
        text = block.text
        for sentence_index, (s_start, s_end) in enumerate(block.sentences):
            clauses = _clauses(text, s_start, s_end)
            sentence_words = content_words(text[s_start:s_end])
            spans = anchor_spans(text, s_start, s_end)
            previous: Mention | None = None
            for raw in _raw_measures(text, s_start, s_end):
                measure, unit, low, high, tolerance, start, end = _finish(raw, text, s_start)
                line = block.line_at(start)
                if block.line_is_tabular(line):
                    continue
                if previous and previous.measure == measure and _JOIN.match(text[previous.end : start]):
                    previous.high, previous.end = max(previous.high, high), end  # 3 dwt. to 12 dwt.
                    continue
                c_start, c_end = next(((a, b) for a, b in clauses if a <= raw.start < b), (s_start, s_end))
                clause = text[c_start:c_end]
                relative = _RELATIVE.match(text, end)
                mention = Mention(
                    document=block.document,
                    block=block,
                    sentence=sentence_index,
                    start=start,
                    end=end,
                    measure=measure,
                    unit=unit,
                    low=low,
                    high=high,
                    tolerance=tolerance,
                    line=line,
                    relative=bool(relative and relative.group("ref").lower() not in _ABSOLUTE_REFERENCES),
                    clause_anchors=_select(spans, c_start, c_end, (start, end)),
                    anchors=_select(spans, s_start, s_end, (start, end)),
                    clause_words=content_words(clause),
                    words=sentence_words,
                )
                mention.block_spans = spans
                mention.attribute = _attribute(mention, text, c_start)
                mentions.append(mention)
                previous = mention
    by_sentence: dict[tuple[int, int], list[Mention]] = defaultdict(list)
    for mention in mentions:
        by_sentence[(mention.block.index, mention.sentence)].append(mention)
    for group in by_sentence.values():
        for mention in group:
            mention.siblings = [(o.measure, o.low, o.high) for o in group if o is not mention]
    return mentions


_NEXT_WORD = re.compile(r"[ \t]*([A-Za-z]+)")


def _attributive(mention: Mention, text: str) -> bool:
    """``a 20-30 ft mixed zone``: the quantity describes the noun after it."""
    following = _NEXT_WORD.match(text, mention.end)
    if not following:
        return False
    word = following.group(1)
    return word.islower() and word not in STOPWORDS and word not in UNIT_WORDS


def _attribute(mention: Mention, text: str, clause_start: int) -> str:
    if mention.measure == "grade":
        return "assay grade" if _ASSAY.search(text[clause_start : mention.end + 40]) else "yield"
    if _attributive(mention, text):
        return ""
    window_start = max(clause_start, mention.start - CUE_WINDOW)
    for _a, _b, anchor in mention.block_spans:
        if window_start <= _a and _b <= mention.start and not anchor.startswith(("year:", "no:", "code:")):
            window_start = _b  # another quantity in between: the cue belongs to it
    before = text[window_start : mention.start]
    for name, measure, cue, after in SINGLE_VALUED:
        if mention.measure != measure:
            continue
        if cue.search(before) or (after is not None and after.match(text, mention.end)):
            return name
    return ""
