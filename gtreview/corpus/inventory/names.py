"""Named entities of the corpus: capitalised word runs, with where each occurs.

A name is a run of capitalised words (``Garibaldi Reef``, ``Mount Corrigan``,
``School of Mines``) inside a sentence. Words in capitals (headings, titles) are
left out because their case says nothing. A sentence's first word is capitalised
anyway, so a run that starts a sentence keeps its first word only if that word is
never written in lower case and is seen capitalised mid-sentence elsewhere.
Runs after a title (``Mr.``, ``Messrs.``), after an initial, or followed by a year
citation (``Marlowe (1903)``) are people, kept out of subjects and variants.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace

from gtreview.corpus.inventory.lexicon import (
    HEAD_CLASSES,
    INSTITUTION_WORDS,
    LEFT_HEADS,
    MONTHS,
    STOPWORDS,
    SUBJECT_CLASSES,
    TITLES,
    fold_token,
    orth_key,
    split_heads,
)
from gtreview.corpus.inventory.text import WORD, CorpusText

_EDGE_WORDS = STOPWORDS | TITLES | MONTHS | {"no", "nos", "of"}
_PERSON_BEFORE = re.compile(r"(?:\b(?:" + "|".join(sorted(TITLES)) + r")\.?|\b[A-Z]\.)\s*$", re.IGNORECASE)
_CITATION_AFTER = re.compile(r"^\s*(?:\(\s*1[6-9]\d\d|,\s*1[6-9]\d\d\s*\)|1[6-9]\d\d\b)")
_NUMERIC_CELL = re.compile(r"^[\s\d.,%/+-]*$")


@dataclass(frozen=True)
class NameOccurrence:
    """One use of a name; text names carry page/line, table names row key/column."""

    form: str
    document: str
    page: int | None
    line: int | None
    row_key: str | None = None
    column: str | None = None
    block: int | None = None
    sentence: int | None = None
    start: int = 0
    end: int = 0
    initial: bool = False
    person: bool = False


@dataclass
class NameIndex:
    """All name occurrences plus what is known about each form."""

    occurrences: list[NameOccurrence]
    persons: set[str] = field(default_factory=set)
    by_form: dict[str, list[NameOccurrence]] = field(default_factory=dict)

    def is_person(self, form: str) -> bool:
        return form in self.persons

    def is_institution(self, form: str) -> bool:
        return any(fold_token(t) in INSTITUTION_WORDS for t in form.split())


def _person_key(form: str) -> str:
    return "".join(fold_token(re.sub(r"['\u2019]s$", "", t)) for t in form.split())


def is_caps_word(word: str) -> bool:
    """A word in capitals (``WATER``, ``McLACHLAN'S``): heading type, not a name."""
    core = re.sub(r"^(?:Mac|Mc|M')", "", word)
    core = re.sub(r"['\u2019][sS]$", "", core)
    letters = [c for c in core if c.isalpha()]
    return len(letters) >= 2 and all(c.isupper() for c in letters)


def is_capitalised(word: str) -> bool:
    return len(word) >= 2 and word[0].isupper() and not is_caps_word(word)


def _clean(word: str) -> str:
    return word.replace("\u2019", "'")


def _runs(text: str, start: int, end: int) -> list[tuple[list[tuple[int, int, str]], bool, bool]]:
    """Capitalised runs in ``text[start:end]`` as (tokens, starts sentence, person)."""
    tokens = [(m.start(), m.end(), m.group(0)) for m in WORD.finditer(text, start, end)]
    runs: list[tuple[list[tuple[int, int, str]], bool, bool]] = []
    current: list[tuple[int, int, str]] = []
    previous_person_end = -1

    def adjacent(a: tuple[int, int, str], b: tuple[int, int, str]) -> bool:
        gap = text[a[1] : b[0]]
        return gap.isspace() and "\n" not in gap

    def flush() -> None:
        nonlocal previous_person_end
        run = list(current)
        current.clear()
        while run and run[0][2].casefold() in _EDGE_WORDS:
            run.pop(0)
        while run and run[-1][2].casefold() in _EDGE_WORDS:
            run.pop()
        if not run or text[run[0][0] - 1 : run[0][0]] == ".":
            return  # empty, or the tail of an abbreviation such as B.Sc.
        initial = bool(tokens) and run[0][0] == tokens[0][0]
        before = text[max(start, run[0][0] - 12) : run[0][0]]
        person = bool(_PERSON_BEFORE.search(before) or _CITATION_AFTER.match(text[run[-1][1] : run[-1][1] + 12]))
        if not person and previous_person_end >= 0:
            person = re.fullmatch(r"\s+and\s+", text[previous_person_end : run[0][0]]) is not None
        if person:
            previous_person_end = run[-1][1]
        runs.append((run, initial, person))

    for i, token in enumerate(tokens):
        word = token[2]
        if current and not adjacent(current[-1], token):
            flush()
        if is_capitalised(word):
            current.append(token)
        elif (
            word == "of"
            and current
            and i + 1 < len(tokens)
            and is_capitalised(tokens[i + 1][2])
            and adjacent(token, tokens[i + 1])
        ):
            current.append(token)
        elif current:
            flush()
    if current:
        flush()
    return runs


def extract_names(corpus: CorpusText) -> NameIndex:
    """Every name occurrence in the reports and in the text cells of the tables."""
    raw: list[NameOccurrence] = []
    for name, blocks in corpus.blocks.items():
        for block in blocks:
            for sentence_index, (s_start, s_end) in enumerate(block.sentences):
                for run, initial, person in _runs(block.text, s_start, s_end):
                    if block.line_is_tabular(block.line_at(run[0][0])):
                        continue  # column headers and table cells laid out as text
                    raw.append(
                        NameOccurrence(
                            form=" ".join(_clean(t[2]) for t in run),
                            document=name,
                            page=block.page,
                            line=block.line_at(run[0][0]),
                            block=block.index,
                            sentence=sentence_index,
                            start=run[0][0],
                            end=run[-1][1],
                            initial=initial,
                            person=person,
                        )
                    )
    for document in corpus.documents:
        for row in document.rows:
            for column, value in row.cells.items():
                if column == document.key_column or _NUMERIC_CELL.match(value):
                    continue
                for run, _initial, person in _runs(value, 0, len(value)):
                    raw.append(
                        NameOccurrence(
                            form=" ".join(_clean(t[2]) for t in run),
                            document=document.name,
                            page=None,
                            line=None,
                            row_key=row.key,
                            column=column,
                            start=run[0][0],
                            end=run[-1][1],
                            initial=True,
                            person=person,
                        )
                    )
    return _filter_initial(raw, corpus)


def _filter_initial(raw: list[NameOccurrence], corpus: CorpusText) -> NameIndex:
    """Drop sentence-initial words that are only capitalised because they start a sentence."""
    mid_tokens = {t.casefold() for o in raw if not o.initial for t in o.form.split()}
    kept: list[NameOccurrence] = []
    for occurrence in raw:
        if occurrence.initial:
            words = occurrence.form.split()
            dropped = 0
            while words and (words[0].casefold() in corpus.lower_words or words[0].casefold() not in mid_tokens):
                dropped += len(words[0]) + 1
                words.pop(0)
            if not words:
                continue
            if dropped:
                occurrence = replace(occurrence, form=" ".join(words), start=occurrence.start + dropped, initial=False)
        kept.append(occurrence)
    capitalised: Counter[str] = Counter(o.form.casefold() for o in kept if " " not in o.form)
    kept = [o for o in kept if " " in o.form or corpus.lower_words[o.form.casefold()] < capitalised[o.form.casefold()]]
    index = NameIndex(occurrences=kept)
    for occurrence in kept:
        index.by_form.setdefault(occurrence.form, []).append(occurrence)
    index.persons = _persons(index)
    return index


def _persons(index: NameIndex) -> set[str]:
    """Forms used for people: mostly in person contexts, or sharing a key that often is.

    A ratio, not any single use, decides, because mines are named after people
    ("Mr. Maclachlan and party" found McLachlan's Reef).
    """
    per_key: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for occurrence in index.occurrences:
        counts = per_key[_person_key(occurrence.form)]
        counts[0] += occurrence.person
        counts[1] += 1
    persons: set[str] = set()
    for form, occurrences in index.by_form.items():
        in_context = sum(o.person for o in occurrences)
        key_person, key_all = per_key[_person_key(form)]
        mostly_person = in_context > 0 and in_context * 2 >= len(occurrences)
        key_often_person = key_person > 0 and key_person * 4 >= key_all
        if mostly_person or key_often_person:
            persons.add(form)
    return persons


def subject_class(form: str) -> str | None:
    """The head class of a name (``reef`` -> lode), or None for a bare name."""
    left, _specific, right = split_heads(form.split())
    if right:
        return HEAD_CLASSES.get(right[-1])
    if left and left[0] in LEFT_HEADS and left[0] in HEAD_CLASSES:
        return HEAD_CLASSES[left[0]]
    return None


def specific_key(form: str) -> str:
    """The folded specific part of a name (``mclachlans`` for M'Lachlan's Reef)."""
    _left, specific, _right = split_heads(form.split())
    return "".join(specific)


class EntityResolver:
    """Maps a name form to the key of the place or feature it names, or None.

    Variants map to their cluster's canonical form first, so M'Lachlan's and
    McLachlan's Reef are one entity. Only names whose specific part also appears
    with a subject head word (Reef, Shaft, Creek, Mount...) count: that keeps
    adjectives such as "Cornish" and people out of the subject of a quantity.
    """

    def __init__(self, index: NameIndex, canonical: dict[str, str]) -> None:
        self.index = index
        self.canonical = canonical
        self.subject_specifics: set[str] = set()
        for form in index.by_form:
            if index.is_person(form) or index.is_institution(form):
                continue
            if subject_class(self.canonical.get(form, form)) in SUBJECT_CLASSES:
                self.subject_specifics.add(specific_key(self.canonical.get(form, form)))
        self._cache: dict[str, str | None] = {}
        self.display: dict[str, str] = {}
        counts: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        for form, occurrences in index.by_form.items():
            key = self.key(form)
            if key:
                counts[key][self.canonical.get(form, form)] += len(occurrences)
        for key, forms in counts.items():
            self.display[key] = max(forms.items(), key=lambda item: (item[1], -len(item[0])))[0]
        self._by_orth: dict[str, str] = {}
        for form in index.by_form:
            key = self.key(form)
            if key and (len(form.split()) > 1 or len(form) >= 5):
                self._by_orth.setdefault(orth_key(form), key)

    def key(self, form: str) -> str | None:
        if form not in self._cache:
            self._cache[form] = self._key(form)
        return self._cache[form]

    def _key(self, form: str) -> str | None:
        if self.index.is_person(form) or self.index.is_institution(form):
            return None
        key = specific_key(self.canonical.get(form, form))
        return key if key in self.subject_specifics else None

    def keys_in(self, text: str) -> set[str]:
        """Entity keys named in a heading or title written in capitals (word n-grams
        matched by orthographic key, so ``McLACHLAN'S REEF`` finds McLachlan's Reef)."""
        words = WORD.findall(text)
        found: set[str] = set()
        for size in (3, 2, 1):
            for i in range(len(words) - size + 1):
                entity = self._by_orth.get(orth_key(" ".join(words[i : i + size])))
                if entity:
                    found.add(entity)
        return found
