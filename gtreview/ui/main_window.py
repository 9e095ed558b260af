"""The main window: assembles the navigator, question list, editors and sources."""

from __future__ import annotations

import getpass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSettings, QSize, Qt, Signal
from PySide6.QtWidgets import (
    QLabel,
    QMainWindow,
    QSplitter,
    QStackedWidget,
    QTabWidget,
    QTextBrowser,
    QWidget,
)

from gtreview.core.jsonpath import Path as JsonPath
from gtreview.runs.plan import PassConfig
from gtreview.app import editing, question_calibration, review, workflow
from gtreview.app.corpus_review import set_synonym_confirmed
from gtreview.app.results import reportable_runs
from gtreview.store import runs_repo, sets_repo
from gtreview.store.corpus_repo import list_documents
from gtreview.store.project import Project
from gtreview.store.settings_repo import JUDGE_SPEC, get_setting
from gtreview.ui.adjudication_controller import AdjudicationController
from gtreview.ui.dialogs.preferences import runtime_defaults
from gtreview.ui.dialogs.run_dialog import RunDialog
from gtreview.ui.draft_controller import DraftController, DraftDialog
from gtreview.ui.editing_session import EditSession
from gtreview.ui.menus import build_menus
from gtreview.ui.pages import PagesMixin
from gtreview.ui.review_controller import ReviewController, ask_comment_dialog
from gtreview.ui.run_controller import RunController
from gtreview.ui.widgets import html
from gtreview.ui.widgets.corpus_view import CorpusView
from gtreview.ui.widgets.fixture_editor import FixtureEditor
from gtreview.ui.widgets.history_view import HistoryView
from gtreview.ui.widgets.navigator import Navigator
from gtreview.ui.widgets.question_editor import QuestionEditor
from gtreview.ui.widgets.question_list import QuestionList
from gtreview.ui.widgets.results_view import ResultsView
from gtreview.ui.widgets.runs_view import RunsView
from gtreview.ui.widgets.source_pane import SourcePane

UNREVIEWED = frozenset(
    {sets_repo.ReviewStatus.DRAFT, sets_repo.ReviewStatus.IN_REVIEW, sets_repo.ReviewStatus.CHANGES_REQUESTED}
)


