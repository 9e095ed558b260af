import json
from pathlib import Path

from PySide6.QtCore import QSettings

from gtreview.app.review import question_rows
from gtreview.store import sets
from gtreview.store.db import reading, unit_of_work
from gtreview.ui.main_window import MainWindow
from gtreview.ui.models.question_table import QuestionFilterProxy, QuestionTableModel
from tests.ui.waiting import settle


def test_question_table_model_passes_the_model_tester(qtmodeltester, interop_project) -> None:  # type: ignore[no-untyped-def]
    model = QuestionTableModel(question_rows(interop_project.engine, 1))
    qtmodeltester.check(model)
    proxy = QuestionFilterProxy()
    proxy.setSourceModel(model)
    qtmodeltester.check(proxy)


def test_window_shows_set_question_and_cited_source(
    qtbot, interop_project, settings: QSettings, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    window = MainWindow(interop_project, settings)
    qtbot.addWidget(window)
    window.show()
    settle(qtbot, window)  # the set, the first question and the corpus index are read in workers
    assert window.question_list.proxy.rowCount() == 3
    assert window.question_list.proxy.index(0, 0).data() == "A1"
    assert "Recurring host unit" in window.question_view.toPlainText()
    assert "3 questions: draft 3" in window.status_label.text()

    sources = window.source_pane
    assert sources.evidence_list.count() == 5
    assert "unresolved" in sources.evidence_list.item(0).text()  # an aggregate description, listed not guessed
    sources.evidence_list.setCurrentRow(1)  # MINERAL_DEPOSIT_NO=2047, DEPOSIT_SUMMARY
    text = sources.browser.toPlainText()
    assert "PINNACLES" in text and "replacement deposit in host marble of the Wywyana Formation" in text
    # which evidence is shown stands above the page, not in it, so scrolling never hides it
    assert sources.evidence_heading.text().startswith("Evidence 2: ")
    assert sources.evidence_heading.isVisible() and "Evidence 2" not in text
    window.grab().save(str(tmp_path / "main_window.png"))


def test_search_and_filters(qtbot, interop_project, settings: QSettings) -> None:  # type: ignore[no-untyped-def]
    with unit_of_work(interop_project.engine) as tx:
        sets.record_review(tx, 1, "B2", sets.ReviewStatus.APPROVED, actor="geo")
    window = MainWindow(interop_project, settings)
    qtbot.addWidget(window)
    settle(qtbot, window)
    listing = window.question_list
    qtbot.keyClicks(listing.search, "supergene")
    # the search reads every text of a question: B2's title, and C3's answer or rubric
    with reading(interop_project.engine) as session:
        saying = [
            q.id
            for q in sets.export_rubric(session, 1).questions
            if "supergene" in json.dumps(q.to_json_dict()).casefold()
        ]
    assert [listing.proxy.index(r, 0).data() for r in range(listing.proxy.rowCount())] == saying == ["B2", "C3"]
    qtbot.keyClicks(listing.search, " enrichment blanket that never")
    assert listing.proxy.rowCount() == 0
    listing.search.clear()
    listing.status.setCurrentIndex(listing.status.findData("approved"))
    assert listing.proxy.rowCount() == 1
    listing.status.setCurrentIndex(0)
    listing.difficulty.setCurrentIndex(listing.difficulty.findData("Hard"))
    assert sorted(listing.proxy.index(r, 0).data() for r in range(listing.proxy.rowCount())) == ["A1", "C3"]


def test_selecting_a_row_shows_that_question(qtbot, interop_project, settings: QSettings) -> None:  # type: ignore[no-untyped-def]
    window = MainWindow(interop_project, settings)
    qtbot.addWidget(window)
    settle(qtbot, window)
    table = window.question_list.table
    with qtbot.waitSignal(window.question_list.question_selected) as blocker:
        table.selectRow(2)
    assert blocker.args == ["C3"]
    settle(qtbot, window)
    assert "DEPOSIT_CLASS" in window.question_view.toPlainText()


def test_layout_persists(qtbot, interop_project, settings: QSettings) -> None:  # type: ignore[no-untyped-def]
    window = MainWindow(interop_project, settings)
    qtbot.addWidget(window)
    window.show()
    window.main_splitter.setSizes([123, 900])
    sizes = window.main_splitter.sizes()
    window.close()
    reopened = MainWindow(interop_project, settings)
    qtbot.addWidget(reopened)
    reopened.show()
    assert reopened.main_splitter.sizes()[0] == sizes[0] == 123
    assert settings.value("main_window/geometry") is not None
