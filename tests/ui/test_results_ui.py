"""The results view: plots drawn from a finished pass, a click opens both answers, leaderboard, export."""

from pathlib import Path

from pypdf import PdfReader

from tests.ui.test_runs_ui import CONFIG, scripted_open
from tests.ui.waiting import settle


def test_results_view_after_a_pass(qtbot, sample_window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    window.run_controller.open_backend = scripted_open(window)
    with qtbot.waitSignal(window.run_controller.finished, timeout=20000):
        window.start_configured_pass(CONFIG)
    settle(qtbot, window)
    runs = window.navigator.runs_item
    assert runs.childCount() == 1 and runs.child(0).text(0) == "1: ui pass"
    view = window.results_view
    window.navigator.itemClicked.emit(runs.child(0), 0)
    qtbot.waitUntil(lambda: window.pages.currentWidget() is view, timeout=20000)
    assert "10 questions, 2 answers per question and model" in view.finding.text()
    assert "Pass finished" in view.status.text() and "Calibration of the current versions" in view.status.text()
    assert len(view.scatter_items) == 1 and len(view.scatter_items[0].points()) == 10
    assert view.leaderboard.rowCount() == 2
    spot = view.scatter_items[0].points()[0]
    with qtbot.waitSignal(view.question_clicked) as clicked:
        view._clicked([spot])
    html = view.comparison.toPlainText()
    assert (
        clicked.args[0] in html
        and "base — scored" in html
        and "lora — scored" in html
        and "An answer about saddle reefs." in html
    )
    window.grab().save(str(tmp_path / "results.png"))

    out = tmp_path / "report.pdf"
    window.export_report(out)
    qtbot.waitUntil(out.exists, timeout=30000)
    qtbot.waitUntil(lambda: "Wrote" in window.statusBar().currentMessage(), timeout=30000)
    assert "Benchmark report: ui pass" in PdfReader(str(out)).pages[0].extract_text()


def test_corpus_view_and_synonym_confirmation(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtCore import Qt

    from gtreview.app.corpus_review import confirmed_synonyms

    window = sample_window
    window.navigator.itemClicked.emit(window.navigator.corpus_item, 0)
    view = window.corpus_view
    settle(qtbot, window, timeout=60000)  # the inventory runs in a worker
    assert window.pages.currentWidget() is view
    assert "1 duplicated passage ·" in view.summary.text() and "3 numeric conflicts" in view.summary.text()
    assert view.conflicts.rowCount() == 3 and view.synonyms.rowCount() >= 4
    assert "Garibaldi" in " ".join(view.conflicts.item(r, 0).text() for r in range(3))
    view.synonyms.item(0, 0).setCheckState(Qt.CheckState.Checked)
    canonical = view.synonyms.item(0, 1).text()
    settle(qtbot, window)
    assert canonical in confirmed_synonyms(window.project.engine)
    view.inventory = None
    window.navigator.itemClicked.emit(window.navigator.corpus_item, 0)  # again: the confirmation is remembered
    settle(qtbot, window, timeout=60000)
    assert view.inventory is not None and view.inventory.variants[0].confirmed


def test_results_view_tables_probes_by_section(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    from gtreview.runs.record import update_run_config
    from gtreview.store import db
    from tests.runs.test_probes import FLAT, UP, reports
    from tests.ui.test_runs_ui import CONFIG, scripted_open

    window = sample_window
    window.run_controller.open_backend = scripted_open(window)
    with qtbot.waitSignal(window.run_controller.finished, timeout=20000):
        window.start_configured_pass(CONFIG)
    familiarity, recall = reports(excess=UP, ngram=UP, control_ngram=FLAT)
    stored = {"familiarity": familiarity.model_dump(mode="json"), "recall": recall.model_dump(mode="json")}
    with db.unit_of_work(window.project.engine) as tx:
        update_run_config(tx, 1, probes={**stored, "sections": {"A": stored, "C": stored}})
    window.show_results(1)
    view = window.results_view
    qtbot.waitUntil(lambda: window.pages.currentWidget() is view, timeout=20000)
    assert view.probes.rowCount() == 2 and view.probes.item(0, 0).text() == "A"
    assert "Probes:" in view.status.text()


def test_single_model_pass_has_charts_and_readable_answers(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    from gtreview.runs.plan import ModelEntry

    window = sample_window
    window.run_controller.open_backend = scripted_open(window)
    single = CONFIG.model_copy(
        update={"name": "one model", "models": [ModelEntry(label="base", spec="openai:http://base#m")]}
    )
    with qtbot.waitSignal(window.run_controller.finished, timeout=20000):
        window.start_configured_pass(single)
    settle(qtbot, window)
    window.show_results(1)
    view = window.results_view
    qtbot.waitUntil(lambda: window.pages.currentWidget() is view, timeout=20000)
    settle(qtbot, window)
    assert len(view.scatter_items) == 1 and len(view.scatter_items[0].points()) == 10  # a point per question
    assert view.scatter.isVisible() and not view.difference.isVisible() and not view.pairwise.isVisible()
    with qtbot.waitSignal(view.question_clicked):
        view._clicked([view.scatter_items[0].points()[0]])
    assert "base — scored" in view.comparison.toPlainText()
    assert view.samples.model.rowCount() == 20
    view.samples.select("base", "A1", 1)
    assert "base — sample 2 — scored" in view.comparison.toPlainText()


def test_comparison_pane_can_be_enlarged_and_inconsistency_is_no_outcome(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    window.resize(1500, 950)
    window.run_controller.open_backend = scripted_open(window)
    with qtbot.waitSignal(window.run_controller.finished, timeout=20000):
        window.start_configured_pass(CONFIG)
    settle(qtbot, window)
    window.show_results(1)
    view = window.results_view
    qtbot.waitUntil(lambda: window.pages.currentWidget() is view, timeout=20000)
    settle(qtbot, window)
    ticks = [label for _x, label in view.pairwise.getAxis("bottom")._tickLevels[0]]
    assert ticks == ["wins", "ties", "losses", "unknown"]  # four outcomes of a pair
    assert view.inconsistent == {"lora": 0}
    assert "order-inconsistent pairs: 0" in view.pairwise.plotItem.titleLabel.text
    assert view.comparison.height() >= 250
    total = sum(view.splitter.sizes())
    view.splitter.setSizes([total // 4, total - total // 4])
    qtbot.waitUntil(lambda: view.comparison.height() >= 500, timeout=5000)  # the answers can take most of the page
    scatter = view.scatter
    left = scatter.mapTo(view, scatter.rect().topLeft()).x()
    assert left >= 0 and left + scatter.width() <= view.width()  # not clipped at the default width
    assert scatter.width() >= 250
