"""A report as plain data: headings, paragraphs, tables and charts.

The analysis builds one of these and the PDF renderer draws it, so the numbers are
computed once (and testable without reading a PDF) and the layout is in one place.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class Heading(BaseModel):
    kind: Literal["heading"] = "heading"
    text: str
    level: int = 1


class Paragraph(BaseModel):
    kind: Literal["paragraph"] = "paragraph"
    text: str
    style: Literal["body", "finding", "small", "alarm"] = "body"  # alarm: a warning no reader may miss


class Table(BaseModel):
    kind: Literal["table"] = "table"
    header: list[str]
    rows: list[list[str]]
    widths: list[float] | None = None  # relative column widths
    caption: str = ""


class BarSeries(BaseModel):
    name: str
    values: list[float]
    low: list[float] | None = None  # error bars (interval), same length as values
    high: list[float] | None = None


class BarChart(BaseModel):
    """Grouped bars (one group per category, one bar per series), optional interval whiskers."""

    kind: Literal["bars"] = "bars"
    title: str
    categories: list[str]
    series: list[BarSeries]
    value_min: float = 0.0
    value_max: float | None = None
    value_label: str = ""
    reference_line: float | None = None


class ScatterPoint(BaseModel):
    x: float
    y: float
    x_err: float = 0.0
    y_err: float = 0.0
    label: str = ""


class ScatterChart(BaseModel):
    kind: Literal["scatter"] = "scatter"
    title: str
    x_label: str
    y_label: str
    points: list[ScatterPoint]
    minimum: float = 0.0
    maximum: float = 10.0
    diagonal: bool = True


class CurveSeries(BaseModel):
    name: str
    points: list[tuple[float, float]]  # joined in order
    dashed: bool = False  # a control, drawn grey and dashed (the base model)


class CurveChart(BaseModel):
    """Lines through points on a square from ``minimum`` to ``maximum`` on both axes (a ROC
    curve), with the diagonal dashed and named in the legend."""

    kind: Literal["curves"] = "curves"
    title: str
    x_label: str
    y_label: str
    series: list[CurveSeries]
    minimum: float = 0.0
    maximum: float = 1.0
    diagonal: str = "chance"  # the diagonal's name in the legend; "" draws none


class PageBreak(BaseModel):
    kind: Literal["pagebreak"] = "pagebreak"


Block = Heading | Paragraph | Table | BarChart | ScatterChart | CurveChart | PageBreak


class ReportDocument(BaseModel):
    title: str
    subtitle: str = ""
    cover_lines: list[tuple[str, str]] = Field(default_factory=list)
    cover_notice: Paragraph | None = None  # under the title, above the cover table (the judge gate)
    blocks: list[Block] = Field(default_factory=list)

    def add(self, *blocks: Block) -> None:
        self.blocks.extend(blocks)
