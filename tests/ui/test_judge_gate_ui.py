"""The judge gate reads the same in the results view and in the PDF (cover line and
per-criterion lines), and its threshold and measure are edited from the GUI."""

import random
from pathlib import Path

from pypdf import PdfReader

from gtreview.app import adjudication as adj
from gtreview.app.judge_gate import judge_gate
from gtreview.app.project_settings import JudgeGateSettings, judge_gate_settings
from gtreview.app.question_calibration import calibrate_questions
from gtreview.results.loader import load_run_results
from gtreview.ui.dialogs.judge_gate_dialog import JudgeGateDialog
from tests.ui.test_runs_ui import CONFIG, scripted_open
from tests.ui.waiting import settle


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_the_view_and_the_pdf_cover_say_the_same_of_the_judge(qtbot, sample_window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    engine = window.project.engine
    window.run_controller.open_backend = scripted_open(window)
    with qtbot.waitSignal(window.run_controller.finished, timeout=20000):
        window.start_configured_pass(CONFIG)
    settle(qtbot, window)
    view = window.results_view
    window.show_results(1)
    qtbot.waitUntil(lambda: view.judge_gate.text() != "", timeout=20000)
    line = view.judge_gate.text()
    assert line == judge_gate(engine, 1).line and line.startswith("Judge NOT gated: never calibrated: A1, ")
    assert view.judge_gate.isVisible() and view.judge_gate.font().bold()

    out = tmp_path / "report.pdf"
    window.export_report(out)
    qtbot.waitUntil(lambda: "Wrote" in window.statusBar().currentMessage(), timeout=30000)
    assert _flat(line) in _flat(PdfReader(str(out)).pages[0].extract_text())

    judge = scripted_open(window)(CONFIG.judge)  # reproduces every fixture
    calibrate_questions(engine, judge, window.set_id, [q.id for q in view.results.questions])  # type: ignore[union-attr]
    window.show_results(1)
    qtbot.waitUntil(lambda: view.judge_gate.text().startswith("Judge gated:"), timeout=20000)
    assert view.judge_gate.text() == judge_gate(engine, 1).line and not view.judge_gate.font().bold()


def _graded_pass(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    """A calibrated pass whose every answer the expert graded blind, by a seeded draw (the
    scripted judge passes every gate and awards nothing, so the two disagree)."""
    engine = window.project.engine
    window.run_controller.open_backend = scripted_open(window)
    with qtbot.waitSignal(window.run_controller.finished, timeout=20000):
        window.start_configured_pass(CONFIG)
    settle(qtbot, window)
    results = load_run_results(engine, 1)
    calibrate_questions(engine, scripted_open(window)(CONFIG.judge), window.set_id, [q.id for q in results.questions])
    rng = random.Random(5)
    for item in adj.grading_sample(engine, 1, grader="geo", size=100, seed=1):
        awards = {c.id: rng.randint(0, int(c.points)) for c in item.question.components if not c.is_gate}
        adj.save_grade(engine, 1, item, grader="geo", gate_passed=rng.random() < 0.7, awards=awards)


def test_the_gate_criteria_read_the_same_in_the_view_and_the_pdf(qtbot, sample_window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    _graded_pass(qtbot, window)
    view = window.results_view
    window.show_results(1)
    qtbot.waitUntil(lambda: view.judge_gate.toolTip() != "", timeout=20000)
    gate = judge_gate(window.project.engine, 1)
    assert len(gate.details) == 4 and view.judge_gate.toolTip() == "\n".join(gate.details)

    out = tmp_path / "report.pdf"
    window.export_report(out)
    qtbot.waitUntil(lambda: "Wrote" in window.statusBar().currentMessage(), timeout=30000)
    pdf = _flat(" ".join(page.extract_text() for page in PdfReader(str(out)).pages))
    assert "Judge gate" in pdf
    for line in view.judge_gate.toolTip().split("\n"):  # the view's lines, word for word, in the report
        assert _flat(line) in pdf


def test_the_gate_settings_are_edited_in_the_gui_and_the_gate_line_follows(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    engine = window.project.engine
    _graded_pass(qtbot, window)
    view = window.results_view
    window.show_results(1)
    qtbot.waitUntil(lambda: "weighted kappa on totals" in view.judge_gate.text(), timeout=20000)

    window.menu_actions["judge_gate"].trigger()
    qtbot.waitUntil(lambda: window.findChild(JudgeGateDialog) is not None, timeout=10000)
    dialog = window.findChild(JudgeGateDialog)
    assert dialog.threshold.value() == 0.6 and dialog.measure.currentData() == "weighted_kappa"
    assert (dialog.threshold.minimum(), dialog.threshold.maximum()) == (-1.0, 1.0)  # only agreements can be typed
    dialog.threshold.setValue(0.75)
    dialog.measure.setCurrentIndex(dialog.measure.findData("krippendorff_alpha"))
    dialog.accept()

    qtbot.waitUntil(lambda: "Krippendorff's alpha on totals" in view.judge_gate.text(), timeout=20000)
    assert judge_gate_settings(engine) == JudgeGateSettings(measure="krippendorff_alpha", threshold=0.75)
    assert view.judge_gate.text() == judge_gate(engine, 1).line and "the project's 0.75" in view.judge_gate.text()
