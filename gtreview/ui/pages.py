"""The main window's pages beyond reviewing: results, corpus exploration, releases, adjudication.

A mixin of MainWindow, kept apart so that the window module only assembles parts.
Every page reads in a worker and is turned to once it has something to show.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

from PySide6.QtWidgets import QFileDialog, QWidget

from gtreview.app.corpus_review import inventory_with_confirmations, set_synonym_confirmed
from gtreview.app.exports import ExportResult, export_csv
from gtreview.app.reports import write_report
from gtreview.core.activity import JobKind
from gtreview.corpus.inventory import CorpusInventory
from gtreview.ui.activity import ActivityBoard
from gtreview.ui.flow import FlowMixin
from gtreview.ui.ops import BackgroundJob, CollectionOp, OpChanges, QueryOp, failure_message


class PagesMixin(FlowMixin):
    """Expects the MainWindow attributes it uses (project, pages, views, controllers, status bar)."""

    project: Any
    pages: Any
    results: Any  # ResultsController
    results_view: Any
    corpus_view: Any
    adjudication: Any
    releases: Any  # ReleaseController
    navigator: Any
    runs_view: Any
    work_splitter: Any
    show_runs: Any  # MainWindow.show_runs: the Runs page

    statusBar: Any  # provided by QMainWindow (the mixin comes first in the bases)
    notify: Any  # MainWindow.notify(text, kind): the one notice API

    @property
    def results_run_id(self) -> int | None:
        run_id: int | None = self.results.run_id
        return run_id

    @property
    def set_id(self) -> int | None:  # the window's: the set of the question page
        raise NotImplementedError

    @property
    def _widget(self) -> QWidget:
        """The window this mixin is part of, as the parent of its dialogs and operations."""
        return cast(QWidget, self)

    def _highlight_page(self) -> None:
        """The navigator highlights what the page shows (never a run behind the questions)."""
        page = self.pages.currentWidget()
        if page is self.work_splitter:
            self.navigator.show_page("set", self.set_id)
        elif page is self.runs_view:
            self.navigator.show_page("runs")
        elif page is self.results_view:
            self.navigator.show_page("run", self.results.run_id)
        elif page is self.corpus_view:
            self.navigator.show_page("corpus")
        elif page is self.releases.view:
            self.navigator.show_page("release", self.releases.signoff_id)
        else:
            self.navigator.show_page("")

    def show_results(self, run_id: int) -> None:
        """Analyse a pass in a worker and show it; the leaderboard compares every pass."""
        self.results.show_results(run_id)

    def resume_selected_pass(self) -> None:
        """Run > Resume the selected pass (F5): the pass selected in Runs."""
        if not self.runs_view.resume_selected():
            self.show_runs()
            self.notify("Select a stopped pass in Runs, then resume it (F5); one pass runs at a time.", "warning")

    def _export_target(self, path: Path | None, title: str, suffix: str, kind: str) -> tuple[int, Path] | None:
        """The run selected in Runs (that page shown) or the shown results' run, and the file to
        write it to (asked for when not given); None: nothing to do."""
        selected = self.runs_view.selected_run() if self.pages.currentWidget() is self.runs_view else None
        run_id = selected if selected is not None else self.results_run_id
        if run_id is None:
            self.notify("Select a run in Runs or open a pass's results first (Runs in the navigator).", "warning")
            return None
        if path is None:
            chosen, _ = QFileDialog.getSaveFileName(self._widget, title, f"run-{run_id}{suffix}", f"{kind} (*{suffix})")
            if not chosen:
                return None
            path = Path(chosen)
        return run_id, path

    def export_report(self, path: Path | None = None) -> None:
        asked = self._export_target(path, "Export report", ".pdf", "PDF")
        if asked is None:
            return
        (run_id, target), engine = asked, self.project.engine
        shown, analysis = self.results_view.results, self.results_view.analysis
        if shown is None or shown.run_id != run_id or self.results.stale:
            shown, analysis = None, None  # only the figures on screen when they are this run's and current

        def work() -> Path:
            return write_report(engine, run_id, target, results=shown, analysis=analysis).path

        self.notify(f"Writing the report of run {run_id} to {target}…", "info", 0)
        ticket = ActivityBoard.of(self._widget).begin(JobKind.EXPORT, f"Report of run {run_id} to {target.name}")
        BackgroundJob(
            self._widget, op=work, success=lambda out: self.notify(f"Wrote {out}", "success"), ticket=ticket
        ).failure(lambda error: self.notify(f"Report failed: {failure_message(error)}", "error")).run_in_background()

    def export_csv(self, path: Path | None = None) -> None:
        """The run's per-question figures as CSV: the app function ``gtreview export csv`` calls."""
        asked = self._export_target(path, "Export CSV", ".csv", "CSV")
        if asked is None:
            return
        (run_id, target), engine = asked, self.project.engine

        def done(result: ExportResult) -> None:
            said = f"Wrote {result.files[0]} ({result.rows} rows)" + "".join(f"; {w}" for w in result.warnings)
            self.notify(said, "warning" if result.warnings else "success")

        self.notify(f"Writing the CSV of run {run_id}…", "info", 0)
        BackgroundJob(self._widget, op=lambda: export_csv(engine, run_id, target), success=done).failure(
            lambda error: self.notify(f"CSV not written: {failure_message(error)}", "error")
        ).run_in_background()

    def show_corpus(self) -> None:
        """The corpus exploration report, computed in a worker (a few seconds on large corpora)."""
        engine = self.project.engine
        self.notify("Exploring the corpus…", "info", 0)

        def done(inventory: CorpusInventory) -> None:
            if inventory.documents:
                self.corpus_view.show_inventory(inventory)
            else:
                self.corpus_view.show_empty()  # says how to import one
            self.pages.setCurrentWidget(self.corpus_view)
            self.notify("Corpus explored.", "success")

        QueryOp(self._widget, op=lambda: inventory_with_confirmations(engine), success=done).failure(
            lambda error: self.notify(f"Cannot explore the corpus: {failure_message(error)}", "error")
        ).run_in_background()

    def confirm_synonym(self, canonical: str, forms: list[str], confirmed: bool) -> None:
        engine = self.project.engine

        def save() -> OpChanges:
            return set_synonym_confirmed(engine, canonical, forms, confirmed)

        CollectionOp(self._widget, save).run_in_background(initiator=self.corpus_view)

    def show_release(self, signoff_id: int) -> None:
        """A sign-off's release page: its bundles, Verify and Open folder."""
        self.releases.show(signoff_id, self._turn_to(self.releases.view))

    def show_adjudication(self) -> None:
        self.notify("Reading the adjudication queue…", "info", 0)
        self.adjudication.open_queue(self.results_run_id, self.set_id, self._turn_to(self.adjudication.queue_view))

    def show_grading(self) -> None:
        self.adjudication.open_grading(self.results_run_id, opened=self._turn_to(self.adjudication.grading_view))

    def _turn_to(self, page: Any) -> Any:
        def turn() -> None:
            self.pages.setCurrentWidget(page)
            self.statusBar().clearMessage()

        return turn
