"""The PDF's text as the reader sees it: markup in names escaped (the contents too), table
headers unbroken and all present, samples numbered from 1, order-inconsistency counted apart."""

from __future__ import annotations

import re
from pathlib import Path

from pypdf import PdfReader

from gtreview.report.document import Heading, Paragraph, ReportDocument, Table
from gtreview.report.pdf import _styles, column_widths, render_pdf
from gtreview.report.run_report import build_report, write_run_report
from gtreview.results.analysis import analyse
from gtreview.results.loader import SampleStatus, load_run_results
from tests.report.test_run_report import finished_run  # noqa: F401 - the module's pass, shared

SPEC = "llama:/models/judge_v2.gguf?n_ctx=4096&n_gpu_layers=20&lora=a_b<c>.gguf"


def _text(path: Path) -> str:
    return "\n".join(page.extract_text() for page in PdfReader(str(path)).pages)


def test_markup_in_names_is_escaped_in_the_contents_and_the_body(tmp_path: Path) -> None:
    doc = ReportDocument(title="Report & <test>")
    doc.add(Heading(text=SPEC), Paragraph(text="a_b & c <d>"), Table(header=["Field", "Value"], rows=[[SPEC, "x&y"]]))
    text = _text(render_pdf(doc, tmp_path / "m.pdf"))
    flat = "".join(text.split())
    assert "&n;" not in text and "&lora;" not in text
    assert flat.count(SPEC.replace(" ", "")) == 3  # the contents, the heading and the table cell
    assert "a_b & c <d>" in text and "Report & <test>" in text


def test_headers_never_break_inside_a_word() -> None:
    styles = _styles()
    block = Table(
        header=["Model", "Mean /10", "Unscored", "Adjudicated", "p (permutation)"],
        rows=[["m", "1", "2", "3", "4"]],
        widths=[4, 1, 0.3, 0.3, 0.3],
    )
    widths = column_widths(block, styles)
    from reportlab.pdfbase.pdfmetrics import stringWidth

    head = styles["cellhead"]
    for title, width in zip(block.header, widths, strict=True):
        widest = max(stringWidth(word, head.fontName, head.fontSize) for word in title.split())
        assert width - 12 >= widest, title
    assert abs(sum(widths) - sum(column_widths(Table(header=["a"], rows=[]), styles))) < 1e-6  # the frame's width


def test_run_report_headers_numbers_and_pairwise(finished_run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    _, project, run_id = finished_run
    results = load_run_results(project.engine, run_id)
    analysis = analyse(results, n_boot=300, n_perm=500)
    doc = build_report(results, analysis)
    for table in (b for b in doc.blocks if isinstance(b, Table)):
        assert all(table.header) and all(len(row) == len(table.header) for row in table.rows), table.header[:2]
    text = _text(write_run_report(results, analysis, tmp_path / "r.pdf"))
    flat = " ".join(text.split())
    for header in (
        "Unscored",
        "Unjudged",
        "Settled",
        "Order-inconsistent",
        "(permutation)",
        "Agreement with pointwise",
    ):
        assert header in flat, header
    (failed,) = [s for s in results.samples if s.status is SampleStatus.ERROR]
    failures = flat[flat.rindex("Failures and unscored items") :]
    match = re.search(rf"{failed.model} {failed.qid} (\d+) error", failures)
    assert match is not None and int(match.group(1)) == failed.sample_index + 1  # as the app numbers it
    assert f"for samples 1..{results.repeats}" in flat
    pairwise_chart = next(b for b in doc.blocks if getattr(b, "title", "").startswith("Pairwise outcomes"))
    assert pairwise_chart.categories == ["wins", "ties", "losses", "unknown"]


def test_long_cells_are_cut_with_an_ellipsis() -> None:
    from gtreview.report.run_report import _cut

    assert _cut("short", 60) == "short"
    cut = _cut("Why does the reef pitch steepen below the junction crush zone near the shaft", 40)
    assert len(cut) <= 40 and cut.endswith("…") and cut.startswith("Why does the reef pitch")


def test_a_curve_chart_draws_its_title_axes_and_legend(tmp_path: Path) -> None:
    """The membership section's ROC chart: square axes with quarter ticks, the diagonal and
    each curve named in the legend, a control dashed; a series of one point draws no line."""
    from gtreview.report.document import CurveChart, CurveSeries
    from gtreview.report.pdf import _curves

    block = CurveChart(
        title="ROC of Loss",
        x_label="false-positive rate",
        y_label="true-positive rate",
        series=[
            CurveSeries(
                name="base (base, control), AUC 0.50", points=[(0.0, 0.0), (0.5, 0.5), (1.0, 1.0)], dashed=True
            ),
            CurveSeries(name="tuned, AUC 0.94", points=[(0.0, 0.0), (0.0, 0.75), (0.25, 1.0), (1.0, 1.0)]),
            CurveSeries(name="lonely", points=[(0.0, 0.0)]),
        ],
    )
    doc = ReportDocument(title="Curves")
    doc.add(Heading(text="Membership"), block)
    text = _text(render_pdf(doc, tmp_path / "c.pdf"))
    for words in ("ROC of Loss", "false-positive rate", "true-positive rate", "chance", "tuned, AUC 0.94", "0.25"):
        assert words in text, words
    lines = [shape for shape in _curves(block).contents if type(shape).__name__ == "PolyLine"]
    assert len(lines) == 2 and lines[0].strokeDashArray and not lines[1].strokeDashArray
    assert ReportDocument.model_validate(doc.model_dump()).blocks[1] == block  # survives the redaction round trip
