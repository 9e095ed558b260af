"""Variant names: one place or formation written several ways across the corpus.

Names are linked by four rules (union-find, so links chain), each reported as the
cluster's method so the expert can judge the proposal:

1. **spelling**: equal orthographic keys: case, Mac/Mc/M', apostrophes, plural head
   words and word division folded away (Maclachlan's / M'Lachlan's / McLachlan's Reef).
2. **phonetic**: same head words, same Soundex-like consonant skeleton of the
   specific part, and an edit similarity of at least 0.6 (Nulla Bean / Nullabine /
   Nullabeen Creek). A near-identical spelling (edit similarity >= 0.85, names of
   six letters or more) is linked too: that is how OCR damage looks.
3. **naming**: same specific part with head words of one renameable class
   (formation or marker-bed names: Wirrim Slates / Wirrim Slate Series / Wirrim Beds;
   Black Band / Black Indicator). Creeks, mines and reefs are never linked this way.
4. Lower-case uses of a clustered multi-word name (``the black indicator``) are added
   as forms of that cluster.

The canonical form is the most widely used one: most documents, then the most
frequent spelling of its specific word anywhere in the corpus, then most uses,
then the most recent document. Clusters are proposals (``confirmed=False``).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from itertools import combinations

from gtreview.corpus.inventory.lexicon import (
    HEAD_CLASSES,
    RENAMEABLE,
    edit_similarity,
    orth_key,
    phonetic_key,
    singular,
    split_heads,
)
from gtreview.corpus.inventory.models import Location, VariantCluster, VariantForm
from gtreview.corpus.inventory.names import NameIndex, NameOccurrence
from gtreview.corpus.inventory.text import WORD, CorpusText

PHONETIC_MIN_SIMILARITY = 0.6
OCR_MIN_SIMILARITY = 0.85


@dataclass(frozen=True)
class _Form:
    form: str
    key: str
    specific: str
    heads: tuple[tuple[str, ...], tuple[str, ...]]
    phonetic: str
    display: str


class _UnionFind:
    def __init__(self, items: list[str]) -> None:
        self.parent = {item: item for item in items}
        self.reasons: dict[str, set[str]] = defaultdict(set)

    def find(self, item: str) -> str:
        while self.parent[item] != item:
            self.parent[item] = self.parent[self.parent[item]]
            item = self.parent[item]
        return item

    def union(self, a: str, b: str, reason: str) -> None:
        root_a, root_b = self.find(a), self.find(b)
        if root_a != root_b:
            self.parent[root_b] = root_a
            self.reasons[root_a] |= self.reasons.pop(root_b, set())
        self.reasons[root_a].add(reason)


def _describe(form: str) -> _Form:
    tokens = form.split()
    left, specific, right = split_heads(tokens)
    compact = "".join(specific)
    spelled = [t.replace("\u2019", "'").casefold() for t in tokens]
    display = " ".join([*spelled[:-1], singular(spelled[-1])])
    return _Form(form, orth_key(form), compact, (tuple(left), tuple(right)), phonetic_key(compact), display)


def find_variants(
    corpus: CorpusText, index: NameIndex, years: dict[str, int | None]
) -> tuple[list[VariantCluster], dict[str, str]]:
    """Variant clusters and a form -> canonical map (every clustered form)."""
    forms = [
        _describe(form)
        for form in index.by_form
        if not index.is_person(form) and not index.is_institution(form) and len(form.replace(" ", "")) >= 3
    ]
    uf = _UnionFind([f.form for f in forms])
    _link_spelling(forms, uf)
    _link_phonetic(forms, uf)
    _link_naming(forms, uf)

    members: dict[str, list[_Form]] = defaultdict(list)
    for f in forms:
        members[uf.find(f.form)].append(f)
    token_counts: Counter[str] = Counter(t for o in index.occurrences for t in o.form.split())
    clusters: list[VariantCluster] = []
    canonical: dict[str, str] = {}
    for root, group in members.items():
        if len({f.display for f in group}) < 2:
            continue
        ranked = sorted(group, key=lambda f: _rank(f, index, token_counts, years), reverse=True)
        reasons = uf.reasons[root]
        kind = "naming" if "naming" in reasons else "phonetic" if reasons & {"phonetic", "ocr"} else "spelling"
        cluster_forms = _merge_displays(ranked, index)
        clusters.append(
            VariantCluster(
                canonical=ranked[0].form,
                kind=kind,
                method=_method(reasons, group),
                forms=cluster_forms,
            )
        )
        canonical.update({f.form: ranked[0].form for f in group})
    _add_lowercase(corpus, clusters)
    clusters.sort(key=lambda c: (-sum(f.count for f in c.forms), c.canonical))
    return clusters, canonical


def _link_spelling(forms: list[_Form], uf: _UnionFind) -> None:
    by_key: dict[str, list[_Form]] = defaultdict(list)
    for f in forms:
        by_key[f.key].append(f)
    for group in by_key.values():
        for other in group[1:]:
            uf.union(group[0].form, other.form, "spelling")


def _link_phonetic(forms: list[_Form], uf: _UnionFind) -> None:
    """Pairs within blocks of equal head words (and equal skeleton or first letter)."""
    by_sound: dict[tuple[object, ...], list[_Form]] = defaultdict(list)
    by_letter: dict[tuple[object, ...], list[_Form]] = defaultdict(list)
    for f in forms:
        if len(f.specific) < 4:
            continue
        by_sound[(f.heads, f.phonetic)].append(f)
        if len(f.specific) >= 6:
            by_letter[(f.heads, f.specific[0])].append(f)
    for group in by_sound.values():
        for a, b in combinations(group, 2):
            if a.specific == b.specific:
                continue
            needed = PHONETIC_MIN_SIMILARITY if a.heads != ((), ()) else 0.75
            if edit_similarity(a.specific, b.specific) >= needed:
                uf.union(a.form, b.form, "phonetic")
    for group in by_letter.values():
        if len(group) > 400:  # a huge block of bare names: too costly, and too risky
            continue
        for a, b in combinations(group, 2):
            if a.specific != b.specific and abs(len(a.specific) - len(b.specific)) <= 1:
                if edit_similarity(a.specific, b.specific) >= OCR_MIN_SIMILARITY:
                    uf.union(a.form, b.form, "ocr")


def _link_naming(forms: list[_Form], uf: _UnionFind) -> None:
    by_specific: dict[tuple[str, str], list[_Form]] = defaultdict(list)
    for f in forms:
        right = f.heads[1]
        if f.specific and right and HEAD_CLASSES.get(right[-1]) in RENAMEABLE:
            by_specific[(f.specific, HEAD_CLASSES[right[-1]])].append(f)
    for group in by_specific.values():
        for other in group[1:]:
            if other.heads != group[0].heads:
                uf.union(group[0].form, other.form, "naming")


def _rank(
    f: _Form, index: NameIndex, token_counts: Counter[str], years: dict[str, int | None]
) -> tuple[int, int, int, bool, int, str]:
    occurrences = index.by_form[f.form]
    documents = {o.document for o in occurrences}
    tokens = f.form.split()
    specific_token = tokens[len(f.heads[0])] if len(tokens) > len(f.heads[0]) else tokens[0]
    latest = max((years.get(d) or 0 for d in documents), default=0)
    plain = not f.form.endswith(("'s", "\u2019s"))
    return (len(documents), token_counts[specific_token], len(occurrences), plain, latest, f.form)


def _method(reasons: set[str], group: list[_Form]) -> str:
    parts: list[str] = []
    if "spelling" in reasons:
        parts.append("same orthographic key (case, Mac/Mc/M', apostrophes, plural heads and word division folded)")
    if "phonetic" in reasons:
        keys = sorted({f.phonetic for f in group if f.specific})
        parts.append(f"same head words and consonant skeleton ({', '.join(keys)}) with edit similarity >= 0.6")
    if "ocr" in reasons:
        parts.append("same head words and near-identical spelling (edit similarity >= 0.85), as OCR damage looks")
    if "naming" in reasons:
        heads = sorted({" ".join(f.heads[1]) for f in group if f.heads[1]})
        parts.append(f"same specific name with head words of one renameable class ({', '.join(heads)})")
    return "; ".join(parts)


def _location(o: NameOccurrence) -> Location:
    if o.row_key is not None:
        return Location(document=o.document, row_key=o.row_key, column=o.column)
    return Location(document=o.document, page=o.page, line_start=o.line, line_end=o.line)


def _merge_displays(ranked: list[_Form], index: NameIndex) -> list[VariantForm]:
    """One form per spelling: ``Maclachlan's Reefs`` counts as ``Maclachlan's Reef``."""
    by_display: dict[str, list[_Form]] = {}
    for f in ranked:
        by_display.setdefault(f.display, []).append(f)
    merged: list[VariantForm] = []
    for group in by_display.values():
        occurrences = [o for f in group for o in index.by_form[f.form]]
        top = max(group, key=lambda f: len(index.by_form[f.form]))
        merged.append(_variant_form(top.form, occurrences))
    return merged


def _variant_form(form: str, occurrences: list[NameOccurrence]) -> VariantForm:
    documents: dict[str, int] = {}
    for o in occurrences:
        documents[o.document] = documents.get(o.document, 0) + 1
    return VariantForm(form=form, count=len(occurrences), documents=documents, first=_location(occurrences[0]))


def _add_lowercase(corpus: CorpusText, clusters: list[VariantCluster]) -> None:
    """Add lower-case uses (``black indicator``) of clustered multi-word names."""
    wanted: dict[tuple[str, ...], int] = {}
    for number, cluster in enumerate(clusters):
        for variant in cluster.forms:
            words = tuple(w.casefold() for w in variant.form.split())
            if len(words) > 1:
                wanted.setdefault(words, number)
    if not wanted:
        return
    longest = max(len(w) for w in wanted)
    first_words = {w[0] for w in wanted}
    found: dict[tuple[int, str], list[Location]] = defaultdict(list)
    for blocks in corpus.blocks.values():
        for block in blocks:
            tokens = [(m.start(), m.group(0)) for m in WORD.finditer(block.text)]
            for i in range(len(tokens)):
                if not tokens[i][1][0].islower() or tokens[i][1] not in first_words:
                    continue
                for size in range(2, longest + 1):
                    window = tokens[i : i + size]
                    if len(window) < size:
                        break
                    key = tuple(t.casefold() for _, t in window)
                    if key in wanted and all(t[0].islower() for _, t in window):
                        gap_ok = all(
                            block.text[window[j][0] + len(window[j][1]) : window[j + 1][0]].isspace()
                            for j in range(size - 1)
                        )
                        if gap_ok:
                            line = block.line_at(window[0][0])
                            found[(wanted[key], " ".join(t for _, t in window))].append(
                                Location(document=block.document, page=block.page, line_start=line, line_end=line)
                            )
    for (number, text), locations in found.items():
        documents: dict[str, int] = {}
        for location in locations:
            documents[location.document] = documents.get(location.document, 0) + 1
        clusters[number].forms.append(
            VariantForm(form=text, count=len(locations), documents=documents, first=locations[0])
        )