class MainWindow(PagesMixin, QMainWindow):
    open_project_requested = Signal(object)  # Path

    def __init__(self, project: Project, settings: QSettings | None = None) -> None:
        super().__init__()
        self.project = project
        self.settings = settings or QSettings()
        self.set_id: int | None = None
        self.qid: str | None = None
        self.index = review.corpus_index(project.engine)
        self.session = EditSession(project.engine, self.reviewer_name, self)
        self.controller = ReviewController(
            project, lambda: (self.set_id, self.qid), self.reviewer_name, ask_comment_dialog(self), self
        )

        self.navigator = Navigator()
        self.question_list = QuestionList()
        self.question_view = QTextBrowser()
        self.editor = QuestionEditor()
        self.fixtures = FixtureEditor()
        self.history = HistoryView()
        self.history.diff_provider = self._diff
        self.source_pane = SourcePane()
        self.source_pane.set_index(self.index)
        self.tabs = QTabWidget()
        for widget, title in (
            (self.question_view, "&Question"),
            (self.editor, "&Edit"),
            (self.fixtures, "&Calibration"),
            (self.history, "&History"),
        ):
            self.tabs.addTab(widget, title)
        self.status_label = QLabel()
        self.statusBar().addPermanentWidget(self.status_label, 1)

        self.detail_splitter = self._splitter(Qt.Orientation.Horizontal, self.tabs, self.source_pane)
        self.work_splitter = self._splitter(Qt.Orientation.Vertical, self.question_list, self.detail_splitter)
        self.runs_view = RunsView()
        self.run_controller = RunController(project, self)
        self.pages = QStackedWidget()
        self.pages.addWidget(self.work_splitter)
        self.pages.addWidget(self.runs_view)
        self.results_view = ResultsView()
        self.pages.addWidget(self.results_view)
        self.draft_controller = DraftController(project, self)
        self.draft_controller.progress.connect(
            lambda stage, done, total: self.statusBar().showMessage(
                f"Drafting: {stage} {done}/{total} (Run > Cancel drafting)"
            )
        )
        self.draft_controller.finished.connect(self._drafting_finished)
        self.corpus_view = CorpusView()
        self.pages.addWidget(self.corpus_view)
        self.adjudication = AdjudicationController(project, self.index, self.reviewer_name, self)
        self.pages.addWidget(self.adjudication.queue_view)
        self.pages.addWidget(self.adjudication.grading_view)
        self.main_splitter = self._splitter(Qt.Orientation.Horizontal, self.navigator, self.pages)
        self.work_splitter.setStretchFactor(1, 3)
        self.main_splitter.setStretchFactor(1, 4)
        self.setCentralWidget(self.main_splitter)

        self.navigator.set_selected.connect(self.open_set)
        self.navigator.runs_selected.connect(self.show_runs)
        self.navigator.corpus_selected.connect(self.show_corpus)
        self.corpus_view.synonym_toggled.connect(
            lambda canonical, forms, on: set_synonym_confirmed(self.project.engine, canonical, forms, on)
        )
        self.adjudication.message.connect(lambda message: self.statusBar().showMessage(message, 8000))
        self.navigator.run_selected.connect(self.show_results)
        self.results_view.run_selected.connect(self.show_results)
        self.runs_view.table.cellDoubleClicked.connect(
            lambda row, _c: self.show_results(int(self.runs_view.table.item(row, 0).text()))
        )
        self.run_controller.event.connect(self.runs_view.show_event)
        self.run_controller.finished.connect(self._pass_finished)
        self.runs_view.cancel_requested.connect(self.run_controller.cancel)
        self.question_list.question_selected.connect(self.show_question)
        self.editor.edit_requested.connect(self._edit)
        self.fixtures.edit_requested.connect(self._edit)
        self.session.saved.connect(self._saved)
        self.session.renamed.connect(self._renamed)
        self.session.failed.connect(self._save_failed)
        self.controller.changed.connect(self._review_changed)
        self.controller.calibrated.connect(self._calibrated)
        self.controller.message.connect(lambda message: self.statusBar().showMessage(message, 10000))
        self.menu_actions = build_menus(self)
        self._restore_layout()
        self.setWindowTitle(f"gtreview — {project.folder}")
        self.refresh()

    @staticmethod
    def _splitter(orientation: Qt.Orientation, first: QWidget, second: QWidget) -> QSplitter:
        splitter = QSplitter(orientation)
        splitter.addWidget(first)
        splitter.addWidget(second)
        return splitter

    # -- who is reviewing ------------------------------------------------------
    def reviewer_name(self) -> str:
        name = self.settings.value("reviewer/name")
        if isinstance(name, str) and name.strip():
            return name.strip()
        try:
            return getpass.getuser()
        except Exception:  # noqa: BLE001 - no user name on some systems
            return "reviewer"

    def set_reviewer_name(self, name: str) -> None:
        self.settings.setValue("reviewer/name", name.strip())
        self._update_status()

    # -- loading ---------------------------------------------------------------
    def refresh(self) -> None:
        sets = sets_repo.list_sets(self.project.engine)
        signoffs = {s.id: workflow.signoffs(self.project.engine, s.id) for s in sets}
        self.navigator.populate(
            list_documents(self.project.engine), sets, signoffs, reportable_runs(self.project.engine)
        )
        if sets and self.set_id is None:
            self.open_set(sets[0].id)

    def show_runs(self) -> None:
        self.runs_view.show_runs(runs_repo.list_runs(self.project.engine))
        self.pages.setCurrentWidget(self.runs_view)

    def start_pass(self) -> None:
        if self.set_id is None or self.run_controller.running:
            self.statusBar().showMessage("Open a set first; one pass runs at a time.", 5000)
            return
        name = next((s.name for s in sets_repo.list_sets(self.project.engine) if s.id == self.set_id), "set")
        judge = get_setting(self.project.engine, JUDGE_SPEC) or str(
            self.settings.value("preferences/default_judge", "") or ""
        )
        dialog = RunDialog(name, judge, self)
        if dialog.exec() and dialog.config is not None:
            self.start_configured_pass(dialog.config)

    def start_configured_pass(self, config: PassConfig) -> None:
        assert self.set_id is not None
        if self.run_controller.start(config, self.set_id, runtime_defaults(self.settings)):
            self.runs_view.started(config.name)
            self.show_runs()

    def start_drafting(self) -> None:
        dialog = DraftDialog(str(self.settings.value("preferences/default_judge", "") or ""), self)
        if dialog.exec() and dialog.model.text().strip():
            self.draft_controller.start(
                dialog.model.text().strip(),
                dialog.questions.value(),
                dialog.name.text().strip() or "Draft set",
                dialog.mode.currentText(),
            )

    def _drafting_finished(self, message: str, set_id: int) -> None:
        self.statusBar().showMessage(message, 15000)
        if set_id:
            self.refresh()
            self.open_set(set_id)

    def _pass_finished(self, message: str) -> None:
        self.refresh()
        self.runs_view.finished(message)
        self.runs_view.show_runs(runs_repo.list_runs(self.project.engine))
        self.statusBar().showMessage(message, 10000)

    def open_set(self, set_id: int) -> None:
        self.pages.setCurrentWidget(self.work_splitter)
        self.editor.commit_pending()
        self.set_id = set_id
        self.qid = None
        self.question_list.set_rows(review.question_rows(self.project.engine, set_id))
        self.navigator.select_set(set_id)
        self._update_status()

    def show_question(self, qid: str) -> None:
        if self.set_id is None:
            return
        same = qid == self.qid
        if not same:
            self.editor.commit_pending()  # belongs to the question being left
        self.qid = qid
        detail = review.question_detail(self.project.engine, self.index, self.set_id, qid)
        content = detail.question.to_json_dict()
        self.question_view.setHtml(
            html.question_html(detail.question, detail.review_status.value, detail.version, detail.findings)
        )
        self.editor.load(content, same_question=same)
        self.fixtures.load(content, question_calibration.latest_calibration(self.project.engine, self.set_id, qid))
        retired = detail.review_status is sets_repo.ReviewStatus.RETIRED
        self.editor.setEnabled(not retired)  # retired questions stay as they were retired
        self.fixtures.setEnabled(not retired)
        self.history.show_history(
            workflow.history(self.project.engine, self.set_id, qid),
            sets_repo.list_versions(self.project.engine, self.set_id, qid),
        )
        if not same:
            self.source_pane.show_evidence(detail.question.evidence, detail.evidence)

    def _diff(self, old: int, new: int) -> str:
        if self.set_id is None or self.qid is None:
            return ""
        return editing.diff_versions(self.project.engine, self.set_id, self.qid, old, new)

    # -- edits and review actions -----------------------------------------------
    def _edit(self, path: JsonPath, old: Any, new: Any, label: str) -> None:
        if self.set_id is not None and self.qid is not None:
            self.session.edit(self.set_id, self.qid, path, old, new, label)

    def _saved(self, set_id: int, qid: str, version: int) -> None:
        if set_id != self.set_id:
            return
        self.question_list.model.update_row(qid, review.question_row(self.project.engine, set_id, qid))
        if qid != self.qid:
            self.question_list.select(qid)  # an undo on another question shows that question
        else:
            self.show_question(qid)
        self.statusBar().showMessage(f"Saved {qid} as version {version}.", 4000)
        self._update_status()

    def _save_failed(self, message: str) -> None:
        self.statusBar().showMessage(f"Not saved: {message}", 10000)
        if self.qid is not None:
            self.show_question(self.qid)  # show what is actually saved

    def _renamed(self, set_id: int, old: str, new: str) -> None:
        if set_id == self.set_id:
            if self.qid == old:
                self.qid = new
            self.question_list.set_rows(review.question_rows(self.project.engine, set_id))
            self.question_list.select(new)

    def _review_changed(self, set_id: int, qid: str) -> None:
        if set_id != self.set_id:
            return
        if qid:
            self.question_list.model.update_row(qid, review.question_row(self.project.engine, set_id, qid))
            self.show_question(qid)
        else:  # a set-level action (sign-off)
            self.refresh()
        self._update_status()

    def _calibrated(self, set_id: int, qids: list[str]) -> None:
        if set_id == self.set_id and self.qid in qids:
            self.show_question(self.qid)

    # -- navigation --------------------------------------------------------------
    def go_next(self, step: int = 1) -> None:
        self.question_list.step_selection(step)

    def go_next_unreviewed(self) -> None:
        if not self.question_list.select_next(lambda row: row.review_status in UNREVIEWED):
            self.statusBar().showMessage("Every question has been reviewed.", 5000)

    def _update_status(self) -> None:
        if self.set_id is None:
            self.status_label.setText(f"Project {self.project.folder} | no benchmark set")
            return
        rows = self.question_list.model.rows()
        counts = review.status_counts(rows)
        name = next((s.name for s in sets_repo.list_sets(self.project.engine) if s.id == self.set_id), "")
        summary = " · ".join(f"{status.value.replace('_', ' ')} {count}" for status, count in counts.items())
        signoffs = workflow.signoffs(self.project.engine, self.set_id)
        signed = f" | signed off #{signoffs[-1].number}" if signoffs else ""
        self.status_label.setText(
            f"Project {self.project.folder} | Set: {name}{signed} | {len(rows)} questions: {summary} | reviewer {self.reviewer_name()}"
        )

    # -- window state -------------------------------------------------------------
    def _restore_layout(self) -> None:
        geometry = self.settings.value("main_window/geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)
        size = self.settings.value("main_window/size")
        self.resize(size if isinstance(size, QSize) else QSize(1500, 950))  # some platforms restore no size
        for key, splitter in self._splitters().items():
            state = self.settings.value(f"main_window/{key}")
            if state is not None:
                splitter.restoreState(state)

    def _splitters(self) -> dict[str, QSplitter]:
        return {
            "main_splitter": self.main_splitter,
            "work_splitter": self.work_splitter,
            "detail_splitter": self.detail_splitter,
        }

    def request_open(self, folder: Path) -> None:
        self.open_project_requested.emit(folder)

    def closeEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        self.editor.commit_pending()
        self.settings.setValue("main_window/geometry", self.saveGeometry())
        self.settings.setValue("main_window/size", self.size())
        for key, splitter in self._splitters().items():
            self.settings.setValue(f"main_window/{key}", splitter.saveState())
        super().closeEvent(event)
