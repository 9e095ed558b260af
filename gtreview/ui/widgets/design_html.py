"""The design figures of a pass as an HTML fragment for the results view's comparison pane:
the readings and tables ``gtreview.results.design_text`` writes (the PDF prints the same),
placed after the caller's palette style block. Formatting only; every number comes from the analysis."""

from __future__ import annotations

from html import escape

from gtreview.results.design import DesignFigures
from gtreview.results.design_text import FigureTable, design_readings, design_tables


def _table_html(table: FigureTable) -> str:
    head = "".join(f"<th>{escape(cell)}</th>" for cell in table.header)
    body = "".join("<tr>" + "".join(f"<td>{escape(cell)}</td>" for cell in row) + "</tr>" for row in table.rows)
    caption = f"<p class='meta'>{escape(table.caption)}</p>" if table.caption else ""
    return f"<h4>{escape(table.title)}</h4><table><tr>{head}</tr>{body}</table>{caption}"


def design_html(design: DesignFigures | None) -> str:
    """The readings first (what an analyst reads), then the tables they come from."""
    if design is None:
        return ""
    readings = "".join(f"<li>{escape(line)}</li>" for line in design_readings(design))
    tables = "".join(_table_html(table) for table in design_tables(design))
    return f"<h3>Beyond the anchors</h3><ul>{readings}</ul>{tables}"
