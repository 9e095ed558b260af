"""Markdown rendering of a :class:`CorpusInventory`, for reading in a terminal or a
viewer: each finding with the locations a reviewer needs to check it, and each
section with the method that produced it."""

from __future__ import annotations

from gtreview.core.wording import plural
from gtreview.corpus.inventory.models import CorpusInventory, Term

SHOWN_TERMS = 25


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _table(header: list[str], rows: list[list[object]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines.extend("| " + " | ".join(_cell(c) for c in row) + " |" for row in rows)
    return [*lines, ""]


def _documents(counts: dict[str, int]) -> str:
    return ", ".join(f"{name.rsplit('/', 1)[-1]} ({n})" for name, n in counts.items())


def _terms(terms: list[Term]) -> list[str]:
    rows: list[list[object]] = [[t.term, t.count, len(t.documents), _documents(t.documents)] for t in terms]
    return _table(["Term", "Uses", "Docs", "Where"], rows[:SHOWN_TERMS])


def inventory_to_markdown(inventory: CorpusInventory) -> str:
    """The whole inventory as one Markdown document."""
    out: list[str] = ["# Corpus inventory", ""]
    out.append(
        f"{plural(inventory.documents, 'document')}; {plural(len(inventory.duplicates), 'duplicated passage')}, "
        f"{plural(len(inventory.variants), 'variant-name cluster')}, {plural(len(inventory.conflicts), 'numeric conflict')}, "
        f"{plural(len(inventory.thin_areas), 'thin area')}. All findings are heuristic proposals to check against the text."
    )
    out.append("")

    out += ["## 1. Source families", ""]
    out += _table(
        ["Family", "Documents", "Formats", "Extent", "Years", "Issuing bodies (heuristic)"],
        [
            [
                f.name,
                len(f.documents),
                ", ".join(f.formats),
                f"{f.pages} pages, {f.lines} lines" if f.kind == "report" else f"{f.rows} rows",
                f"{f.year_from}-{f.year_to}" if f.year_from else "unknown",
                ", ".join(f"{body} ({n})" for body, n in f.provenance.items()) or "-",
            ]
            for f in inventory.families
        ],
    )
    for family in inventory.families:
        out.append(f"**{family.name}**")
        out.append("")
        for d in family.documents:
            extent = f"{d.rows} rows" if d.kind == "table" else f"{d.pages} pages"
            year = f"{d.year} ({d.year_source})" if d.year else "year unknown"
            mentioned = f"; mentions {d.years_mentioned[0]}-{d.years_mentioned[1]}" if d.years_mentioned else ""
            bodies = f"; {', '.join(d.issuing_bodies)}" if d.issuing_bodies else ""
            out.append(f"- `{d.name}`: {d.title} ({year}, {extent}{mentioned}{bodies})")
        if family.cited_sources:
            out.append(f"- cites: {'; '.join(family.cited_sources)}")
        out.append("")

    terms = inventory.terminology
    out += ["## 2. Terminology", "", "### Names", ""]
    out += _terms(terms.names)
    out += ["### Domain words", ""]
    out += _terms(terms.words)
    out += ["### Distinctive words per document (TF-IDF)", ""]
    out += [f"- `{d.document}`: {', '.join(d.terms) or '-'}" for d in terms.distinctive]
    out.append("")

    out += ["## 3. Duplicated passages", ""]
    if not inventory.duplicates:
        out += ["None found.", ""]
    for number, dup in enumerate(inventory.duplicates, start=1):
        out.append(f"{number}. **{dup.kind}** ({dup.words} words, {dup.similarity:.0%} aligned)")
        out.append(f"   - {dup.first.label()}")
        out.append(f"   - {dup.second.label()}")
        out.append(f"   > {dup.first_text[:300]}")
        if dup.kind == "near":
            out.append(f"   >> {dup.second_text[:300]}")
    out.append("")

    out += ["## 4. Variant names (proposed synonyms; confirm each)", ""]
    rows: list[list[object]] = []
    for cluster in inventory.variants:
        for position, form in enumerate(cluster.forms):
            rows.append(
                [
                    f"**{cluster.canonical}**" if position == 0 else "",
                    form.form,
                    form.count,
                    _documents(form.documents),
                    form.first.label(),
                    f"{cluster.kind}: {cluster.method}" if position == 0 else "",
                    ("yes" if cluster.confirmed else "no") if position == 0 else "",
                ]
            )
    out += (
        _table(["Canonical", "Form", "Uses", "Documents", "First seen", "Why", "Confirmed"], rows)
        if rows
        else [
            "None found.",
            "",
        ]
    )

    out += ["## 5. Numeric conflicts", ""]
    if not inventory.conflicts:
        out += ["None found.", ""]
    for number, conflict in enumerate(inventory.conflicts, start=1):
        out.append(
            f"### 5.{number} {conflict.subject} (confidence {conflict.confidence:.2f}, spread {conflict.spread:.0%})"
        )
        out.append("")
        if conflict.evidence:
            out += [f"Linked by: {'; '.join(conflict.evidence)}.", ""]
        out += _table(
            ["Value", "As written", "Where", "Line"],
            [[f"{v.value:g} {v.unit}", v.text, v.location.label(), v.line_text] for v in conflict.values],
        )

    out += ["## 6. Thin areas (too thin to question fairly)", ""]
    out += (
        _table(
            ["Subject", "Lines", "Documents", "First", "Why"],
            [[a.name, a.lines, ", ".join(a.documents), a.first.label(), a.reason] for a in inventory.thin_areas],
        )
        if inventory.thin_areas
        else ["None found.", ""]
    )

    out += ["## Methods", ""]
    out += [f"- **{name}**: {text}" for name, text in inventory.methods.items()]
    if inventory.timings_s:
        out += ["", "Timings (s): " + ", ".join(f"{k} {v:.3f}" for k, v in inventory.timings_s.items())]
    return "\n".join(out) + "\n"
