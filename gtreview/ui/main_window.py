"""The main window: assembles the navigator, question list, editors and sources."""

from __future__ import annotations

import getpass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtWidgets import (
    QMainWindow,
    QSplitter,
    QStackedWidget,
    QTabWidget,
    QWidget,
)

from gtreview.app import review
from gtreview.app.project_settings import last_pass, project_judge
from gtreview.app.projects import Project
from gtreview.app.review import set_name
from gtreview.core.jsonpath import Path as JsonPath
from gtreview.core.review_flow import AWAITING_APPROVAL
from gtreview.runs.plan import PassConfig
from gtreview.ui.activity import AskToStop, ask_to_stop_jobs, stop_every_job
from gtreview.ui.adjudication_controller import AdjudicationController
from gtreview.ui.dialogs.judge_spec import ask_judge_spec
from gtreview.ui.dialogs.preferences import model_folders, runtime_defaults
from gtreview.ui.dialogs.run_dialog import RunDialog
from gtreview.ui.draft_controller import DraftController, DraftDialog
from gtreview.ui.editing_session import EditSession
from gtreview.ui.keyboard import install_tab_moves_focus
from gtreview.ui.menus import build_menus
from gtreview.ui.ops import LatestQuery, NoticeKind, OpChanges, OpHub, QueryOp
from gtreview.ui.pages import PagesMixin
from gtreview.ui.paraphrase_controller import ParaphraseController
from gtreview.ui.project_index import SharedIndex
from gtreview.ui.question_controller import QuestionController, ReviewWidgets
from gtreview.ui.release_controller import ReleaseController
from gtreview.ui.results_controller import ResultsController
from gtreview.ui.review_controller import ReviewController, ask_comment_dialog
from gtreview.ui.run_controller import RunController
from gtreview.ui.widgets.activity_panel import ActivityPanel
from gtreview.ui.widgets.corpus_view import CorpusView
from gtreview.ui.widgets.fixture_editor import FixtureEditor
from gtreview.ui.widgets.history_view import HistoryView
from gtreview.ui.widgets.html import HtmlBrowser
from gtreview.ui.widgets.navigator import Navigator
from gtreview.ui.widgets.notice import NoticeBar
from gtreview.ui.widgets.question_editor import QuestionEditor
from gtreview.ui.widgets.question_list import QuestionList
from gtreview.ui.widgets.results_view import ResultsView
from gtreview.ui.widgets.runs_view import RunsView
from gtreview.ui.widgets.source_pane import SourcePane
from gtreview.ui.window_layout import restore_layout, save_layout, window_splitters

UNREVIEWED = AWAITING_APPROVAL  # the active questions not approved yet


