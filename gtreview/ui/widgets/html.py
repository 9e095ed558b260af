"""HTML fragments for the question and source views (formatting only)."""

from __future__ import annotations

import json
from html import escape

from gtreview.core.corpus import LocatorResolution, PageText, ParsedDocument
from gtreview.core.findings import Finding
from gtreview.core.rubric import Question, variant_rule_text

STYLE = """
<style>
body { font-family: sans-serif; }
h2 { margin: 0 0 4px 0; }
h3 { margin: 14px 0 4px 0; color: #2c4a6b; }
.meta { color: #666; }
.gate { background: #fff6d6; border: 1px solid #e0c060; padding: 6px; }
.err { color: #b00020; }
.warn { color: #8a5a00; }
.cited { background: #ffe58a; }
.lineno { color: #999; }
td, th { padding: 2px 6px; vertical-align: top; }
th { text-align: left; background: #eef2f6; }
</style>
"""


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


def question_html(question: Question, status: str, version: int, findings: list[Finding]) -> str:
    gate = question.gate
    parts = [STYLE, f"<h2>{escape(question.id)} · {escape(question.title or '')}</h2>"]
    parts.append(
        f"<p class='meta'>Section {escape(question.section or '-')} · {escape(question.difficulty or '-')} · "
        f"{escape(question.type or '')} · status <b>{escape(status)}</b> · version {version}</p>"
    )
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


def page_html(document: ParsedDocument, page: PageText, cited: set[int], heading: str) -> str:
    lines = []
    width = len(str(len(page.lines)))
    for number, line in enumerate(page.lines, start=1):
        text = escape(line) or "&nbsp;"
        anchor = f"<a name='L{number}'></a>"
        row = f"{anchor}<span class='lineno'>{str(number).rjust(width).replace(' ', '&nbsp;')}</span>&nbsp;&nbsp;{text}"
        lines.append(f"<span class='cited'>{row}</span>" if number in cited else row)
    body = "<br>".join(lines)
    return (
        f"{STYLE}<p class='meta'>{escape(heading)}</p><h3>{escape(document.name)} · page {page.number} of "
        f"{len(document.pages)}</h3><p style='font-family: monospace; white-space: pre-wrap'>{body}</p>"
    )


def table_html(document: ParsedDocument, resolution: LocatorResolution, heading: str) -> str:
    parts = [STYLE, f"<p class='meta'>{escape(heading)}</p><h3>{escape(document.name)}</h3>"]
    for cell in resolution.cells:
        row = next((r for r in document.rows if r.index == cell.row_index), None)
        if row is None:
            continue
        body = "".join(
            f"<tr><th>{escape(column)}</th><td{' class=cited' if column in cell.columns else ''}>{escape(value)}</td></tr>"
            for column, value in row.cells.items()
        )
        parts.append(
            f"<p><b>Row {row.index}</b> ({escape(document.key_column or '')} = {escape(row.key)})</p><table>{body}</table>"
        )
    return "".join(parts)


def unresolved_html(resolution: LocatorResolution, heading: str) -> str:
    return (
        f"{STYLE}<p class='meta'>{escape(heading)}</p><h3 class='err'>Locator not resolved</h3>"
        f"<p><b>Source:</b> {escape(resolution.source)}<br><b>Locator:</b> {escape(resolution.locator)}</p>"
        f"<p class='err'>{escape(resolution.reason)}</p>"
    )
