"""HTML fragments for the question and source views (formatting only), in the colours of
the application's palette, so light text never sits on a light highlight in a dark theme."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from urllib.parse import quote

from PySide6.QtCore import QEvent
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QTextBrowser, QWidget

from gtreview.core.corpus import LocatorResolution, PageText, ParsedDocument
from gtreview.core.findings import Finding
from gtreview.core.review_flow import status_words
from gtreview.core.rubric import Question, variant_rule_text

_AMBER, _YELLOW, _RED_LIGHT, _RED_DARK, _WARN_LIGHT, _WARN_DARK = (
    "#e0c060",
    "#ffd84a",
    "#b00020",
    "#ff7b86",
    "#8a5a00",
    "#e3aa4f",
)
_GREEN, _DIFF_RED = "#3cb371", "#e05252"


def _mix(first: QColor, second: QColor | str, share: float) -> str:
    """``share`` of ``second`` blended into ``first``, as #rrggbb."""
    other = QColor(second)
    red, green, blue = (
        round(a * (1 - share) + b * share)
        for a, b in (
            (first.red(), other.red()),
            (first.green(), other.green()),
            (first.blue(), other.blue()),
        )
    )
    return QColor(red, green, blue).name()


@dataclass(frozen=True)
class HtmlColours:
    """The colours every fragment uses, derived from a palette's roles."""

    text: str
    base: str
    heading: str
    muted: str
    gate_back: str
    gate_border: str
    cited: str
    key_back: str
    error: str
    warning: str
    added_back: str  # a diff's added and removed lines: tints of the base, read on either ground
    removed_back: str
    dark: bool

    @classmethod
    def of(cls, palette: QPalette) -> HtmlColours:
        base = palette.color(QPalette.ColorRole.Base)
        text = palette.color(QPalette.ColorRole.Text)
        highlight = palette.color(QPalette.ColorRole.Highlight)
        dark = base.lightness() < text.lightness()
        return cls(
            text=text.name(),
            base=base.name(),
            heading=_mix(highlight, text, 0.35 if dark else 0.45),
            muted=_mix(text, base, 0.45),
            gate_back=_mix(base, _AMBER, 0.22 if dark else 0.2),
            gate_border=_mix(base, _AMBER, 0.7),
            cited=_mix(base, _YELLOW, 0.32 if dark else 0.5),
            key_back=_mix(base, highlight, 0.22 if dark else 0.1),
            error=_RED_DARK if dark else _RED_LIGHT,
            warning=_WARN_DARK if dark else _WARN_LIGHT,
            added_back=_mix(base, _GREEN, 0.3 if dark else 0.22),
            removed_back=_mix(base, _DIFF_RED, 0.3 if dark else 0.2),
            dark=dark,
        )


_current: HtmlColours | None = None


def use_palette(palette: QPalette) -> None:
    """The palette the fragments are drawn in (set by the theme, read by workers too)."""
    global _current
    _current = HtmlColours.of(palette)


def colours() -> HtmlColours:
    if _current is None:
        app = QApplication.instance()
        return HtmlColours.of(app.palette() if isinstance(app, QApplication) else QPalette())
    return _current


def style() -> str:
    """The style block of every fragment, in the current palette's colours."""
    c = colours()
    return f"""
<style>
body {{ font-family: sans-serif; color: {c.text}; }}
h2 {{ margin: 0 0 4px 0; }}
h3 {{ margin: 14px 0 4px 0; color: {c.heading}; }}
.meta {{ color: {c.muted}; }}
.gate {{ background: {c.gate_back}; border: 1px solid {c.gate_border}; padding: 6px; color: {c.text}; }}
.err {{ color: {c.error}; }}
.warn {{ color: {c.warning}; }}
.cited {{ background: {c.cited}; color: {c.text}; }}
.lineno {{ color: {c.muted}; }}
.citedno {{ color: {c.text}; }}
td, th {{ padding: 2px 6px; vertical-align: top; }}
th {{ text-align: left; background: {c.key_back}; color: {c.text}; }}
</style>
"""


