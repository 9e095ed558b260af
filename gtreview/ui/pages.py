"""The main window's pages beyond reviewing: results, corpus exploration, adjudication.

A mixin of MainWindow, kept apart so that the window module only assembles parts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QFileDialog

from gtreview.results.analysis import analyse
from gtreview.results.loader import load_run_results
from gtreview.report.run_report import write_run_report
from gtreview.app.adjudication import agreement_report
from gtreview.app.corpus_review import inventory_with_confirmations
from gtreview.app.results import ResultsBundle, load_results, reportable_runs
from gtreview.ui.widgets.results_view import leaderboard_rows
from gtreview.ui.workers import start as start_worker


class PagesMixin:
    """Expects the MainWindow attributes it uses (project, pages, views, status bar)."""

    project: Any
    set_id: int | None
    pages: Any
    results_view: Any
    corpus_view: Any
    adjudication: Any

    statusBar: Any  # provided by QMainWindow (the mixin comes first in the bases)

    def show_results(self, run_id: int) -> None:
        """Analyse a pass in a worker and show it; the leaderboard compares every pass."""
        engine, set_id = self.project.engine, self.set_id
        self.statusBar().showMessage(f"Analysing run {run_id}…")

        def done(bundle: ResultsBundle) -> None:
            self.results_run_id = run_id
            self.results_view.set_runs(reportable_runs(engine), run_id)
            self.results_view.show_results(bundle.results, bundle.analysis, bundle.status)
            self.results_view.set_leaderboard(leaderboard_rows(bundle.leaderboard))
            self.pages.setCurrentWidget(self.results_view)
            self.statusBar().showMessage(f"Run {run_id} analysed.", 4000)

        self._results_worker = start_worker(
            lambda: load_results(engine, run_id, set_id),
            done,
            lambda reason: self.statusBar().showMessage(f"Cannot show run {run_id}: {reason}", 10000),
        )

    def export_report(self, path: Path | None = None) -> None:
        run_id = getattr(self, "results_run_id", None)
        if run_id is None:
            self.statusBar().showMessage("Open a pass's results first (Runs in the navigator).", 5000)
            return
        if path is None:
            chosen, _ = QFileDialog.getSaveFileName(self, "Export report", f"run-{run_id}.pdf", "PDF (*.pdf)")
            if not chosen:
                return
            path = Path(chosen)
        engine = self.project.engine
        target = path

        def work() -> Path:
            results = load_run_results(engine, run_id)
            return write_run_report(
                results, analyse(results), target, agreement=agreement_report(engine, run_id, results=results)
            )

        self._report_worker = start_worker(
            work,
            lambda out: self.statusBar().showMessage(f"Wrote {out}", 10000),
            lambda reason: self.statusBar().showMessage(f"Report failed: {reason}", 10000),
        )

    def show_corpus(self) -> None:
        """The corpus exploration report, computed in a worker (a few seconds on large corpora)."""
        engine = self.project.engine
        self.statusBar().showMessage("Exploring the corpus…")

        def done(inventory: object) -> None:
            self.corpus_view.show_inventory(inventory)  # type: ignore[arg-type]
            self.pages.setCurrentWidget(self.corpus_view)
            self.statusBar().showMessage("Corpus explored.", 4000)

        self._corpus_worker = start_worker(
            lambda: inventory_with_confirmations(engine),
            done,
            lambda reason: self.statusBar().showMessage(f"Cannot explore the corpus: {reason}", 10000),
        )

    def _run_for_expert(self) -> int | None:
        run_id = getattr(self, "results_run_id", None)
        if run_id is None:
            runs = reportable_runs(self.project.engine)
            run_id = runs[-1][0] if runs else None
        if run_id is None:
            self.statusBar().showMessage("No pass yet: run one first (Run > Run a pass).", 5000)
        return run_id

    def show_adjudication(self) -> None:
        run_id = self._run_for_expert()
        if run_id is not None:
            self.adjudication.open_queue(run_id, self.set_id)
            self.pages.setCurrentWidget(self.adjudication.queue_view)

    def show_grading(self) -> None:
        run_id = self._run_for_expert()
        if run_id is not None:
            self.adjudication.open_grading(run_id)
            self.pages.setCurrentWidget(self.adjudication.grading_view)
