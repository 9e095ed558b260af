"""The design figures in the results view's comparison pane read as the PDF prints them."""

from pathlib import Path

from pypdf import PdfReader

from gtreview.results.design_text import design_readings, design_tables
from gtreview.runs.plan import ModelEntry
from gtreview.store import sets
from gtreview.store.db import reading
from tests.results.test_design import open_backend
from tests.ui.test_runs_ui import CONFIG
from tests.ui.waiting import settle


def _flat(text: str) -> str:
    return " ".join(text.split())


def run_three_model_pass(qtbot, window, name: str) -> None:  # type: ignore[no-untyped-def]
    """A scripted pass of a base and two fine-tunes, three answers each, then its results shown."""
    with reading(window.project.engine) as session:
        questions = {q.id: q for q in sets.export_rubric(session, window.set_id).questions}
    window.run_controller.open_backend = open_backend(questions)
    three = CONFIG.model_copy(
        update={
            "name": name,
            "repeats": 3,
            "models": [ModelEntry(label=n, spec=f"openai:http://{n}#m") for n in ("base", "tuned", "other")],
        }
    )
    with qtbot.waitSignal(window.run_controller.finished, timeout=30000):
        window.start_configured_pass(three)
    settle(qtbot, window)
    window.show_results(1)


def test_design_figures_read_the_same_in_the_view_and_the_pdf(qtbot, sample_window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    run_three_model_pass(qtbot, window, "design pass")
    view = window.results_view
    qtbot.waitUntil(lambda: window.pages.currentWidget() is view and view.analysis is not None, timeout=30000)
    settle(qtbot, window)
    assert view.analysis is not None and view.analysis.design is not None
    design = view.analysis.design
    readings = design_readings(design)
    assert any(line.startswith("tuned: Clustered by 8 source documents:") for line in readings)
    assert design.strengths is not None and design.strengths.estimable  # three models: Bradley-Terry
    pane = _flat(view.comparison.toPlainText())
    for line in readings:
        assert _flat(line) in pane, line

    view.samples.select("base", "A1", 0)  # the pane shows one answer, then the figures again
    assert "Beyond the anchors" not in view.comparison.toPlainText()
    view.design_button.click()
    assert _flat(view.comparison.toPlainText()) == pane

    out = tmp_path / "design.pdf"
    window.export_report(out)
    qtbot.waitUntil(lambda: "Wrote" in window.statusBar().currentMessage(), timeout=60000)
    pdf = _flat(" ".join(page.extract_text() for page in PdfReader(str(out)).pages))
    for line in readings:
        assert _flat(line) in pdf, line
    clustered = design_tables(design)[0].rows[0][1]  # the same cell in both tables
    assert clustered.startswith("+") and clustered in pane and clustered in pdf