_STYLE_BLOCK = re.compile(r"\s*<style>.*?</style>\s*", re.DOTALL)


class HtmlBrowser(QTextBrowser):
    """A text browser whose fragment is drawn again in the new colours when the theme changes
    (keeping its scroll position)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._source_html = ""

    def setHtml(self, text: str) -> None:
        if text == self._source_html and text:
            return  # the same page again keeps its scroll position (and costs no layout)
        self._source_html = text
        super().setHtml(text)

    def clear(self) -> None:
        self._source_html = ""
        super().clear()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and self._source_html:
            position = self.verticalScrollBar().value()
            restyled = _STYLE_BLOCK.sub(style(), self._source_html, count=1)
            if restyled == self._source_html:  # a fragment of its own: the palette's text colour still applies
                restyled = style() + self._source_html
            super().setHtml(restyled)
            self.verticalScrollBar().setValue(position)


def _list(items: list[str]) -> str:
    if not items:
        return "<p class='meta'>(none)</p>"
    return "<ul>" + "".join(f"<li>{escape(item)}</li>" for item in items) + "</ul>"


def findings_html(findings: list[Finding]) -> str:
    if not findings:
        return "<p class='meta'>No validation findings.</p>"
    rows = "".join(
        f"<li class='{'err' if f.is_error else 'warn'}'><b>{escape(f.code)}</b> {escape(f.path)}: {escape(f.message)}</li>"
        for f in findings
    )
    return f"<ul>{rows}</ul>"


QUESTION_LINK = "question"  # the scheme of a link to another question of the set: question:A1-P1


def question_link(qid: str) -> str:
    return f"<a href='{QUESTION_LINK}:{quote(qid, safe='')}'>{escape(qid)}</a>"


def paraphrase_html(question: Question, paraphrases: Sequence[str]) -> str:
    """Where a question stands among its paraphrases: what it rewords, or what rewords it
    (each a link that shows that question; Go > Original question does the first too)."""
    if question.paraphrase_of:
        return (
            f"<p class='meta'>Paraphrase of {question_link(question.paraphrase_of)}: its rubric is "
            f"{escape(question.paraphrase_of)}'s (Edit > Update paraphrase from its original after an edit there)</p>"
        )
    if paraphrases:
        return f"<p class='meta'>Paraphrases: {', '.join(question_link(p) for p in paraphrases)}</p>"
    return ""


def question_html(
    question: Question, status: str, version: int, findings: list[Finding], paraphrases: Sequence[str] = ()
) -> str:
    gate = question.gate
    parts = [style(), f"<h2>{escape(question.id)} · {escape(question.title or '')}</h2>"]
    parts.append(
        f"<p class='meta'>Section {escape(question.section or '-')} · {escape(question.difficulty or '-')} · "
        f"{escape(question.type or '')} · status <b>{escape(status_words(status))}</b> · version {version}</p>"
    )
    parts.append(paraphrase_html(question, paraphrases))
    parts.append(f"<h3>Question</h3><p>{escape(question.question or '')}</p>")
    parts.append(f"<h3>Model answer</h3><p>{escape(question.model_answer or '')}</p>")
    if question.principle:
        parts.append(f"<h3>Principle</h3><p>{escape(question.principle)}</p>")
    if gate is not None:
        parts.append(
            f"<h3>Gate {escape(str(gate.component_id))} ({escape(str(gate.points))} points)</h3>"
            f"<div class='gate'>{escape(gate.pass_condition or '')}<br><b>Fail examples:</b>{_list(gate.fail_examples)}</div>"
        )
    rows = "".join(
        f"<tr><td><b>{escape(c.id)}</b>{' (gate)' if c.is_gate else ''}</td><td>{escape(str(c.points))}</td>"
        f"<td>{escape(c.credit_if or '')}</td></tr>"
        for c in question.components
    )
    parts.append(f"<h3>Components</h3><table><tr><th>Id</th><th>Pts</th><th>Credit if</th></tr>{rows}</table>")
    parts.append(f"<h3>Required concepts</h3>{_list(question.required_concepts)}")
    parts.append(f"<h3>Accepted variants</h3>{_list([variant_rule_text(v) for v in question.accepted_variants])}")
    parts.append(f"<h3>Indicative terms</h3>{_list(question.indicative_terms)}")
    parts.append(f"<h3>Do not credit</h3>{_list(question.do_not_credit)}")
    fixtures = "".join(
        f"<tr><td><b>{escape(f.fixture_id)}</b></td><td>{'pass' if f.expected_gate_passed else 'fail'}</td>"
        f"<td>{escape(str(f.expected_total))}</td><td>{escape(f.response_text or '')}</td></tr>"
        for f in question.calibration
    )
    parts.append(
        "<h3>Calibration responses</h3><table><tr><th>Fixture</th><th>Gate</th><th>Total</th><th>Response</th></tr>"
        f"{fixtures}</table>"
    )
    parts.append(f"<h3>Validation</h3>{findings_html(findings)}")
    extra = question.model_extra or {}
    flags = extra.get("x_flags")
    if flags:
        parts.append(
            f"<h3 class='err'>Drafting flags</h3><pre style='white-space: pre-wrap'>{escape(json.dumps(flags, indent=1))}</pre>"
        )
    provenance = extra.get("x_provenance")
    if provenance:
        parts.append(
            "<h3>Drafting provenance (model, prompt version, stage; evidence card)</h3>"
            f"<pre style='white-space: pre-wrap'>{escape(json.dumps(provenance, indent=1, ensure_ascii=False))}</pre>"
        )
    return "".join(parts)


def evidence_label(position: int, claim: str, resolution: LocatorResolution) -> str:
    mark = "✓" if resolution.resolved else "✗ unresolved"
    return f"{position + 1}. {mark}  {claim}"


def page_html(page: PageText, cited: set[int]) -> str:
    """One page's numbered lines, the cited ones highlighted. Which evidence, document and
    page it is stand in the pane's fixed labels above it, so they never scroll away."""
    lines = []
    width = len(str(len(page.lines)))
    for number, line in enumerate(page.lines, start=1):
        text = escape(line) or "&nbsp;"
        anchor = f"<a name='L{number}'></a>"
        kind = "citedno" if number in cited else "lineno"  # grey on the highlight is not read (2:1 dark)
        row = f"{anchor}<span class='{kind}'>{str(number).rjust(width).replace(' ', '&nbsp;')}</span>&nbsp;&nbsp;{text}"
        lines.append(f"<span class='cited'>{row}</span>" if number in cited else row)
    body = "<br>".join(lines)
    return f"{style()}<p style='font-family: monospace; white-space: pre-wrap'>{body}</p>"


