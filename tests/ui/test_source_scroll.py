"""At 1280x720 the source pane is small: the cited lines (and a cited CSV cell) are
scrolled into view, with context lines above only where they fit."""

from __future__ import annotations

from PySide6.QtGui import QTextCursor

from gtreview.core.corpus import (
    CellRef,
    LocatorResolution,
    LocatorStatus,
    PageText,
    ParsedDocument,
    SourceKind,
    TableRow,
    TextSpan,
)
from gtreview.core.rubric import Evidence
from gtreview.corpus.locators import CorpusIndex
from gtreview.ui.widgets.source_pane import SourcePane


def _pane(qtbot, document: ParsedDocument) -> SourcePane:  # type: ignore[no-untyped-def]
    pane = SourcePane()
    qtbot.addWidget(pane)
    pane.resize(300, 180)  # the pane at 1280x720: about 140 px for the page, narrow
    pane.show()
    qtbot.waitExposed(pane)
    pane.set_index(CorpusIndex([document]))
    return pane


def _visible(pane: SourcePane, text: str) -> bool:
    """Whether ``text`` in the page is inside the browser's viewport."""
    browser = pane.browser
    found = browser.document().find(text)
    assert not found.isNull(), text
    cursor = QTextCursor(found)
    top = browser.cursorRect(cursor)
    return 0 <= top.top() and top.bottom() <= browser.viewport().height()


def test_the_cited_lines_are_in_view_in_a_small_pane(qtbot) -> None:  # type: ignore[no-untyped-def]
    lines = tuple(f"line {n} of the report, long enough to wrap in a narrow pane" for n in range(1, 81))
    document = ParsedDocument(
        name="report.txt",
        title="r",
        kind=SourceKind.TEXT,
        sha256="0",
        size_bytes=1,
        pages=[PageText(number=1, lines=lines)],
    )
    pane = _pane(qtbot, document)
    span = TextSpan(document="report.txt", page=1, line_start=40, line_end=41, text="")
    resolution = LocatorResolution(
        source="report.txt",
        locator="page=1;lines=40-41",
        status=LocatorStatus.RESOLVED,
        document="report.txt",
        spans=[span],
    )
    pane.show_evidence([Evidence(claim="c", source="report.txt", locator="page=1;lines=40-41")], [resolution])
    qtbot.waitUntil(lambda: _visible(pane, "line 40 of the report"))
    assert _visible(pane, "line 41 of the report")
    assert not _visible(pane, "line 37 of the report")  # no room for the context: the cited lines come first


def test_a_cited_csv_cell_is_in_view(qtbot) -> None:  # type: ignore[no-untyped-def]
    columns = [f"COLUMN_{n}" for n in range(1, 25)]
    row = TableRow(index=7, key="2047", cells={c: f"value of {c}" for c in columns})
    document = ParsedDocument(
        name="deposits.csv",
        title="d",
        kind=SourceKind.CSV,
        sha256="0",
        size_bytes=1,
        columns=columns,
        key_column="COLUMN_1",
        rows=[row],
    )
    pane = _pane(qtbot, document)
    cell = CellRef(document="deposits.csv", row_index=7, row_key="2047", columns=("COLUMN_16",), values=("",))
    resolution = LocatorResolution(
        source="deposits.csv",
        locator="COLUMN_1=2047;column COLUMN_16",
        status=LocatorStatus.RESOLVED,
        document="deposits.csv",
        cells=[cell],
    )
    pane.show_evidence([Evidence(claim="c", source="deposits.csv", locator=resolution.locator)], [resolution])
    qtbot.waitUntil(lambda: _visible(pane, "value of COLUMN_16"))


def test_the_cited_lines_stay_in_view_when_the_pane_is_laid_out_smaller(qtbot) -> None:  # type: ignore[no-untyped-def]
    lines = tuple(f"line {n} of the report, long enough to wrap in a narrow pane" for n in range(1, 81))
    document = ParsedDocument(
        name="report.txt",
        title="r",
        kind=SourceKind.TEXT,
        sha256="0",
        size_bytes=1,
        pages=[PageText(number=1, lines=lines)],
    )
    pane = _pane(qtbot, document)
    pane.resize(300, 700)  # before the window is laid out (maximised) the pane is tall
    qtbot.waitUntil(lambda: pane.browser.viewport().height() > 400)
    span = TextSpan(document="report.txt", page=1, line_start=40, line_end=41, text="")
    resolution = LocatorResolution(
        source="report.txt",
        locator="page=1;lines=40-41",
        status=LocatorStatus.RESOLVED,
        document="report.txt",
        spans=[span],
    )
    pane.show_evidence([Evidence(claim="c", source="report.txt", locator="page=1;lines=40-41")], [resolution])
    pane.resize(300, 180)
    qtbot.waitUntil(lambda: _visible(pane, "line 40 of the report") and _visible(pane, "line 41 of the report"))
