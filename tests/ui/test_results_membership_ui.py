"""The membership tests kept with a pass read the same in the results view's Membership
tab, the PDF report and ``gtreview results`` (text and JSON): AUCs, TPRs at a low FPR and
the ROC curve drawn; a report kept before TPRs and ROCs still shows."""

import json
from pathlib import Path
from types import SimpleNamespace

import pyqtgraph as pg
import pytest
from pypdf import PdfReader

from gtreview.app.probes import run_memorisation_probes
from gtreview.results.membership_text import MEMBERSHIP_HEADER, MEMBERSHIP_HEADING, TPR_HEADERS, roc_title
from gtreview.runs.membership import MembershipSplit
from gtreview.store import sets
from gtreview.store.db import reading
from gtreview.ui.widgets.membership_view import MembershipView
from tests.app.test_membership import HELD_OUT, TRAINED, fakes
from tests.cli.test_cli_results import cli
from tests.results.test_design import open_backend
from tests.runs.test_membership import synthetic_report
from tests.ui.test_runs_ui import CONFIG
from tests.ui.waiting import settle


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_membership_reads_the_same_in_the_view_the_pdf_and_the_cli(
    qtbot, sample_window, tmp_path: Path, capsys
) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    engine = window.project.engine
    with reading(engine) as session:
        questions = {q.id: q for q in sets.export_rubric(session, window.set_id).questions}
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
    rows = [[table.item(r, c).text() for c in range(table.columnCount())] for r in range(table.rowCount())]
    headers = [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())]
    assert headers == MEMBERSHIP_HEADER
    tprs = [headers.index(h) for h in TPR_HEADERS]
    for row in rows:  # every AUC and TPR cell, in the PDF's table too
        for column in (2, *tprs):
            assert _flat(row[column]) in pdf, row[column]
    assert any("held out flagged" in row[tprs[0]] for row in rows)
    assert any(row[1].startswith("Hard-token gain (HT-MIA") for row in rows)

    # the ROC drawn: the signal chosen first is the PDF's, its curves the report's corners
    membership = view.membership
    signal = membership.roc_choice.currentData()
    assert not membership.roc_pane.isHidden() and signal is not None and _flat(roc_title(signal)) in pdf
    report = membership.report
    assert report is not None
    drawn = [item for item in membership.roc.getPlotItem().items if isinstance(item, pg.PlotCurveItem)]
    corners = [a.roc for m in report.models for a in m.aucs if a.signal == signal]
    assert [list(zip(*item.getData(), strict=True)) for item in drawn[1:]] == [
        [tuple(map(float, p)) for p in c] for c in corners
    ]  # after the diagonal, one curve per model

    # gtreview results: its text prints the view's rows; its JSON the figures behind them
    folder = str(window.project.folder)
    status, out, _ = cli(capsys, "results", "--run", "1", "--project", folder)
    assert status == 0
    for row in rows:
        assert "    " + " | ".join(row) + "\n" in out
    status, out, _ = cli(capsys, "results", "--run", "1", "--project", folder, "--json")
    printed = json.loads(out)["membership"]
    assert printed == report.model_dump(mode="json")
    shown = [(m["label"], a["name"], a) for m in printed["models"] for a in m["aucs"]]
    assert len(shown) == len(rows)
    for (label, name, auc), row in zip(shown, rows, strict=True):
        assert row[0].startswith(label) and row[1] == name
        assert row[2].startswith(f"{auc['result']['auc']:.2f}")
        for column, tpr in zip(tprs, auc["tpr_at_fpr"], strict=True):
            assert row[column] == (
                f"{tpr['tpr']:.1%} ({tpr['non_members_flagged']} of {tpr['n_non_members']} held out flagged)"
            )


