"""The project's flow in the main window: importing a corpus and a rubric (in a worker,
with progress), what an empty project says to do next, the Runs page re-read every few
seconds while it is shown or a pass runs, resuming a stopped pass, and a signed release.

A mixin of MainWindow (through ``PagesMixin``); every use case is the ``gtreview.app``
function the CLI calls (``corpus import``, ``rubric import``, ``run``, ``release``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QFileDialog, QMessageBox, QProgressDialog, QWidget

from gtreview.app.corpus_import import CorpusImportReport, import_corpus
from gtreview.app.project_settings import set_last_pass
from gtreview.app.releases import ReleaseInfo, create_release_bundle
from gtreview.app.results import RunSummary, run_summaries
from gtreview.app.rubric_files import read_rubric_source
from gtreview.app.rubrics import RubricImport, import_rubric
from gtreview.core.activity import JobKind
from gtreview.runs.plan import PassConfig
from gtreview.ui.activity import ActivityBoard
from gtreview.ui.dialogs.new_folder import ask_new_folder, unused
from gtreview.ui.dialogs.preferences import signing_key
from gtreview.ui.ops import BackgroundJob, CollectionOp, OpChanges, failure_message, notify


def uncalibrated_note(qids: list[str] | None) -> str:
    """What a sign-off or release says of questions approved while calibration was not required."""
    if not qids:
        return ""
    return f" Calibration was not required when {len(qids)} of its questions were approved: {', '.join(qids[:8])}" + (
        "…" if len(qids) > 8 else "."
    )


RUNS_POLL_MS = 3000  # how often the runs are re-read while the Runs page is shown or a pass runs
CORPUS_FILTER = "Corpus files (*.pdf *.txt *.md *.csv);;All files (*)"
RUBRIC_FILTER = "Rubric files (*.json);;All files (*)"
NO_SETS_HTML = (
    "<h3>No benchmark set yet</h3>"
    "<p>Import a rubric file (Groundtruth JSON) with <b>File &gt; Import rubric…</b>; its questions "
    "open here for review beside their sources.</p>"
    "<p>Import the source documents first with <b>File &gt; Import corpus…</b>, so that each "
    "question's evidence locators are checked as the set arrives, or draft a set from the corpus "
    "with <b>Run &gt; Draft a set from the corpus…</b>.</p>"
)


class _ImportProgress(QObject):
    """A worker's progress, brought to the GUI thread (the signal is queued across threads)."""

    advanced = Signal(int, int, str)  # files done, files in all, the file being read


