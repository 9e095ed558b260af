"""The membership tests kept with a pass read the same in the results view's Membership
tab and in the PDF report."""

from pathlib import Path

from pypdf import PdfReader

from gtreview.app.probes import run_memorisation_probes
from gtreview.results.membership_text import MEMBERSHIP_HEADING
from gtreview.runs.membership import MembershipSplit
from gtreview.store import sets_repo
from tests.app.test_membership import HELD_OUT, TRAINED, fakes
from tests.results.test_design import open_backend
from tests.ui.test_runs_ui import CONFIG
from tests.ui.waiting import settle


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_membership_reads_the_same_in_the_view_and_the_pdf(qtbot, sample_window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    engine = window.project.engine
    questions = {q.id: q for q in sets_repo.export_rubric(engine, window.set_id).questions}
    window.run_controller.open_backend = open_backend(questions)
    with qtbot.waitSignal(window.run_controller.finished, timeout=30000):
        window.start_configured_pass(CONFIG)
    settle(qtbot, window)
    view = window.results_view
    window.show_results(1)
    qtbot.waitUntil(lambda: view.analysis is not None, timeout=30000)
    assert view.membership.table.isHidden() and "No membership tests" in view.membership.summary.text()

    split = MembershipSplit(members=TRAINED, held_out=HELD_OUT)
    labels = [m.label for m in CONFIG.models]
    models = fakes(window.project)
    run_memorisation_probes(
        engine, dict(zip(labels, models.values(), strict=True)), passages=6, seed=1, run_id=1, split=split
    )
    view.analysis = None
    window.show_results(1)
    qtbot.waitUntil(lambda: view.analysis is not None and not view.membership.table.isHidden(), timeout=30000)
    table = view.membership.table
    cells = [table.item(r, c).text() for r in range(table.rowCount()) for c in range(table.columnCount())]
    readings = view.membership.readings.text().splitlines()
    assert readings and any(cell.startswith("0.") or cell.startswith("1.") for cell in cells)

    out = tmp_path / "membership.pdf"
    window.export_report(out)
    qtbot.waitUntil(lambda: "Wrote" in window.statusBar().currentMessage(), timeout=60000)
    pdf = _flat(" ".join(page.extract_text() for page in PdfReader(str(out)).pages))
    assert MEMBERSHIP_HEADING in pdf and _flat(view.membership.summary.text()) in pdf
    for line in readings:
        assert _flat(line) in pdf, line
    auc = next(cell for cell in cells if "[" in cell)
    assert auc in pdf  # an AUC with its interval, the same in both


def test_only_the_current_tab_of_the_results_tables_is_drawn(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    """The probes' table was shown by hand, and so drawn over whichever tab was current."""
    window = sample_window
    engine = window.project.engine
    questions = {q.id: q for q in sets_repo.export_rubric(engine, window.set_id).questions}
    window.run_controller.open_backend = open_backend(questions)
    with qtbot.waitSignal(window.run_controller.finished, timeout=30000):
        window.start_configured_pass(CONFIG)
    settle(qtbot, window)
    labels = [m.label for m in CONFIG.models]
    split = MembershipSplit(members=TRAINED, held_out=HELD_OUT)
    run_memorisation_probes(
        engine,
        dict(zip(labels, fakes(window.project).values(), strict=True)),
        passages=6,
        seed=1,
        run_id=1,
        split=split,
    )
    view = window.results_view
    window.show_results(1)
    qtbot.waitUntil(lambda: view.analysis is not None and view.probes.rowCount() > 0, timeout=30000)
    view.tables.setCurrentWidget(view.membership)
    qtbot.wait(50)
    shown = [view.tables.widget(i) for i in range(view.tables.count()) if view.tables.widget(i).isVisible()]
    assert shown == [view.membership]
    assert view.tables.isTabVisible(view.tables.indexOf(view.probes))  # its tab is there, for the probes it has
