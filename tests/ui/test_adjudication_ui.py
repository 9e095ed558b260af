"""The adjudication queue and blind grading through the real widgets."""

from PySide6.QtCore import Qt

from gtreview.inference.backend import CompletionRequest, CompletionResult
from gtreview.results.loader import load_run_results
from gtreview.store import adjudication_repo, sets
from gtreview.store.db import reading
from gtreview.ui.models.queue_table import QueueFilterProxy, QueueTableModel
from tests.judging.scripted import ScriptedBackend, verdict_json
from tests.ui.test_runs_ui import CONFIG
from tests.ui.waiting import settle


def flagging_open(window):  # type: ignore[no-untyped-def]
    with reading(window.project.engine) as session:
        questions = {q.id: q for q in sets.export_rubric(session, window.set_id).questions}

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
    assert "1 score settled by an expert" in results.status.text()


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
    shown = view.marking.toPlainText() + view.answer.toPlainText()
    assert "lora" not in shown and "base" not in view.answer.toPlainText().lower()  # no model names
    assert "Judge" not in shown and "novel" not in shown  # nor the judge's verdict
    view.form.gate.setChecked(True)
    next(iter(view.form.spins.values())).setValue(2)
    qtbot.keyClick(view.form.gate, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    assert view.position == 1 and "Answer 2 of 20" in view.progress.text()
    settle(qtbot, window)
    assert "Grade saved (1 of 20)" in window.statusBar().currentMessage()
    with reading(window.project.engine) as session:
        (grade,) = adjudication_repo.grades(session, 1)
    assert grade.grader == "Dr Test" and grade.blind and grade.gate_passed and grade.total >= 3


# -- feedback: why it is queued, the decision in force, one numbering, no stale decisions --------


def open_queue(qtbot, window):  # type: ignore[no-untyped-def]
    run_flagging_pass(qtbot, window)
    window.menu_actions["adjudication"].trigger()
    settle(qtbot, window)
    return window.adjudication.queue_view


def cli_text(capsys, *argv: str) -> str:  # type: ignore[no-untyped-def]
    from gtreview.cli.main import main

    capsys.readouterr()
    assert main(list(argv)) == 0
    return str(capsys.readouterr().out)


def override_here(qtbot, window, view, reason: str = "gate condition not met") -> None:  # type: ignore[no-untyped-def]
    view.form.gate.setChecked(False)
    view.form.reason.setText(reason)
    view.override_button.click()
    settle(qtbot, window)


def test_the_detail_leads_with_why_it_was_flagged_the_answer_and_the_verdict(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    view = open_queue(qtbot, window)
    assert view.text(0, 5) == "novel"  # the judge's note, in the queue itself
    view.select(1)
    settle(qtbot, window)
    shown = view.detail.toPlainText()
    why, gate = shown.index("The judge asked for an expert: novel"), shown.index("Gate passed: because")
    answer, judge, marking = shown.index("The reef answer"), shown.index("Judge"), shown.index("QUESTION A1")
    assert why < answer and gate < answer and answer < judge < marking  # the marking block comes last
    assert "Decision in force" in shown and "none yet" in shown


def test_an_override_keeps_the_place_and_the_form_shows_the_decision_in_force(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    view = open_queue(qtbot, window)
    view.select(2)
    settle(qtbot, window)
    chosen = view.current()
    assert view.form.gate.isChecked()  # the judge passed the gate
    spin = next(iter(view.form.spins.values()))
    view.form.gate.setChecked(True)
    spin.setValue(2)
    view.form.reason.setText("credit the mechanism")
    view.override_button.click()
    settle(qtbot, window)
    assert view.table.currentIndex().row() == 2 and view.current().key == chosen.key  # the place is kept
    assert "override recorded" in window.statusBar().currentMessage() and window.notices.kind == "success"
    assert next(iter(view.form.spins.values())).value() == 2  # the form, read again, holds the override
    view.select(0)
    settle(qtbot, window)
    view.select(2)  # back again: the form starts from the override, not the judge's awards
    settle(qtbot, window)
    assert next(iter(view.form.spins.values())).value() == 2 and view.form.gate.isChecked()
    assert "override #" in view.form.origin.text()
    (step,) = [view.history.item(n).text() for n in range(view.history.count())]
    assert "{" not in step and "gate passed" in step and "2" in step and "credit the mechanism" in step


def test_a_revert_from_the_command_line_shows_when_the_queue_is_read_again(qtbot, sample_window, capsys) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    view = open_queue(qtbot, window)
    view.select(0)
    settle(qtbot, window)
    key = view.current().key
    override_here(qtbot, window, view)
    assert view.history.count() == 1 and view.text(0, 4) == "yes" and not view.form.gate.isChecked()
    where = ["--run", "1", "--project", str(window.project.folder)]
    cli_text(capsys, "adjudicate", "revert", *where, "--item", key, "--reason", "second look")
    window.menu_actions["adjudication"].trigger()  # the queue read again
    settle(qtbot, window)
    assert view.current().key == key and view.history.count() == 2 and view.text(0, 4) == ""
    assert view.form.gate.isChecked()  # the judge's verdict is in force again


def test_a_decision_on_an_item_changed_elsewhere_is_refused_and_said(qtbot, sample_window, capsys) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    view = open_queue(qtbot, window)
    view.select(0)
    settle(qtbot, window)
    key = view.current().key
    where = ["--run", "1", "--project", str(window.project.folder)]
    cli_text(capsys, "adjudicate", "override", *where, "--item", key, "--gate", "fail", "--reason", "elsewhere")
    assert view.confirm_button.isEnabled()  # the app has not heard of it yet
    view.confirm_button.click()
    settle(qtbot, window)
    kind, said = window.notices.recent[-1]
    assert kind == "warning" and said.startswith("Not recorded: the item changed since it was shown")
    with reading(window.project.engine) as session:
        actions = [d.action for d in adjudication_repo.adjudications(session, 1, key)]
    assert actions == ["override"]  # nothing recorded over what the expert never saw
    assert view.text(0, 4) == "yes" and view.history.count() == 1 and not view.form.gate.isChecked()  # shown as it is
    view.confirm_button.click()  # now decided against what is shown
    settle(qtbot, window)
    with reading(window.project.engine) as session:
        assert [d.action for d in adjudication_repo.adjudications(session, 1, key)] == ["override", "confirm"]


def test_the_app_and_the_command_line_number_samples_alike(qtbot, sample_window, capsys) -> None:  # type: ignore[no-untyped-def]
    from gtreview.app.adjudicate import item_label, sample_number

    window = sample_window
    view = open_queue(qtbot, window)
    listing = cli_text(capsys, "adjudicate", "list", "--run", "1", "--project", str(window.project.folder))
    lines = {line.split()[0]: line for line in listing.splitlines()[:-1]}  # the last line: the count
    assert "#0" not in listing
    for row, item in enumerate(view.visible_items()):
        assert view.text(row, 3) == sample_number(item.sample_index) == str(item.sample_index + 1)
        assert item_label(item) in lines[item.key]  # the CLI names the item as the app does
    view.select(1)
    settle(qtbot, window)
    item = view.current()
    assert item_label(item) in view.detail.toPlainText()
    assert f"sample {item.sample_index + 1}" in lines[item.key]


def test_an_empty_queue_says_why_in_the_table(qtbot, sample_window, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    view = window.adjudication.queue_view
    assert view.row_count() == 0 and view.empty_hint.text().startswith("Open a pass's results")
    window.run_controller.open_backend = flagging_open(window)
    monkeypatch.setattr(
        "tests.ui.test_adjudication_ui.verdict_json", lambda q, gate, awards, **_: verdict_json(q, gate, awards)
    )
    with qtbot.waitSignal(window.run_controller.finished, timeout=20000):
        window.start_configured_pass(CONFIG)  # the judge flags nothing
    settle(qtbot, window)
    window.menu_actions["adjudication"].trigger()
    settle(qtbot, window)
    assert view.row_count() == 0
    assert view.empty_hint.text().startswith("Nothing in this pass needs an expert's decision")
    assert view.empty_hint.label.isVisible()


def test_a_queue_filtered_to_nothing_says_so(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    view = open_queue(qtbot, sample_window)
    queued = view.row_count()
    assert queued and view.empty_hint.text() == ""
    view.proxy.set_filters(reason="flagged by the judge", model="(any)", qid="no such question")  # the rows go
    assert (
        view.empty_hint.text() == f"No item matches the filters ({queued} in the queue): set them to (any) to see all."
    )