class FlowMixin:
    """Expects the MainWindow attributes it uses."""

    project: Any
    pages: Any
    navigator: Any
    runs_view: Any
    run_controller: Any
    releases: Any  # the release page's ReleaseController
    results: Any  # the results page's ResultsController
    question_view: Any
    question_list: Any
    settings: Any
    reviewer_name: Any
    open_set: Any
    _runs: Any  # the LatestQuery of the run summaries

    @property
    def set_id(self) -> int | None:
        raise NotImplementedError

    @property
    def _flow_widget(self) -> QWidget:
        return cast(QWidget, self)

    # -- the Runs page ----------------------------------------------------------------
    def _connect_flow(self) -> None:
        """What the flow listens to (called once the window's parts exist)."""
        self.runs_timer = QTimer(self._flow_widget)
        self.runs_timer.setInterval(RUNS_POLL_MS)
        self.runs_timer.timeout.connect(self._poll_runs)
        self.pages.currentChanged.connect(lambda _index: self._update_runs_polling())
        self.run_controller.started.connect(self._pass_started)
        self.run_controller.finished.connect(lambda _message: self._update_runs_polling())
        self.runs_view.resume_requested.connect(self.run_controller.resume)
        self.navigator.import_requested.connect(
            lambda what: self.ask_import_corpus() if what == "corpus" else self.ask_import_rubric()
        )

    def _update_runs_polling(self) -> None:
        """Re-read the runs while the Runs page is shown or this window's pass runs."""
        wanted = not getattr(self, "closing", False) and (
            self.pages.currentWidget() is self.runs_view or self.run_controller.running
        )
        if wanted and not self.runs_timer.isActive():
            self.runs_timer.start()
        elif not wanted:
            self.runs_timer.stop()

    def _poll_runs(self) -> None:
        if not self._runs.pending:  # a slow read is never stacked behind another
            self.read_runs()

    def read_runs(self) -> None:
        if getattr(self, "closing", False):
            return
        engine = self.project.engine
        self._runs.run(lambda: run_summaries(engine), self.show_run_summaries)

    def show_run_summaries(self, runs: list[RunSummary]) -> None:
        """The runs as just read, in the Runs view and in the navigator's Runs branch."""
        self.runs_view.show_runs(runs)
        self.navigator.show_runs(runs)
        self.results.runs_read(runs)  # a shown pass that stopped or finished is read again

    def remember_pass(self, config: PassConfig) -> None:
        """The Run dialog starts from this pass next time (kept in the project)."""
        engine = self.project.engine

        def save() -> OpChanges:
            return set_last_pass(engine, config)

        CollectionOp(self._flow_widget, save).run_in_background()

    def _pass_started(self, name: str) -> None:
        self.runs_view.started(name)
        self._update_runs_polling()
        QTimer.singleShot(300, self._flow_widget, self.read_runs)  # listed as soon as the worker has made it

    # -- importing, and what an empty project says ------------------------------------
    def show_empty_states(self, overview: Any) -> None:
        """A project with no set says what to do next, where the question would be."""
        if not overview.sets:
            self.question_view.setHtml(NO_SETS_HTML)
            self.question_list.set_rows([])  # the list says so too

    def ask_import_corpus(self, files: bool = False) -> None:
        widget = self._flow_widget
        if files:
            chosen, _ = QFileDialog.getOpenFileNames(widget, "Import corpus files", "", CORPUS_FILTER)
            paths = [Path(f) for f in chosen]
        else:
            folder = QFileDialog.getExistingDirectory(widget, "Import a corpus folder (.pdf, .txt, .md, .csv)")
            paths = [Path(folder)] if folder else []
        if paths:
            self.import_corpus(paths)

    def import_corpus(self, paths: list[Path]) -> None:
        """Parse and store the files in a worker (all or nothing), with a progress dialog."""
        engine, widget, has_set = self.project.engine, self._flow_widget, self.set_id is not None
        progress = QProgressDialog("Reading the corpus…", "", 0, 0, widget)
        progress.setWindowTitle("Importing the corpus")
        progress.setCancelButton(None)  # an import stores everything or nothing, at its end
        progress.setWindowModality(Qt.WindowModality.WindowModal)
        progress.setMinimumDuration(0)
        relay = _ImportProgress(widget)
        self.import_progress: list[tuple[int, int]] = []  # what the dialog showed (for tests)

        def advance(done: int, total: int, name: str) -> None:
            self.import_progress.append((done, total))
            progress.setRange(0, max(1, total))
            progress.setValue(done)
            progress.setLabelText(f"Reading {name} ({done + 1} of {total})…" if name else "Storing the documents…")

        relay.advanced.connect(advance)

        def work() -> CorpusImportReport:
            return import_corpus(engine, paths, progress=relay.advanced.emit)

        def finish() -> None:
            progress.reset()
            progress.hide()
            progress.deleteLater()
            relay.deleteLater()

        def done(report: CorpusImportReport) -> None:
            finish()
            notify(
                widget,
                f"Imported {len(report.added)} documents ({len(report.unchanged)} already in the project)."
                + ("" if has_set else " Next: File > Import rubric…"),
                "success",
            )

        def failed(error: BaseException) -> None:
            finish()
            notify(widget, f"Corpus not imported: {failure_message(error)}", "error")

        progress.show()
        CollectionOp(widget, work).success(done).failure(failed).run_in_background(initiator=widget)

    def ask_import_rubric(self) -> None:
        chosen, _ = QFileDialog.getOpenFileName(
            self._flow_widget, "Import a rubric as a benchmark set", "", RUBRIC_FILTER
        )
        if chosen:
            self.import_rubric(Path(chosen))

    def import_rubric(self, path: Path, *, as_new: bool = False) -> None:
        """Read the file and store it as a new set in a worker; the set opens once it is in.
        A file already imported opens its set and offers a second, independent copy."""
        engine, widget, actor = self.project.engine, self._flow_widget, self.reviewer_name()
        notify(widget, f"Importing {path.name}…", "info")

        def work() -> RubricImport:
            return import_rubric(engine, read_rubric_source(path), actor=actor, as_new=as_new)

        def done(imported: RubricImport) -> None:
            if imported.already_in_project:
                notify(widget, f"{path.name} is already in the project as set {imported.set_id}; nothing was added.")
                self.open_set(imported.set_id)
                self._offer_copy(path, imported.set_id)
                return
            unresolved = len(imported.locators.unresolved) if imported.corpus_checked else 0
            notify(
                widget,
                f"Imported {imported.questions} questions as set {imported.set_id}: {imported.findings_text()}.",
                "warning" if unresolved or imported.errors else "success",
            )
            self.open_set(imported.set_id)

        CollectionOp(widget, work).success(done).failure(
            lambda error: notify(widget, f"Rubric not imported: {failure_message(error)}", "error")
        ).run_in_background(initiator=widget)

    def _offer_copy(self, path: Path, set_id: int) -> None:
        """Ask (without blocking the window) whether a second copy of an imported file is wanted:
        the existing set is the default, a copy is asked for, never made by mistake."""
        box = QMessageBox(self._flow_widget)
        box.setObjectName("import_copy")
        box.setWindowTitle("Already imported")
        box.setText(f"{path.name} is already in the project as set {set_id}.")
        box.setInformativeText("Keep working in that set, or import the file again as a new, independent set?")
        keep = box.addButton(f"Open set {set_id}", QMessageBox.ButtonRole.RejectRole)
        copy = box.addButton("Import as a &new copy", QMessageBox.ButtonRole.AcceptRole)
        box.setDefaultButton(keep)
        box.buttonClicked.connect(lambda button: self.import_rubric(path, as_new=True) if button is copy else None)
        box.open()

    # -- a signed release -----------------------------------------------------------------
    def publish_release(self, out_dir: Path | None = None) -> None:
        """A signed release of the open set's latest sign-off, signed with the key chosen in Preferences."""
        widget, set_id, key = self._flow_widget, self.set_id, signing_key(self.settings)
        if set_id is None:
            notify(widget, "Open a signed-off set first.", "warning")
            return
        if not key:
            notify(widget, "Choose or create a signing key in Edit > Preferences first.", "warning")
            return
        if out_dir is None:
            out_dir = ask_new_folder(
                widget,
                "Publish signed release",
                "The release's folder (a new one is made; an existing one must be empty):",
                unused(self.project.folder / "releases" / "release"),
            )
            if out_dir is None:
                return
        engine, target, folder = self.project.engine, out_dir, self.project.folder

        def done(info: ReleaseInfo) -> None:
            self.releases.reload()  # the release page lists the new bundle
            notify(
                widget,
                f"Released {info.set_name} sign-off #{info.signoff_number} to {info.folder}, signed by {info.signer}."
                + uncalibrated_note(info.approved_without_calibration),
                "warning" if info.approved_without_calibration else "success",
            )

        ticket = ActivityBoard.of(widget).begin(JobKind.EXPORT, f"Signed release of set {set_id} to {target.name}")
        BackgroundJob(
            widget,
            op=lambda: create_release_bundle(engine, set_id, key=key, out_dir=target, project_folder=folder),
            success=done,
            ticket=ticket,
        ).failure(lambda error: notify(widget, f"No release: {failure_message(error)}", "error")).run_in_background()


__all__ = ["NO_SETS_HTML", "RUNS_POLL_MS", "FlowMixin"]
