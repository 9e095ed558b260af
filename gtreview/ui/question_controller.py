"""The review page: a set's question list, the question tabs and the sources beside them.

Every read is an op (the list, one question's tabs, a diff); a change refreshes only the
rows it names and the tabs when their question is among them.

The tabs show the question selected in the list, and only while the filters show its
row: a search that hides it empties them (what was being typed is saved first), and the
review actions have nothing to act on until a visible row is selected. Findings include
the evidence locators the corpus does not resolve, live in the editor and counted in
the list.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, QUrl, Signal
from PySide6.QtWidgets import QTabWidget, QTextBrowser, QWidget
from sqlalchemy import Engine

from gtreview.app import editing, review
from gtreview.app.in_set import InSet
from gtreview.core.jsonpath import Path as JsonPath
from gtreview.core.review_flow import ReviewAction, allows
from gtreview.ui.ops import LatestQuery, OpChanges, QueryOp, notify
from gtreview.ui.project_index import SharedIndex
from gtreview.ui.widgets import html
from gtreview.ui.widgets.fixture_editor import FixtureEditor
from gtreview.ui.widgets.history_view import HistoryView, change_requests_html, retirement, retirement_html
from gtreview.ui.widgets.question_editor import QuestionEditor
from gtreview.ui.widgets.question_list import QuestionList
from gtreview.ui.widgets.source_pane import SourcePane


@dataclass
class ReviewWidgets:
    question_list: QuestionList
    question_view: QTextBrowser
    editor: QuestionEditor
    fixtures: FixtureEditor
    history: HistoryView
    source_pane: SourcePane
    tabs: QTabWidget


@dataclass(frozen=True)
class _Pane:
    pane: review.QuestionPane
    html: str


NO_QUESTION_HTML = (
    "<p><i>No question is shown.</i> Select one in the list; the search and the filters may hide the "
    "question that was selected.</p>"
)


class QuestionController(QObject):
    status_changed = Signal()  # the set's name, sign-offs or row counts changed
    set_opened = Signal(int)
    target_changed = Signal()  # the question the review actions would act on may have changed
    version_shown = Signal(int, str, int)  # set id, question id, the version the editor now holds

    def __init__(self, engine: Engine, index: SharedIndex, widgets: ReviewWidgets, parent: QObject) -> None:
        super().__init__(parent)
        self.engine, self.index, self.w = engine, index, widgets
        self.set_id: int | None = None
        self.qid: str | None = None  # the question selected in the list
        self.shown: tuple[int, str] | None = None  # the question the tabs show (and edits go to)
        self.overview: review.SetOverview | None = None
        self._rows = LatestQuery(self)
        self._pane = LatestQuery(self)
        self._refused: tuple[int, str, JsonPath, Any] | None = None  # an edit refused as a conflict, to put back
        self._diff = LatestQuery(self)
        self._hidden: dict[QWidget, Callable[[], None]] = {}  # tabs to redraw when turned to
        self._resetting = False  # the list is being refilled: the selection comes back after
        widgets.tabs.currentChanged.connect(self._tab_shown)
        widgets.question_list.question_selected.connect(self.show_question)
        widgets.history.diff_requested.connect(self._request_diff)
        widgets.question_view.setOpenLinks(False)  # a link to another question shows it here
        widgets.question_view.anchorClicked.connect(self._follow_link)
        self._in_set: InSet | None = None  # the shown question's set, as its findings read it
        widgets.editor.checks = lambda content: review.question_findings(content, index.ready, self._in_set)
        proxy = widgets.question_list.proxy
        for signal in (proxy.rowsRemoved, proxy.rowsInserted, proxy.layoutChanged, proxy.modelReset):
            signal.connect(self._follow_filter)
        widgets.question_list.table.selectionModel().currentRowChanged.connect(self._follow_filter)

    # -- what is on screen ---------------------------------------------------------
    def review_target(self, page_shown: bool) -> tuple[int | None, str | None]:
        """What the review actions act on: the set while its question page is shown, and
        the selected question while the filters show its row."""
        if not page_shown or self.set_id is None:
            return None, None
        qid = self.qid
        if qid is None or self.w.question_list.current_qid() != qid:
            return self.set_id, None
        return self.set_id, qid

    def _follow_filter(self) -> None:
        """The filters (or a refill) changed the rows: empty the tabs if their question went."""
        if self._resetting:
            return
        if self.qid is not None and self.w.question_list.current_qid() is None:
            self._clear_pane()
        self.target_changed.emit()

    def _clear_pane(self) -> None:
        self.w.editor.commit_pending()  # belongs to the question being hidden
        self.qid, self.shown = None, None
        self._pane.cancel()
        self._hidden.clear()
        self.w.question_view.setHtml(NO_QUESTION_HTML)
        self.w.editor.clear()
        self.w.editor.set_locked("")
        self.w.editor.setEnabled(False)
        self.w.fixtures.load({})
        self.w.fixtures.findings.setVisible(False)
        self.w.fixtures.setEnabled(False)
        self.w.history.show_history([], [])
        self.w.source_pane.clear()

    # -- reading -----------------------------------------------------------------
    def open_set(self, set_id: int, select: str | None = None) -> None:
        """Show the set's questions; ``select`` keeps a question selected (else the first)."""
        self.w.editor.commit_pending()
        if set_id != self.set_id:
            self.qid = None
        elif select is None:
            select = self.qid  # the same set again (back from another page) keeps its place
        self.set_id = set_id
        engine, index = self.engine, self.index
        self._rows.run(
            lambda: review.set_overview(engine, set_id, index=index.get()), lambda o: self._show_set(o, select)
        )

    def _show_set(self, overview: review.SetOverview, select: str | None) -> None:
        if overview.set_id != self.set_id:
            return
        self.overview = overview
        listing = self.w.question_list
        self._resetting = True
        try:
            listing.set_rows(overview.rows, select_first=select is None, key=overview.set_id)
            if (
                select is not None
                and listing.current_qid() != select
                and not listing.select(select)
                and listing.proxy.rowCount()
            ):
                listing.table.selectRow(0)
        finally:
            self._resetting = False
        self._follow_filter()  # the filters may show none of the rows
        self.status_changed.emit()
        self.set_opened.emit(overview.set_id)

    def show_question(self, qid: str) -> None:
        if self.set_id is None:
            return
        if self.shown != (self.set_id, qid):
            self.w.editor.commit_pending()  # belongs to the question being left
        self.qid = qid
        self.target_changed.emit()
        self._load_pane(self.set_id, qid)

    def _load_pane(self, set_id: int, qid: str) -> None:
        engine, index = self.engine, self.index

        def read() -> _Pane:
            pane = review.question_pane(engine, index.get(), set_id, qid)
            detail = pane.detail
            return _Pane(
                pane,
                change_requests_html(pane.history)  # what was asked, where the question is reviewed
                + retirement_html(pane.history, detail.review_status)  # who retired it, when and why
                + html.question_html(
                    detail.question, detail.review_status.value, detail.version, detail.findings, detail.paraphrases
                ),
            )

        self._pane.run(read, self._show_pane)

    def _show_pane(self, loaded: _Pane) -> None:
        pane, detail = loaded.pane, loaded.pane.detail
        key = (detail.set_id, detail.question.id)
        if key != (self.set_id, self.qid):
            return  # the list has moved on
        same = key == self.shown
        self.shown = key
        content = detail.question.to_json_dict()
        self._in_set = detail.in_set()
        self._when_shown(self.w.question_view, lambda: self.w.question_view.setHtml(loaded.html))
        self.w.editor.load(content, same_question=same)
        self.version_shown.emit(detail.set_id, detail.question.id, detail.version)
        refused, self._refused = self._refused, None
        if refused is not None and refused[:2] == key:
            self.w.editor.keep_unsaved(refused[2], refused[3])
        self.w.fixtures.load(content, pane.calibration)
        if refused is not None and refused[:2] == key:
            self.w.fixtures.keep_unsaved(refused[2], refused[3])  # after the newer fixtures are shown
        editable = allows(detail.review_status, ReviewAction.EDIT)  # retired questions stay as they were retired
        retired = retirement(pane.history, detail.review_status)
        self.w.editor.set_locked("" if editable else f"{retired} It cannot be edited.")
        self.w.fixtures.setEnabled(editable)
        self._when_shown(self.w.history, lambda: self.w.history.show_history(pane.history, pane.versions))
        if self.w.source_pane.index is None and self.index.ready is not None:
            self.w.source_pane.set_index(self.index.ready)
        # the same question again keeps its place, and is redrawn only if its evidence changed
        self.w.source_pane.show_evidence(detail.question.evidence, detail.evidence, keep_place=same)

    def _when_shown(self, tab: QWidget, draw: Callable[[], None]) -> None:
        """Draw a tab now if it is the one shown, else when it is turned to (the question's
        rendered page and its history are the slow ones, and only one tab shows at a time)."""
        if self.w.tabs.currentWidget() is tab:
            self._hidden.pop(tab, None)
            draw()
        else:
            self._hidden[tab] = draw

    def _tab_shown(self, _position: int) -> None:
        draw = self._hidden.pop(self.w.tabs.currentWidget(), None)
        if draw is not None:
            draw()

    def _request_diff(self, old: int, new: int) -> None:
        if self.shown is None:
            return
        engine, (set_id, qid) = self.engine, self.shown
        self._diff.run(
            lambda: editing.diff_versions(engine, set_id, qid, old, new),
            lambda text: self.w.history.show_diff(old, new, text),
        )

    def show_newer_keeping(self, set_id: int, qid: str, path: JsonPath, value: Any) -> bool:
        """An edit was refused because someone saved a newer version: show that version,
        with the refused value put back in its field (unsaved, for the expert to commit
        again on top). False when the field is not on screen to keep it."""
        keep = (set_id, qid) == self.shown and (self.w.editor.shows_field(path) or self.w.fixtures.shows_field(path))
        self._refused = (set_id, qid, path, value) if keep else None
        self.reload_shown()
        return keep

    def reload_shown(self) -> None:
        """Show what is saved (after a refused edit)."""
        if self.shown is not None and self.shown == (self.set_id, self.qid):
            self._load_pane(*self.shown)

    def go_to(self, qid: str) -> bool:
        """Show ``qid`` of the open set (a paraphrase's original, one of its paraphrases);
        False, said in a notice, when the filters hide it."""
        if self.w.question_list.select(qid):
            return True
        notify(self, f"{qid} is not in the list as filtered; clear the search and filters to show it.", "warning")
        return False

    def _follow_link(self, url: QUrl) -> None:
        if url.scheme() == html.QUESTION_LINK:
            self.go_to(url.path())

    def expect(self, set_id: int, qid: str) -> None:
        """A change is adding ``qid`` to the open set: select it when the set is read again."""
        if set_id == self.set_id:
            self.w.editor.commit_pending()  # belongs to the question being left
            self.qid = qid

    # -- after a change ------------------------------------------------------------
    def renamed(self, set_id: int, old: str, new: str) -> None:
        if set_id != self.set_id:
            return
        if self.qid == old:
            self.qid = new
        if self.shown == (set_id, old):
            self.shown = (set_id, new)

    def on_changes(self, changes: OpChanges, _initiator: object = None) -> None:
        set_id = self.set_id
        if set_id is None:
            return
        if changes.corpus:
            self.index.invalidate()
        if set_id in changes.sets:
            self.open_set(set_id, select=self.qid)
            return
        qids = sorted(changes.question_ids(set_id))
        if qids:
            engine, index = self.engine, self.index
            QueryOp(
                self, op=lambda: review.set_overview(engine, set_id, qids, index.get()), success=self._update_rows
            ).run_in_background()
        # the question shown, or the one being read (its read may have started before the change)
        if self.qid is not None and (self.qid in qids or changes.corpus):
            self._load_pane(set_id, self.qid)

    def _update_rows(self, overview: review.SetOverview) -> None:
        if overview.set_id != self.set_id:
            return
        for row in overview.rows:
            self.w.question_list.model.update_row(row.qid, row)
        self.overview = overview.model_copy(update={"rows": []})
        self.status_changed.emit()

    # -- the status line -------------------------------------------------------------
    def status_text(self) -> str:
        if self.set_id is None or self.overview is None:
            return "no benchmark set"
        rows = self.w.question_list.model.rows()
        counts = review.status_counts(rows)
        summary = " · ".join(f"{status.value.replace('_', ' ')} {count}" for status, count in counts.items())
        signoffs = self.overview.signoffs
        changed = (
            " (changed since)"
            if signoffs and review.changed_since_signoff(rows, signoffs[-1], self.overview.edited_since_signoff)
            else ""
        )
        signed = f" | signed off #{signoffs[-1].number}{changed}" if signoffs else ""
        return f"Set: {self.overview.name}{signed} | {len(rows)} questions: {summary}"
