"""Drafting from the app: progress, then the drafts in the review list with their provenance."""

from pathlib import Path

from PySide6.QtCore import QSettings

from gtreview.app.corpus_import import import_documents
from gtreview.store.project import create_project
from gtreview.store.sets import ReviewStatus
from gtreview.ui.main_window import MainWindow
from tests.authoring.fakes import DraftScript, corpus
from tests.judging.scripted import ScriptedBackend
from tests.ui.waiting import settle


def test_draft_a_set_from_the_app(qtbot, tmp_path: Path, settings: QSettings) -> None:  # type: ignore[no-untyped-def]
    project = create_project(tmp_path / "p")
    import_documents(project.engine, corpus())
    window = MainWindow(project, settings)
    qtbot.addWidget(window)
    window.draft_controller.open_backend = lambda spec: ScriptedBackend(DraftScript(), spec=spec)
    stages: list[str] = []
    window.draft_controller.progress.connect(lambda stage, done, total: stages.append(stage))
    with qtbot.waitSignal(window.draft_controller.finished, timeout=60000) as outcome:
        window.draft_controller.start("scripted:drafter", 2, "Drafted in the app", "OPEN_CORPUS")
    message, set_id = outcome.args
    settle(qtbot, window)  # the new set's list and first question are read in workers
    assert set_id and "all in draft for review" in message
    assert set(stages) == {"cards", "questions", "rubric", "verify"}  # every stage reported progress
    rows = window.question_list.model.rows()
    assert len(rows) >= 1 and all(r.review_status is ReviewStatus.DRAFT for r in rows)
    assert "Drafting provenance" in window.question_view.toPlainText()
    assert "scripted:drafter" in window.question_view.toPlainText()
    project.close()
