"""The adjudication queue and blind grading through the real widgets."""

from PySide6.QtCore import Qt

from gtreview.inference.backend import CompletionRequest, CompletionResult
from gtreview.results.loader import load_run_results
from gtreview.store import adjudication_repo, sets_repo
from gtreview.ui.models.queue_table import QueueFilterProxy, QueueTableModel
from tests.judging.scripted import ScriptedBackend, verdict_json
from tests.ui.test_runs_ui import CONFIG
from tests.ui.waiting import settle


def flagging_open(window):  # type: ignore[no-untyped-def]
    questions = {q.id: q for q in sets_repo.export_rubric(window.project.engine, window.set_id).questions}

    def judge(request: CompletionRequest) -> str:
        content = request.messages[1].content
        if "ANSWER A:" in content:
            return '{"reason": "r", "verdict": "[[A=B]]"}'
        qid, question = next((qid, q) for qid, q in questions.items() if f"QUESTION {qid}:" in content)
        return verdict_json(question, True, {}, adjudication_required=qid == "A1", adjudication_note="novel")

    def answers(spec: str) -> ScriptedBackend:
        return ScriptedBackend(
            lambda r: CompletionResult(text=f"The reef answer, variant {r.sampling.seed} {len(spec)}."), spec=spec
        )

    return lambda spec: ScriptedBackend(judge, spec=spec) if spec.startswith("openai:http://judge") else answers(spec)


def run_flagging_pass(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    window.run_controller.open_backend = flagging_open(window)
    with qtbot.waitSignal(window.run_controller.finished, timeout=20000):
        window.start_configured_pass(CONFIG)
    settle(qtbot, window)


def sample_of(window, key: str):  # type: ignore[no-untyped-def]
    return next(s for s in load_run_results(window.project.engine, 1).samples if s.judgement_key == key)


def test_override_and_revert_from_the_queue(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    run_flagging_pass(qtbot, window)
    window.menu_actions["adjudication"].trigger()
    settle(qtbot, window)
    view = window.adjudication.queue_view
    assert window.pages.currentWidget() is view
    assert view.row_count() == 4  # A1, two models x two samples, flagged by the judge
    assert {view.text(r, 0) for r in range(view.row_count())} == {"flagged by the judge"}
    view.model_filter.setCurrentText("lora")
    assert view.row_count() == 2
    view.select(0)
    settle(qtbot, window)
    assert "QUESTION A1" in view.detail.toPlainText() and "Judge" in view.detail.toPlainText()
    before = sample_of(window, view.current().key)
    view.form.gate.setChecked(False)
    view.override_button.click()
    settle(qtbot, window)
    assert "Not recorded: an override needs a reason" in window.statusBar().currentMessage()
    view.form.reason.setText("gate condition not met: no oxidised/sulphide distinction")
    view.override_button.click()
    settle(qtbot, window)
    assert "override recorded" in window.statusBar().currentMessage()
    after = sample_of(window, before.judgement_key)
    assert (after.total, after.adjudicated, after.judge_total) == (0.0, True, before.total)
    assert view.current().key == before.judgement_key  # the same item stays selected, now settled
    assert view.text(0, 4) == "yes" and view.history.count() == 1 and view.form.reason.text() == ""
    view.history.setCurrentRow(0)
    window.adjudication.ask_text = lambda title, prompt: "overruled on appeal"
    view.revert_button.click()
    settle(qtbot, window)
    restored = sample_of(window, before.judgement_key)
    assert restored.total == before.total and not restored.adjudicated
    assert view.current().key == before.judgement_key and view.text(0, 4) == "" and view.history.count() == 2


def test_override_keeps_the_item_and_changes_the_results_figures(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    run_flagging_pass(qtbot, window)
    window.show_results(1)
    settle(qtbot, window)
    results = window.results_view
    assert window.pages.currentWidget() is results
    mean_before = {m.label: m.summary.mean for m in results.analysis.models}["lora"]

    window.menu_actions["adjudication"].trigger()
    settle(qtbot, window)
    view = window.adjudication.queue_view
    view.model_filter.setCurrentText("lora")
    view.select(1)
    settle(qtbot, window)
    chosen = view.current()
    assert chosen is not None and not chosen.settled
    view.form.gate.setChecked(False)
    view.form.reason.setText("no gate")
    with qtbot.waitSignal(window.ops.changes_applied, timeout=20000) as applied:
        view.override_button.click()
    assert applied.args[0].adjudications == {1}
    settle(qtbot, window)
    assert view.current().key == chosen.key and view.current().settled  # selection kept on the same item
    assert view.row_count() == 2 and window.adjudication.deciding is False

    assert results.analysis.models is not None and window.results.stale  # hidden: read again when shown
    window.pages.setCurrentWidget(results)
    settle(qtbot, window)
    mean_after = {m.label: m.summary.mean for m in results.analysis.models}["lora"]
    assert mean_after < mean_before and not window.results.stale
    assert "1 score(s) settled by an expert" in results.status.text()


def test_queue_models_pass_the_model_tester(qtmodeltester, qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    run_flagging_pass(qtbot, window)
    window.menu_actions["adjudication"].trigger()
    settle(qtbot, window)
    items = window.adjudication.queue_view.model.items()
    model = QueueTableModel(items)
    qtmodeltester.check(model)
    proxy = QueueFilterProxy()
    proxy.setSourceModel(model)
    proxy.set_filters(model="lora")
    qtmodeltester.check(proxy)
    settled = [items[0].model_copy(update={"settled": True}), *items[1:]]
    model.set_items(settled)  # the same items: rows change in place
    assert model.index(0, 4).data() == "yes" and model.rowCount() == len(items)
    qtmodeltester.check(model)


def test_blind_grading_is_keyboard_first_and_hides_the_model(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    run_flagging_pass(qtbot, window)
    window.menu_actions["grading"].trigger()
    settle(qtbot, window)
    view = window.adjudication.grading_view
    assert window.pages.currentWidget() is view and len(view.items) == 20
    shown = view.text.toPlainText()
    assert "lora" not in shown and "base" not in shown.lower().split("answer to grade")[1]  # no model names
    assert "Judge" not in shown and "novel" not in shown  # nor the judge's verdict
    view.form.gate.setChecked(True)
    next(iter(view.form.spins.values())).setValue(2)
    qtbot.keyClick(view.form.gate, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    assert view.position == 1 and "Answer 2 of 20" in view.progress.text()
    settle(qtbot, window)
    assert "Grade saved (1 of 20)" in window.statusBar().currentMessage()
    (grade,) = adjudication_repo.grades(window.project.engine, 1)
    assert grade.grader == "Dr Test" and grade.blind and grade.gate_passed and grade.total >= 3
