"""The adjudication queue and blind grading through the real widgets."""

from PySide6.QtCore import Qt

from gtreview.inference.backend import CompletionRequest, CompletionResult
from gtreview.results.loader import load_run_results
from gtreview.store import adjudication_repo, sets_repo
from tests.judging.scripted import ScriptedBackend, verdict_json
from tests.ui.test_runs_ui import CONFIG


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


def test_override_and_revert_from_the_queue(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    window.run_controller.open_backend = flagging_open(window)
    with qtbot.waitSignal(window.run_controller.finished, timeout=20000):
        window.start_configured_pass(CONFIG)
    window.menu_actions["adjudication"].trigger()
    view = window.adjudication.queue_view
    assert window.pages.currentWidget() is view
    assert view.table.rowCount() == 4  # A1, two models x two samples, flagged by the judge
    assert {view.table.item(r, 0).text() for r in range(view.table.rowCount())} == {"flagged by the judge"}
    view.model_filter.setCurrentText("lora")
    assert view.table.rowCount() == 2
    view.select(0)
    assert "QUESTION A1" in view.detail.toPlainText() and "Judge" in view.detail.toPlainText()
    before = next(
        s for s in load_run_results(window.project.engine, 1).samples if s.judgement_key == view.current().key
    )
    view.form.gate.setChecked(False)
    view.override_button.click()
    assert "Not recorded: an override needs a reason" in window.statusBar().currentMessage()
    view.form.reason.setText("gate condition not met: no oxidised/sulphide distinction")
    view.override_button.click()
    assert "override recorded" in window.statusBar().currentMessage()
    after = next(
        s for s in load_run_results(window.project.engine, 1).samples if s.judgement_key == before.judgement_key
    )
    assert (after.total, after.adjudicated, after.judge_total) == (0.0, True, before.total)
    view.model_filter.setCurrentText("lora")
    row = next(r for r in range(view.table.rowCount()) if view.visible_items()[r].key == before.judgement_key)
    view.select(row)
    assert view.table.item(row, 4).text() == "yes" and view.history.count() == 1
    view.history.setCurrentRow(0)
    window.adjudication.ask_text = lambda title, prompt: "overruled on appeal"
    view.revert_button.click()
    restored = next(
        s for s in load_run_results(window.project.engine, 1).samples if s.judgement_key == before.judgement_key
    )
    assert restored.total == before.total and not restored.adjudicated


def test_blind_grading_is_keyboard_first_and_hides_the_model(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    window.run_controller.open_backend = flagging_open(window)
    with qtbot.waitSignal(window.run_controller.finished, timeout=20000):
        window.start_configured_pass(CONFIG)
    window.menu_actions["grading"].trigger()
    view = window.adjudication.grading_view
    assert window.pages.currentWidget() is view and len(view.items) == 20
    shown = view.text.toPlainText()
    assert "lora" not in shown and "base" not in shown.lower().split("answer to grade")[1]  # no model names
    assert "Judge" not in shown and "novel" not in shown  # nor the judge's verdict
    view.form.gate.setChecked(True)
    next(iter(view.form.spins.values())).setValue(2)
    qtbot.keyClick(view.form.gate, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    assert view.position == 1 and "Answer 2 of 20" in view.progress.text()
    (grade,) = adjudication_repo.grades(window.project.engine, 1)
    assert grade.grader == "Dr Test" and grade.blind and grade.gate_passed and grade.total >= 3
