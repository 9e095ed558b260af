"""The judge gate reads the same in the results view and on the PDF cover."""

from pathlib import Path

from pypdf import PdfReader

from gtreview.app.judge_gate import judge_gate
from gtreview.app.question_calibration import calibrate_questions
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
