"""The main window: assembles navigator, question list, question view and sources."""

from __future__ import annotations

from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QLabel, QMainWindow, QSplitter, QTextBrowser

from gtreview.services import review
from gtreview.store import sets_repo
from gtreview.store.corpus_repo import list_documents
from gtreview.store.project import Project
from gtreview.ui.widgets import html
from gtreview.ui.widgets.navigator import Navigator
from gtreview.ui.widgets.question_list import QuestionList
from gtreview.ui.widgets.source_pane import SourcePane


class MainWindow(QMainWindow):
    def __init__(self, project: Project, settings: QSettings | None = None) -> None:
        super().__init__()
        self.project = project
        self.settings = settings or QSettings()
        self.set_id: int | None = None
        self.index = review.corpus_index(project.engine)

        self.navigator = Navigator()
        self.question_list = QuestionList()
        self.question_view = QTextBrowser()
        self.source_pane = SourcePane()
        self.source_pane.set_index(self.index)
        self.status_label = QLabel()
        self.statusBar().addPermanentWidget(self.status_label, 1)

        self.detail_splitter = QSplitter(Qt.Orientation.Horizontal)
        self.detail_splitter.addWidget(self.question_view)
        self.detail_splitter.addWidget(self.source_pane)
        self.work_splitter = QSplitter(Qt.Orientation.Vertical)
        self.work_splitter.addWidget(self.question_list)
        self.work_splitter.addWidget(self.detail_splitter)
        self.work_splitter.setStretchFactor(1, 3)
        self.main_splitter = QSplitter(Qt.Orientation.Horizontal)
        self.main_splitter.addWidget(self.navigator)
        self.main_splitter.addWidget(self.work_splitter)
        self.main_splitter.setStretchFactor(1, 4)
        self.setCentralWidget(self.main_splitter)

        self.navigator.set_selected.connect(self.open_set)
        self.question_list.question_selected.connect(self.show_question)
        self._build_menus()
        self._restore_layout()
        self.refresh()

    def _build_menus(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        quit_action = QAction("&Quit", self, shortcut=QKeySequence(QKeySequence.StandardKey.Quit))
        quit_action.triggered.connect(self.close)
        file_menu.addAction(quit_action)
        view_menu = self.menuBar().addMenu("&View")
        find_action = QAction("&Find question", self, shortcut=QKeySequence(QKeySequence.StandardKey.Find))
        find_action.triggered.connect(lambda: self.question_list.search.setFocus())
        view_menu.addAction(find_action)

    def refresh(self) -> None:
        sets = sets_repo.list_sets(self.project.engine)
        self.navigator.populate(list_documents(self.project.engine), sets)
        if sets and self.set_id is None:
            self.open_set(sets[0].id)

    def open_set(self, set_id: int) -> None:
        self.set_id = set_id
        rows = review.question_rows(self.project.engine, set_id)
        self.question_list.set_rows(rows)
        self.navigator.select_set(set_id)
        self._update_status(rows)

    def show_question(self, qid: str) -> None:
        if self.set_id is None:
            return
        detail = review.question_detail(self.project.engine, self.index, self.set_id, qid)
        self.question_view.setHtml(
            html.question_html(detail.question, detail.review_status.value, detail.version, detail.findings)
        )
        self.source_pane.show_evidence(detail.question.evidence, detail.evidence)

    def _update_status(self, rows: list[review.QuestionRow]) -> None:
        counts = review.status_counts(rows)
        name = next((s.name for s in sets_repo.list_sets(self.project.engine) if s.id == self.set_id), "")
        summary = " · ".join(f"{status.value.replace('_', ' ')} {count}" for status, count in counts.items())
        self.status_label.setText(f"Project {self.project.folder} | Set: {name} | {len(rows)} questions: {summary}")

    def _restore_layout(self) -> None:
        geometry = self.settings.value("main_window/geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)
        else:
            self.resize(1400, 900)
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

    def closeEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        self.settings.setValue("main_window/geometry", self.saveGeometry())
        for key, splitter in self._splitters().items():
            self.settings.setValue(f"main_window/{key}", splitter.saveState())
        super().closeEvent(event)
