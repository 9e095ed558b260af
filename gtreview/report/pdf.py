"""Drawing a ReportDocument as a PDF with reportlab: vector charts, a table of contents,
page numbers on every page."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from reportlab.graphics.charts.barcharts import VerticalBarChart
from reportlab.graphics.charts.legends import Legend
from reportlab.graphics.shapes import Circle, Drawing, Group, Line, PolyLine, String
from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
from reportlab.lib.units import mm
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.platypus import BaseDocTemplate, Frame, PageTemplate, Spacer, TableStyle
from reportlab.platypus import PageBreak as RlPageBreak
from reportlab.platypus import Paragraph as RlParagraph
from reportlab.platypus import Table as RlTable
from reportlab.platypus.tableofcontents import TableOfContents

from gtreview.core.redaction import redact_json
from gtreview.files import atomic_path
from gtreview.report.document import (
    BarChart,
    CurveChart,
    Heading,
    PageBreak,
    Paragraph,
    ReportDocument,
    ScatterChart,
    Table,
)

PALETTE = [colors.HexColor(c) for c in ("#2c4a6b", "#d4872c", "#4f9a6a", "#a23b72", "#6b6b6b", "#3f88c5")]
WIDTH, HEIGHT = A4
MARGIN = 18 * mm
FRAME_WIDTH = WIDTH - 2 * MARGIN


class _Doc(BaseDocTemplate):  # type: ignore[misc]
    """Registers headings with the table of contents as they are laid out."""

    def afterFlowable(self, flowable: Any) -> None:
        level = getattr(flowable, "_toc_level", None)
        if level is not None:
            # the contents are drawn as Paragraph markup too: the heading's text is escaped again
            # (``&n_gpu_layers`` in a model spec would otherwise print as an entity, ``&n;_gpu_layers``)
            entry = escape(flowable.getPlainText())
            self.notify("TOCEntry", (level, entry, self.page, getattr(flowable, "_bookmark", None)))
            key = getattr(flowable, "_bookmark", None)
            if key:
                self.canv.bookmarkPage(key)
                self.canv.addOutlineEntry(flowable.getPlainText(), key, level=level, closed=level > 0)


def _styles() -> dict[str, ParagraphStyle]:
    base = getSampleStyleSheet()
    return {
        "title": ParagraphStyle("title", parent=base["Title"], fontSize=24, leading=30, spaceAfter=12),
        "subtitle": ParagraphStyle(
            "subtitle", parent=base["Normal"], fontSize=13, leading=17, textColor=colors.HexColor("#444444")
        ),
        "h1": ParagraphStyle(
            "h1", parent=base["Heading1"], fontSize=16, leading=20, spaceBefore=10, spaceAfter=6, keepWithNext=1
        ),  # a heading never ends a page alone
        "h2": ParagraphStyle(
            "h2", parent=base["Heading2"], fontSize=12.5, leading=16, spaceBefore=8, spaceAfter=4, keepWithNext=1
        ),
        "body": ParagraphStyle("body", parent=base["BodyText"], fontSize=9.5, leading=13),
        "finding": ParagraphStyle(
            "finding",
            parent=base["BodyText"],
            fontSize=11,
            leading=15,
            backColor=colors.HexColor("#eef2f6"),
            borderPadding=6,
            spaceBefore=6,
            spaceAfter=10,
        ),
        "alarm": ParagraphStyle(
            "alarm",
            parent=base["BodyText"],
            fontName="Helvetica-Bold",
            fontSize=11,
            leading=15,
            textColor=colors.HexColor("#8b1a1a"),
            backColor=colors.HexColor("#fbe9e7"),
            borderColor=colors.HexColor("#8b1a1a"),
            borderWidth=1,
            borderPadding=6,
            spaceBefore=6,
            spaceAfter=10,
        ),
        "small": ParagraphStyle("small", parent=base["BodyText"], fontSize=7.5, leading=9.5),
        "cell": ParagraphStyle("cell", parent=base["BodyText"], fontSize=7.5, leading=9),
        "cellhead": ParagraphStyle(
            "cellhead", parent=base["BodyText"], fontSize=7.5, leading=9, fontName="Helvetica-Bold"
        ),
        "toc1": ParagraphStyle("toc1", fontSize=10, leading=14, leftIndent=6),
        "toc2": ParagraphStyle("toc2", fontSize=9, leading=12, leftIndent=18),
    }


def _page_decorations(title: str) -> Any:
    def draw(canvas: Any, doc: Any) -> None:
        canvas.saveState()
        canvas.setFont("Helvetica", 8)
        canvas.setFillColor(colors.HexColor("#666666"))
        canvas.drawString(MARGIN, 10 * mm, title[:90])
        canvas.drawRightString(WIDTH - MARGIN, 10 * mm, f"page {doc.page}")
        canvas.restoreState()

    return draw


CELL_PADDING = 6  # reportlab's default left and right padding of a cell
WORD_CAP = 60.0  # a cell's long word (a hash, a path) may break; a short one ("Moderate", "0.57") may not


def _word_width(text: str, font: str, size: float) -> float:
    """The widest word of ``text``: a column narrower than that breaks it mid-word."""
    return max((stringWidth(word, font, size) for word in text.split()), default=0.0) + 2 * CELL_PADDING + 1


def column_widths(block: Table, styles: dict[str, ParagraphStyle]) -> list[float]:
    """The frame's width shared out by the block's relative widths (evenly without them), each
    column at least as wide as its header's longest word and its cells' (up to ``WORD_CAP``), so
    no header and no short value breaks inside a word."""
    count = max(len(block.header), *(len(row) for row in block.rows)) if block.rows else len(block.header)
    relative = list(block.widths or [])[:count]
    relative += [sum(relative) / len(relative) if relative else 1.0] * (count - len(relative))
    head, cell = styles["cellhead"], styles["cell"]
    least = [
        max(
            _word_width(block.header[i], head.fontName, head.fontSize) if i < len(block.header) else 0.0,
            min(
                WORD_CAP,
                max((_word_width(r[i], cell.fontName, cell.fontSize) for r in block.rows if i < len(r)), default=0.0),
            ),
        )
        for i in range(count)
    ]
    if sum(least) >= FRAME_WIDTH:  # cannot all fit: in proportion to what each needs
        return [FRAME_WIDTH * w / sum(least) for w in least]
    widths = [FRAME_WIDTH * w / sum(relative) for w in relative]
    fixed: set[int] = set()
    while True:  # raise the narrow ones to their least, take it from the others in proportion
        short = [i for i in range(count) if i not in fixed and widths[i] < least[i]]
        if not short:
            return widths
        fixed.update(short)
        left = FRAME_WIDTH - sum(least[i] for i in fixed)
        free = sum(relative[i] for i in range(count) if i not in fixed)
        widths = [least[i] if i in fixed else left * relative[i] / free for i in range(count)]


def _table(block: Table, styles: dict[str, ParagraphStyle]) -> RlTable:
    header = [RlParagraph(escape(h), styles["cellhead"]) for h in block.header]
    rows = [[RlParagraph(escape(cell), styles["cell"]) for cell in row] for row in block.rows]
    table = RlTable([header, *rows], colWidths=column_widths(block, styles), repeatRows=1)
    table.setStyle(
        TableStyle(
            [
                ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#dfe6ee")),
                ("ROWBACKGROUNDS", (0, 1), (-1, -1), [colors.white, colors.HexColor("#f6f8fa")]),
                ("GRID", (0, 0), (-1, -1), 0.25, colors.HexColor("#c8d0d8")),
                ("VALIGN", (0, 0), (-1, -1), "TOP"),
                ("TOPPADDING", (0, 0), (-1, -1), 2),
                ("BOTTOMPADDING", (0, 0), (-1, -1), 2),
            ]
        )
    )
    return table


def _bars(block: BarChart) -> Drawing:
    height = 190
    drawing = Drawing(FRAME_WIDTH, height)
    drawing.add(String(0, height - 12, block.title, fontName="Helvetica-Bold", fontSize=9))
    chart = VerticalBarChart()
    chart.x, chart.y, chart.width, chart.height = 40, 40, FRAME_WIDTH - 150, height - 70
    chart.data = [s.values for s in block.series] or [[0.0]]
    chart.categoryAxis.categoryNames = block.categories
    chart.categoryAxis.labels.fontSize = 7
    chart.categoryAxis.labels.angle = 30 if len(block.categories) > 6 else 0
    chart.categoryAxis.labels.boxAnchor = "ne" if len(block.categories) > 6 else "n"
    # the category axis and its labels under the plot, not across the bars at 0 when values go below it
    chart.categoryAxis.joinAxis, chart.categoryAxis.joinAxisMode = chart.valueAxis, "bottom"
    chart.valueAxis.valueMin = block.value_min
    highs = [v for s in block.series for v in (s.high or s.values)]
    chart.valueAxis.valueMax = block.value_max if block.value_max is not None else (max(highs) * 1.1 if highs else 1.0)
    chart.valueAxis.labels.fontSize = 7
    chart.barSpacing, chart.groupSpacing = 1, 8
    for index, _ in enumerate(block.series):
        chart.bars[index].fillColor = PALETTE[index % len(PALETTE)]
        chart.bars[index].strokeColor = None
    drawing.add(chart)
    bottom, top = float(chart.valueAxis.valueMin), float(chart.valueAxis.valueMax)
    span = top - bottom or 1.0

    def y_of(value: float) -> float:
        return float(chart.y) + float(chart.height) * (value - bottom) / span

    groups, per = len(block.categories), max(1, len(block.series))
    group_width = chart.width / max(1, groups)
    for s_index, series in enumerate(block.series):
        if series.low is None or series.high is None:
            continue
        for c_index, (low, high) in enumerate(zip(series.low, series.high, strict=True)):
            x = chart.x + group_width * c_index + group_width * (s_index + 0.5) / per * 0.85 + group_width * 0.075
            drawing.add(Line(x, y_of(low), x, y_of(high), strokeColor=colors.black, strokeWidth=0.8))
            for y in (y_of(low), y_of(high)):
                drawing.add(Line(x - 2, y, x + 2, y, strokeColor=colors.black, strokeWidth=0.8))
    if block.reference_line is not None:
        y = y_of(block.reference_line)
        drawing.add(
            Line(chart.x, y, chart.x + chart.width, y, strokeColor=colors.HexColor("#999999"), strokeDashArray=[2, 2])
        )
    if block.value_label:
        drawing.add(String(0, chart.y + chart.height / 2, block.value_label, fontSize=7))
    legend = Legend()
    legend.x, legend.y = chart.x + chart.width + 12, height - 30
    legend.fontSize = 7
    legend.colorNamePairs = [(PALETTE[i % len(PALETTE)], s.name) for i, s in enumerate(block.series)]
    drawing.add(legend)
    return drawing


def _scatter(block: ScatterChart) -> Drawing:
    size = 230
    drawing = Drawing(FRAME_WIDTH, size + 30)
    drawing.add(String(0, size + 18, block.title, fontName="Helvetica-Bold", fontSize=9))
    x0, y0, side = 50, 30, size - 20
    lo, hi = block.minimum, block.maximum

    def pos(x: float, y: float) -> tuple[float, float]:
        return x0 + side * (x - lo) / (hi - lo), y0 + side * (y - lo) / (hi - lo)

    grey = colors.HexColor("#888888")
    drawing.add(Line(x0, y0, x0 + side, y0, strokeColor=grey))
    drawing.add(Line(x0, y0, x0, y0 + side, strokeColor=grey))
    for tick in range(int(lo), int(hi) + 1, 2):
        tx, ty = pos(tick, tick)
        drawing.add(String(tx - 3, y0 - 10, str(tick), fontSize=6))
        drawing.add(String(x0 - 12, ty - 2, str(tick), fontSize=6))
    if block.diagonal:
        drawing.add(Line(*pos(lo, lo), *pos(hi, hi), strokeColor=colors.HexColor("#bbbbbb"), strokeDashArray=[2, 2]))
    for point in block.points:
        px, py = pos(point.x, point.y)
        if point.x_err:
            drawing.add(
                Line(
                    *pos(point.x - point.x_err, point.y),
                    *pos(point.x + point.x_err, point.y),
                    strokeColor=grey,
                    strokeWidth=0.5,
                )
            )
        if point.y_err:
            drawing.add(
                Line(
                    *pos(point.x, point.y - point.y_err),
                    *pos(point.x, point.y + point.y_err),
                    strokeColor=grey,
                    strokeWidth=0.5,
                )
            )
        drawing.add(Circle(px, py, 2.2, fillColor=PALETTE[0], strokeColor=None))
    drawing.add(String(x0 + side / 2 - 20, 8, block.x_label, fontSize=7))
    drawing.add(String(x0 + side + 8, y0 + side / 2, block.y_label, fontSize=7))
    return drawing


def _curves(block: CurveChart) -> Drawing:
    """A square plot of lines (a ROC curve), ticks at quarters, the legend at its right."""
    side, x0, y0 = 200.0, 52.0, 34.0
    drawing = Drawing(FRAME_WIDTH, side + y0 + 26)
    drawing.add(String(0, side + y0 + 14, block.title, fontName="Helvetica-Bold", fontSize=9))
    lo, hi = block.minimum, block.maximum
    span = hi - lo or 1.0

    def pos(x: float, y: float) -> tuple[float, float]:
        return x0 + side * (x - lo) / span, y0 + side * (y - lo) / span

    grey, faint = colors.HexColor("#888888"), colors.HexColor("#e3e7eb")
    for quarter in range(5):
        value = lo + span * quarter / 4
        tx, ty = pos(value, value)
        if 0 < quarter < 4:
            drawing.add(Line(tx, y0, tx, y0 + side, strokeColor=faint, strokeWidth=0.5))
            drawing.add(Line(x0, ty, x0 + side, ty, strokeColor=faint, strokeWidth=0.5))
        label = f"{value:g}"
        drawing.add(String(tx, y0 - 9, label, fontSize=6, textAnchor="middle"))
        drawing.add(String(x0 - 3, ty - 2, label, fontSize=6, textAnchor="end"))
    drawing.add(Line(x0, y0, x0 + side, y0, strokeColor=grey))
    drawing.add(Line(x0, y0, x0, y0 + side, strokeColor=grey))
    legend: list[tuple[str, Any, list[float] | None]] = []
    if block.diagonal:
        drawing.add(Line(*pos(lo, lo), *pos(hi, hi), strokeColor=colors.HexColor("#bbbbbb"), strokeDashArray=[2, 2]))
        legend.append((block.diagonal, colors.HexColor("#bbbbbb"), [2.0, 2.0]))
    shown = 0
    for series in block.series:
        colour = grey if series.dashed else PALETTE[shown % len(PALETTE)]
        shown += 0 if series.dashed else 1
        dash: list[float] | None = [4.0, 2.0] if series.dashed else None
        points = [c for x, y in series.points for c in pos(x, y)]
        if len(points) >= 4:
            drawing.add(PolyLine(points, strokeColor=colour, strokeWidth=1.4, strokeDashArray=dash))
        legend.append((series.name, colour, dash))
    for row, (name, colour, dash) in enumerate(legend):
        y = y0 + side - 8 - 12 * row
        drawing.add(
            Line(
                x0 + side + 14, y + 2, x0 + side + 32, y + 2, strokeColor=colour, strokeWidth=1.4, strokeDashArray=dash
            )
        )
        drawing.add(String(x0 + side + 36, y, name, fontSize=7))
    drawing.add(String(x0 + side / 2, y0 - 22, block.x_label, fontSize=7, textAnchor="middle"))
    y_label = Group(String(0, 0, block.y_label, fontSize=7, textAnchor="middle"))
    y_label.transform = (0, 1, -1, 0, x0 - 22, y0 + side / 2)  # turned a quarter, reading upwards
    drawing.add(y_label)
    return drawing


def render_pdf(document: ReportDocument, out: Path) -> Path:
    """Lay the document out as a PDF; written beside ``out`` and renamed, so a failure keeps the old file.

    Every text is redacted on its way to the page: a report is shared, and what it quotes
    (errors, server details) may come from a project stored before texts were redacted."""
    document = ReportDocument.model_validate(redact_json(document.model_dump()))
    with atomic_path(out) as temporary:
        _build(document, temporary)
    return out


def _build(document: ReportDocument, out: Path) -> None:
    styles = _styles()
    doc = _Doc(
        str(out),
        pagesize=A4,
        leftMargin=MARGIN,
        rightMargin=MARGIN,
        topMargin=MARGIN,
        bottomMargin=18 * mm,
        title=document.title,
        author="gtreview",
    )
    frame = Frame(MARGIN, 16 * mm, FRAME_WIDTH, HEIGHT - MARGIN - 16 * mm, id="body")
    doc.addPageTemplates([PageTemplate(id="page", frames=[frame], onPage=_page_decorations(document.title))])
    story: list[Any] = [RlParagraph(escape(document.title), styles["title"])]
    if document.subtitle:
        story.append(RlParagraph(escape(document.subtitle), styles["subtitle"]))
    story.append(Spacer(1, 10))
    if document.cover_notice is not None:
        story += [RlParagraph(escape(document.cover_notice.text), styles[document.cover_notice.style]), Spacer(1, 6)]
    if document.cover_lines:
        story.append(
            _table(Table(header=["", ""], rows=[[k, v] for k, v in document.cover_lines], widths=[1, 3]), styles)
        )
    toc = TableOfContents()
    toc.levelStyles = [styles["toc1"], styles["toc2"]]
    story += [Spacer(1, 14), RlParagraph("Contents", styles["h1"]), toc, RlPageBreak()]
    for number, block in enumerate(document.blocks):
        if isinstance(block, Heading):
            paragraph = RlParagraph(escape(block.text), styles["h1" if block.level == 1 else "h2"])
            paragraph._toc_level = block.level - 1
            paragraph._bookmark = f"h{number}"
            story.append(paragraph)
        elif isinstance(block, Paragraph):
            story.append(RlParagraph(escape(block.text), styles[block.style]))
        elif isinstance(block, Table):
            story.append(_table(block, styles))
            if block.caption:
                story.append(RlParagraph(escape(block.caption), styles["small"]))
            story.append(Spacer(1, 8))
        elif isinstance(block, BarChart):
            story += [_bars(block), Spacer(1, 6)]
        elif isinstance(block, ScatterChart):
            story += [_scatter(block), Spacer(1, 6)]
        elif isinstance(block, CurveChart):
            story += [_curves(block), Spacer(1, 6)]
        elif isinstance(block, PageBreak):
            story.append(RlPageBreak())
    doc.multiBuild(story)
