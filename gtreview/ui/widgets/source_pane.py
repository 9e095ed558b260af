"""Source passages beside a question: the evidence items and the page each one cites."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from gtreview.core.corpus import LocatorResolution, ParsedDocument
from gtreview.core.rubric import Evidence
from gtreview.corpus.locators import CorpusIndex
from gtreview.ui.widgets import html
from gtreview.ui.widgets.labels import ElidedLabel

CONTEXT_LINES = 3  # lines shown above the cited ones, room allowing


class SourcePane(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._index: CorpusIndex | None = None
        self._evidence: list[tuple[Evidence, LocatorResolution]] = []
        self._document: ParsedDocument | None = None
        self._page_position = 0
        self._cited: dict[int, set[int]] = {}
        self._placed: tuple[int, int, int] | None = None  # the cited lines scrolled to, and where

        self.evidence_list = QListWidget()
        self.evidence_list.setWordWrap(True)
        self.evidence_list.currentRowChanged.connect(self._show_evidence)
        self.browser = html.HtmlBrowser()  # its highlights follow the theme
        self.browser.setOpenLinks(False)
        self.browser.viewport().installEventFilter(self)
        self.previous_button = QPushButton("◀ Page")
        self.next_button = QPushButton("Page ▶")
        self.page_label = ElidedLabel()  # a long document name never widens the window
        # Which evidence is shown stays above the page: scrolled to a cited line deep in
        # the page, the reader still sees what the lines are meant to support.
        self.evidence_heading = ElidedLabel()
        self.previous_button.clicked.connect(lambda: self._turn(-1))
        self.next_button.clicked.connect(lambda: self._turn(1))

        navigation = QHBoxLayout()
        navigation.addWidget(self.previous_button)
        navigation.addWidget(self.page_label, 1, Qt.AlignmentFlag.AlignCenter)
        navigation.addWidget(self.next_button)
        lower = QWidget()
        lower_layout = QVBoxLayout(lower)
        lower_layout.setContentsMargins(0, 0, 0, 0)
        lower_layout.addWidget(self.evidence_heading)
        lower_layout.addLayout(navigation)
        lower_layout.addWidget(self.browser)

        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.addWidget(self.evidence_list)
        self.splitter.addWidget(lower)
        self.splitter.setStretchFactor(1, 3)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel("<b>Evidence and sources</b>"))
        layout.addWidget(self.splitter)
        self._update_navigation()

    def changeEvent(self, event: QEvent) -> None:
        """A new theme: the unresolved items take its red (the old one may not read on it)."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            for position, (_item, resolution) in enumerate(self._evidence):
                entry = self.evidence_list.item(position)
                if entry is not None and not resolution.resolved:
                    entry.setForeground(QColor(html.colours().error))

    def set_index(self, index: CorpusIndex) -> None:
        self._index = index

    @property
    def index(self) -> CorpusIndex | None:
        return self._index

    def show_evidence(
        self, evidence: list[Evidence], resolutions: list[LocatorResolution], *, keep_place: bool = False
    ) -> None:
        """List the evidence with what each locator resolves to and show the first item;
        ``keep_place`` (the same question again) redraws only what changed, on the item shown."""
        shown = list(zip(evidence, resolutions, strict=True))
        if keep_place and shown == self._evidence:
            return  # nothing changed: no redraw, the page stays where it was scrolled
        place = self.evidence_list.currentRow() if keep_place else 0
        self._evidence = shown
        self.evidence_list.clear()
        for position, (item, resolution) in enumerate(self._evidence):
            label = html.evidence_label(position, item.claim or "", resolution)
            detail = f"{item.authority or '?'} · {item.confidence or '?'} · {item.source} | {item.locator}"
            entry = QListWidgetItem(f"{label}\n    {detail}")
            if not resolution.resolved:
                entry.setForeground(QColor(html.colours().error))  # the theme's red, read on either ground
                entry.setToolTip(resolution.reason)
            self.evidence_list.addItem(entry)
        if self._evidence:
            self.evidence_list.setCurrentRow(min(max(place, 0), len(self._evidence) - 1))
        else:
            self._document = None
            self.evidence_heading.setText("")
            self.browser.setHtml("<p>This question cites no evidence.</p>")
            self._update_navigation()

    def clear(self) -> None:
        """No question shown: no evidence, no page."""
        self._evidence = []
        self.evidence_list.clear()
        self._document = None
        self.evidence_heading.setText("")
        self.browser.setHtml("")
        self._update_navigation()

    def _show_evidence(self, row: int) -> None:
        if not 0 <= row < len(self._evidence) or self._index is None:
            return
        self._placed = None
        item, resolution = self._evidence[row]
        heading = f"Evidence {row + 1}: {item.claim or ''}"
        self.evidence_heading.setText(heading)
        self.evidence_heading.setToolTip(heading)  # a long claim is elided; the tooltip has all of it
        document = self._index.match(resolution.document or item.source or "") if resolution.resolved else None
        if document is None:
            self._document = None
            self.browser.setHtml(html.unresolved_html(resolution))
        elif document.is_table:
            self._document = None
            self.browser.setHtml(html.table_html(document, resolution))
            self.browser.scrollToAnchor(html.CITED_ANCHOR)  # the cited cell, not the row's first columns
        else:
            self._document = document
            self._cited = {}
            for span in resolution.spans:
                self._cited.setdefault(span.page, set()).update(range(span.line_start, span.line_end + 1))
            first_page = resolution.spans[0].page if resolution.spans else document.pages[0].number
            self._page_position = next(i for i, p in enumerate(document.pages) if p.number == first_page)
            self._render_page()
            if resolution.spans:
                span = resolution.spans[0]
                self._scroll_to_line(span.line_start, span.line_end)
        self._update_navigation()

    def _scroll_to_line(self, first: int, last: int) -> None:
        """The cited lines at the top of the view, below up to three lines of context where
        the view has room for them too (at 1280x720 it shows three or four short lines, and
        a narrow pane wraps each line: measured, not counted)."""
        bar = self.browser.verticalScrollBar()

        def top_of(line: int) -> int:
            self.browser.scrollToAnchor(f"L{line}")
            return bar.value()

        cited_top = top_of(first)
        cited_bottom = top_of(last + 1) if bar.value() < bar.maximum() else bar.maximum() + bar.pageStep()
        room = self.browser.viewport().height() - (cited_bottom - cited_top)
        place = cited_top
        for context in range(min(CONTEXT_LINES, first - 1), 0, -1):
            above = top_of(first - context)
            if cited_top - above <= room:
                place = above
                break
        bar.setValue(place)
        self._placed = (first, last, place)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """The page resized (the window laid out, maximised, a splitter moved) before the
        reader scrolled: the cited lines are placed again for the new size."""
        placed = self._placed
        if (
            watched is self.browser.viewport()
            and event.type() == QEvent.Type.Resize
            and placed is not None
            and self.browser.verticalScrollBar().value() == placed[2]
        ):
            QTimer.singleShot(0, self, lambda: self._replace(placed))
        return False

    def _replace(self, placed: tuple[int, int, int]) -> None:
        if self._placed == placed:
            self._scroll_to_line(placed[0], placed[1])

    def _render_page(self) -> None:
        assert self._document is not None
        page = self._document.pages[self._page_position]
        self.browser.setHtml(html.page_html(page, self._cited.get(page.number, set())))

    def _turn(self, step: int) -> None:
        if self._document is None:
            return
        self._placed = None
        self._page_position = max(0, min(len(self._document.pages) - 1, self._page_position + step))
        self._render_page()
        self._update_navigation()

    def _update_navigation(self) -> None:
        document = self._document
        paged = document is not None and len(document.pages) > 0
        self.previous_button.setEnabled(paged and self._page_position > 0)
        self.next_button.setEnabled(paged and document is not None and self._page_position < len(document.pages) - 1)
        if document is not None and paged:
            self.page_label.setText(
                f"{document.name} — page {document.pages[self._page_position].number} of {len(document.pages)}"
            )
        else:
            self.page_label.setText("")