def test_only_the_current_tab_of_the_results_tables_is_drawn(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    """The probes' table was shown by hand, and so drawn over whichever tab was current."""
    window = sample_window
    engine = window.project.engine
    with reading(engine) as session:
        questions = {q.id: q for q in sets.export_rubric(session, window.set_id).questions}
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


@pytest.fixture()
def old_report() -> dict[str, object]:
    """A membership report as gtreview kept it before TPRs, ROC curves and the hard-token gain."""
    from gtreview.runs.membership import membership_report

    passages, by_model = synthetic_report(base_gap=0.0)
    stored = membership_report(["base", "tuned"], passages, by_model, n_boot=50, seed=1).model_dump(mode="json")
    for model in stored["models"]:
        model["aucs"] = [a for a in model["aucs"] if a["signal"] != "hard_token"]
        for auc in model["aucs"]:
            del auc["tpr_at_fpr"], auc["roc"]
        for passage in model["passages"]:
            passage["values"].pop("hard_token", None)
    return stored


def test_a_report_kept_before_tprs_and_rocs_still_shows(qtbot, old_report) -> None:  # type: ignore[no-untyped-def]
    view = MembershipView()
    qtbot.addWidget(view)
    view.show_results(SimpleNamespace(probes={"membership": old_report}))  # type: ignore[arg-type]
    table = view.table
    assert not table.isHidden() and table.rowCount() == 9  # 4 base signals, 5 of the fine-tune's
    tprs = [MEMBERSHIP_HEADER.index(h) for h in TPR_HEADERS]
    assert all(table.item(r, c).text() == "–" for r in range(table.rowCount()) for c in tprs)
    assert "kept before TPRs at a low FPR and ROC curves were" in view.summary.text()
    assert view.roc_pane.isHidden() and view.roc_choice.count() == 0  # nothing to draw, and nothing fails


def test_the_roc_follows_the_chosen_signal_and_the_theme(qtbot) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtGui import QPalette

    from gtreview.runs.membership import membership_report
    from gtreview.ui.theme import dark_palette

    passages, by_model = synthetic_report(base_gap=0.0)
    report = membership_report(["base", "tuned"], passages, by_model, n_boot=50, seed=1)
    view = MembershipView()
    qtbot.addWidget(view)
    view.show_results(SimpleNamespace(probes={"membership": report.model_dump(mode="json")}))  # type: ignore[arg-type]
    assert view.roc_choice.count() == 6 and view.roc_choice.currentData() == "loss"  # the strongest: all at 1.00

    def curves() -> int:
        return sum(isinstance(i, pg.PlotCurveItem) for i in view.roc.getPlotItem().items)

    assert curves() == 3  # chance, the base as control, the fine-tune
    view.roc_choice.setCurrentIndex(view.roc_choice.findData("hard_token"))
    assert curves() == 2  # the base has no hard-token gain of its own
    view.setPalette(dark_palette())
    ground = view.roc.backgroundBrush().color().name()
    assert ground == dark_palette().color(QPalette.ColorRole.Base).name() and curves() == 2


def test_in_a_small_tab_the_table_keeps_its_rows_beside_the_roc(qtbot) -> None:  # type: ignore[no-untyped-def]
    """At 1280x720 a results tab is about 650x200: the ROC goes beside the words and table, not below them."""
    from gtreview.runs.membership import membership_report
    from gtreview.ui.widgets.report_tab import ROWS_ALWAYS_SHOWN

    passages, by_model = synthetic_report(base_gap=0.0)
    report = membership_report(["base", "tuned"], passages, by_model, n_boot=50, seed=1)
    view = MembershipView()
    qtbot.addWidget(view)
    view.resize(650, 200)
    view.show_results(SimpleNamespace(probes={"membership": report.model_dump(mode="json")}))  # type: ignore[arg-type]
    view.show()
    qtbot.waitExposed(view)
    shown = view.table.viewport().height() // view.table.verticalHeader().defaultSectionSize()
    assert shown >= ROWS_ALWAYS_SHOWN
    plot = view.roc.geometry()
    assert plot.width() >= view.roc.minimumWidth() and plot.height() >= view.roc.minimumHeight()
    assert view.roc_pane.geometry().left() > view.table.x()
    # the chart fits its widget: a long title or axis label made it wider than its pane, and clipped it
    drawn = view.roc.plotItem.geometry()
    assert drawn.width() <= view.roc.width() and drawn.height() <= view.roc.height()
