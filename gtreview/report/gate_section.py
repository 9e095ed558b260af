"""The report's section on the judge gate, criterion by criterion: the lines the results
view shows in the gate's tooltip (both from ``gtreview.app.gate_criteria.criteria_details``,
handed down as text since the report may not import the use cases)."""

from __future__ import annotations

from collections.abc import Sequence

from gtreview.report.document import Heading, Paragraph, ReportDocument

GATE_HEADING = "Judge gate"


def add_gate_section(doc: ReportDocument, gate_line: str, details: Sequence[str]) -> None:
    """The gate's line again (the cover has it too), then one paragraph per detail line;
    nothing when no expert sample was graded (the cover says all there is)."""
    if not details:
        return
    doc.add(Heading(text=GATE_HEADING))
    if gate_line:
        doc.add(Paragraph(text=gate_line))
    for line in details:
        doc.add(Paragraph(text=line))