class MainWindow(PagesMixin, QMainWindow):
    """Assembles the parts; every read and change goes through the window's ``ops`` hub,
    whose ``changes_applied`` tells each part what changed."""

    open_project_requested = Signal(object, bool)  # the folder, and whether to create a project there

    def __init__(self, project: Project, settings: QSettings | None = None) -> None:
        super().__init__()
        install_tab_moves_focus()  # Tab leaves tables and text fields, in this window and its dialogs
        self.project = project
        self.settings = settings or QSettings()
        self.ops = OpHub(self)
        self.closing = False  # set once the window is closing: nothing new is read
        self.index = SharedIndex(project.engine)
        self.session = EditSession(project.engine, self.reviewer_name, self)
        self.controller = ReviewController(
            project,
            lambda: self.questions.review_target(self.pages.currentWidget() is self.work_splitter),
            self.reviewer_name,
            ask_comment_dialog(self),
            self,
            edits=self.session,
            commit_pending=lambda: self.editor.commit_pending(),
            index=self.index,
            ask_judge=lambda current: ask_judge_spec(self, current, model_folders(self.settings)),
        )

        self.navigator = Navigator()
        self.question_list = QuestionList()
        self.question_view = HtmlBrowser()  # drawn again in the new colours when the theme changes
        self.editor = QuestionEditor()
        self.fixtures = FixtureEditor()
        self.history = HistoryView()
        self.source_pane = SourcePane()
        self.tabs = QTabWidget()
        for widget, title in (
            (self.question_view, "&Question"),
            (self.editor, "Ed&it"),  # Alt+E and Alt+H open the Edit and Help menus
            (self.fixtures, "&Calibration"),
            (self.history, "Hi&story"),
        ):
            self.tabs.addTab(widget, title)
        self.questions = QuestionController(
            project.engine,
            self.index,
            ReviewWidgets(
                self.question_list,
                self.question_view,
                self.editor,
                self.fixtures,
                self.history,
                self.source_pane,
                self.tabs,
            ),
            self,
        )
        self.notices = NoticeBar(self)  # notices on the left, the status line (capped) on the right
        self.setStatusBar(self.notices)
        self.status_label = self.notices.status
        self.activity_panel = ActivityPanel(self.ops.activities)  # the running jobs, each with Cancel
        self.notices.insertPermanentWidget(0, self.activity_panel)
        self.ask_stop_jobs: AskToStop = ask_to_stop_jobs

        self.detail_splitter = self._splitter(Qt.Orientation.Horizontal, self.tabs, self.source_pane)
        self.work_splitter = self._splitter(Qt.Orientation.Vertical, self.question_list, self.detail_splitter)
        self.runs_view = RunsView()
        self.run_controller = RunController(project, self)
        self.pages = QStackedWidget()
        self.pages.addWidget(self.work_splitter)
        self.pages.addWidget(self.runs_view)
        self.results_view = ResultsView()
        self.results = ResultsController(project.engine, self.results_view, lambda: self.set_id, self)
        self.pages.addWidget(self.results_view)
        self.draft_controller = DraftController(project, self)
        self.corpus_view = CorpusView()
        self.pages.addWidget(self.corpus_view)
        self.adjudication = AdjudicationController(project, self.index, self.reviewer_name, self)
        self.pages.addWidget(self.adjudication.queue_view)
        self.pages.addWidget(self.adjudication.grading_view)
        self.releases = ReleaseController(project, self)
        self.pages.addWidget(self.releases.view)
        self.main_splitter = self._splitter(Qt.Orientation.Horizontal, self.navigator, self.pages)
        self.work_splitter.setStretchFactor(1, 3)
        self.main_splitter.setStretchFactor(1, 4)
        self.setCentralWidget(self.main_splitter)
        self._overview = LatestQuery(self)
        self._runs = LatestQuery(self)
        self._connect()
        self.paraphrases = ParaphraseController(
            project, self.questions, self.controller.current, self.reviewer_name, self
        )
        self.menu_actions = build_menus(self)
        self.controller.bind_actions(self.menu_actions, self.pages.currentChanged, self.questions.target_changed)
        restore_layout(self, self.settings, window_splitters(self))
        self.setWindowTitle(f"gtreview — {project.folder}")
        self._update_status()
        self.refresh()

    def _connect(self) -> None:
        notify = self.notify
        self.ops.noticed.connect(notify)  # every part's notices: ops.notify(part, text, kind)
        for part in (self.questions, self.adjudication, self.results):
            self.ops.changes_applied.connect(part.on_changes)
        self.ops.changes_applied.connect(self._changes_applied)
        self.navigator.set_selected.connect(self.open_set)
        self.navigator.runs_selected.connect(self.show_runs)
        self.navigator.corpus_selected.connect(self.show_corpus)
        self.navigator.run_selected.connect(self.show_results)
        self.navigator.release_selected.connect(self.show_release)
        self.corpus_view.synonym_toggled.connect(self.confirm_synonym)
        self.results.message.connect(notify)
        self.results.opened.connect(lambda _run: self.pages.setCurrentWidget(self.results_view))
        self.runs_view.table.cellDoubleClicked.connect(lambda row, _c: self._open_run_row(row))
        self.runs_view.table.open_requested.connect(self.show_results)
        self.run_controller.progressed.connect(self.runs_view.show_event)
        self.run_controller.finished.connect(self._pass_finished)
        self.runs_view.cancel_requested.connect(self.run_controller.cancel)
        self.draft_controller.progress.connect(
            lambda stage, done, total: self.notices.notify(
                f"Drafting: {stage} {done}/{total} (Run > Cancel drafting)", "info", 0, logged=False
            )
        )
        self.draft_controller.finished.connect(self._drafting_finished)
        self.editor.edit_requested.connect(self._edit)
        self.fixtures.edit_requested.connect(self._edit)
        self.session.saved.connect(self._saved)
        self.session.withdrawn.connect(
            lambda qid, status: self.notify(
                f"{qid} is a draft again: the edit withdrew its {status.replace('_', ' ')} status; review it again.",
                "warning",
            )
        )
        self.session.renamed.connect(self.questions.renamed)
        self.session.failed.connect(self._save_failed)
        self.session.conflicted.connect(self._save_conflicted)
        self.questions.version_shown.connect(self.session.seen)
        self.questions.status_changed.connect(self._update_status)
        self.questions.set_opened.connect(self.navigator.select_set)
        self.controller.message.connect(notify)
        self.controller.approved.connect(self._approved)
        self.controller.stale.connect(lambda _set, _qid: self.questions.reload_shown())
        self._connect_flow()  # imports, the Runs page's re-reads, resume (ui/flow.py)
        self.pages.currentChanged.connect(lambda _index: self._highlight_page())
        self.results.opened.connect(lambda _run: self._highlight_page())

    # -- notices ------------------------------------------------------------------
    def notify(self, text: str, kind: NoticeKind | str = "info", timeout: int | None = None) -> None:
        """The one way to tell the user something: a notice in the status bar, coloured by
        ``kind`` (info, success, warning, error), that never moves the layout. Parts
        outside the window call ``ops.notify(part, text, kind)``, which comes here."""
        self.notices.notify(text, kind, timeout)

    def _say(self, message: str, timeout: int = 0) -> None:
        """Kept for callers not yet moved to ``notify``: an info notice."""
        self.notify(message, "info", timeout or None)

    @staticmethod
    def _splitter(orientation: Qt.Orientation, first: QWidget, second: QWidget) -> QSplitter:
        splitter = QSplitter(orientation)
        splitter.addWidget(first)
        splitter.addWidget(second)
        return splitter

    def _open_run_row(self, row: int) -> None:
        item = self.runs_view.table.item(row, 0)
        if item is not None:
            self.show_results(int(item.text()))

    @property
    def set_id(self) -> int | None:
        return self.questions.set_id

    @property
    def qid(self) -> str | None:
        return self.questions.qid

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
        """The navigator, read in a worker; the first set opens on the first read."""
        engine = self.project.engine

        def show(overview: review.ProjectOverview) -> None:
            self.navigator.populate(overview.documents, overview.sets, overview.signoffs, overview.runs)
            self.show_empty_states(overview)
            if overview.sets and self.set_id is None:
                self.open_set(overview.sets[0].id)
            elif self.set_id is not None:
                self.navigator.select_set(self.set_id)

        self._overview.run(lambda: review.project_overview(engine), show)

    def show_runs(self) -> None:
        self.pages.setCurrentWidget(self.runs_view)
        self._reload_runs()

    def _reload_runs(self) -> None:
        self.read_runs()  # the Runs view and the navigator's Runs branch

    def start_pass(self) -> None:
        if self.set_id is None or self.run_controller.running:
            self.notify("Open a set first; one pass runs at a time.", "warning")
            return
        engine, set_id = self.project.engine, self.set_id
        default_judge = str(self.settings.value("preferences/default_judge", "") or "")

        def ask(found: tuple[str, str, PassConfig | None]) -> None:
            name, judge, last = found
            dialog = RunDialog(
                name, judge or default_judge, self, last=last, model_folders=model_folders(self.settings)
            )

            def start() -> None:
                if dialog.config is not None:
                    self.remember_pass(dialog.config)
                    self.start_configured_pass(dialog.config)

            dialog.accepted.connect(start)
            dialog.open()

        def read() -> tuple[str, str, PassConfig | None]:
            name = set_name(engine, set_id) or "set"
            return name, project_judge(engine), last_pass(engine)

        QueryOp(self, op=read, success=ask).run_in_background()

    def start_configured_pass(self, config: PassConfig) -> None:
        assert self.set_id is not None
        if self.run_controller.start(config, self.set_id, runtime_defaults(self.settings)):
            self.show_runs()  # the controller's ``started`` told the Runs view

    def start_drafting(self) -> None:
        dialog = DraftDialog(str(self.settings.value("preferences/default_judge", "") or ""), self)
        if dialog.exec() and dialog.model.text().strip():
            self.draft_controller.start(
                dialog.model.text().strip(),
                dialog.questions.value(),
                dialog.name.text().strip() or "Draft set",
                dialog.mode.currentText(),
            )

    def _drafting_finished(self, _message: str, set_id: int) -> None:
        if set_id:  # the controller has said how it went
            self.open_set(set_id)

    def _pass_finished(self, message: str) -> None:
        self.refresh()
        self.runs_view.finished(message)
        self._reload_runs()  # the controller has said how it went

    def open_set(self, set_id: int) -> None:
        self.pages.setCurrentWidget(self.work_splitter)
        self.questions.open_set(set_id)

    def show_question(self, qid: str) -> None:
        self.questions.show_question(qid)

    # -- edits and review actions -----------------------------------------------
    def _edit(self, path: JsonPath, old: Any, new: Any, label: str) -> None:
        shown = self.questions.shown  # the question whose content the editor holds
        if shown is not None:
            self.session.edit(shown[0], shown[1], path, old, new, label)

    def _saved(self, set_id: int, qid: str, version: int) -> None:
        if set_id != self.set_id:
            return
        if qid != self.qid:
            self.question_list.select(qid)  # an undo on another question shows that question
        self.notify(f"Saved {qid} as version {version}.", "success")

    def _save_failed(self, message: str) -> None:
        self.notify(f"Not saved: {message}", "error")
        self.questions.reload_shown()  # show what is actually saved

    def _save_conflicted(self, set_id: int, qid: str, path: JsonPath, value: Any, message: str) -> None:
        kept = self.questions.show_newer_keeping(set_id, qid, path, value)
        then = "your text is kept in its field: leave the field to save it on the newer version"
        self.notify(f"{message}; {then if kept else 'the newer version is shown'}.", "warning")

    def _changes_applied(self, changes: OpChanges, _initiator: object = None) -> None:
        if changes.sets or changes.runs or changes.corpus:
            self.refresh()  # set names and counts, sign-offs, passes, documents

    # -- navigation --------------------------------------------------------------
    def go_next(self, step: int = 1) -> None:
        self.question_list.step_selection(step)

    def _approved(self, set_id: int, qid: str) -> None:
        """After an approval, on to the next unreviewed question (Review > Move on after
        approving), unless the user has already gone elsewhere."""
        if (set_id, qid) != (self.set_id, self.qid):
            return
        if not self.menu_actions["move_on"].isChecked():
            left = any(r.review_status in UNREVIEWED and r.qid != qid for r in self.question_list.model.rows())
            after = "Ctrl+J: the next unreviewed question." if left else "No unreviewed question is left."
            self.notify(f"{qid} approved. {after}", "success")
        elif self.question_list.select_next(lambda row: row.review_status in UNREVIEWED and row.qid != qid):
            self.notify(f"{qid} approved; on to {self.qid}, the next unreviewed question.", "success")

    def go_next_unreviewed(self) -> None:
        if not self.question_list.select_next(lambda row: row.review_status in UNREVIEWED):
            self.notify("Every question has been reviewed.", "info")

    def _update_status(self) -> None:
        self.status_label.setText(  # the folder last: the line is elided at the right when narrow
            f"{self.questions.status_text()} | reviewer {self.reviewer_name()} | project {self.project.folder}"
        )

    def request_open(self, folder: Path, create: bool = False) -> None:
        self.open_project_requested.emit(folder, create)

    def closeEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        if not stop_every_job(self, self.ops.activities, self.ask_stop_jobs):
            event.ignore()
            return
        self.closing = True  # no new reads (the Runs page's re-read, a late timer) after the drain
        self.runs_timer.stop()
        self.editor.commit_pending()
        self.ops.drain()  # every edit asked for is saved before the project closes
        save_layout(self, self.settings, window_splitters(self))
        super().closeEvent(event)