CITED_ANCHOR = "cited"  # the first cited cell of a table, scrolled to


def table_html(document: ParsedDocument, resolution: LocatorResolution) -> str:
    parts = [style(), f"<h3>{escape(document.name)}</h3>"]
    anchored = False
    for cell in resolution.cells:
        row = next((r for r in document.rows if r.index == cell.row_index), None)
        if row is None:
            continue
        cells = []
        for column, value in row.cells.items():
            cited = column in cell.columns
            anchor = f"<a name='{CITED_ANCHOR}'></a>" if cited and not anchored else ""
            anchored = anchored or cited
            cells.append(
                f"<tr><th>{anchor}{escape(column)}</th><td{' class=cited' if cited else ''}>{escape(value)}</td></tr>"
            )
        body = "".join(cells)
        parts.append(
            f"<p><b>Row {row.index}</b> ({escape(document.key_column or '')} = {escape(row.key)})</p><table>{body}</table>"
        )
    return "".join(parts)


def unresolved_html(resolution: LocatorResolution) -> str:
    return (
        f"{style()}<h3 class='err'>Locator not resolved</h3>"
        f"<p><b>Source:</b> {escape(resolution.source)}<br><b>Locator:</b> {escape(resolution.locator)}</p>"
        f"<p class='err'>{escape(resolution.reason)}</p>"
    )
