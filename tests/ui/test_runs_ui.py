"""A pass from the app: Run dialog, progress in the Runs view, cancel, resume."""

import time

from gtreview.inference.backend import CompletionRequest, CompletionResult, Sampling
from gtreview.runs.plan import ModelEntry, PassConfig
from gtreview.store import runs_repo
from gtreview.ui.dialogs.run_dialog import RunDialog
from tests.judging.scripted import ScriptedBackend, fixture_reply, verdict_json
from tests.ui.waiting import settle


def scripted_open(window, delay: float = 0.0):  # type: ignore[no-untyped-def]
    from gtreview.store import sets_repo

    questions = {q.id: q for q in sets_repo.export_rubric(window.project.engine, window.set_id).questions}

    def judge(request: CompletionRequest) -> str:
        content = request.messages[1].content
        if "ANSWER A:" in content:
            return '{"reason": "r", "verdict": "[[A=B]]"}'
        question = next(q for qid, q in questions.items() if f"QUESTION {qid}:" in content)
        for fixture in question.calibration:  # the judge reproduces the calibration fixtures
            if f"<<<\n{fixture.response_text}\n>>>" in content:
                return fixture_reply(question, fixture)
        return verdict_json(question, True, {})

    def answer(request: CompletionRequest) -> CompletionResult:
        time.sleep(delay)
        return CompletionResult(text="An answer about saddle reefs.", completion_tokens=7)

    return lambda spec: ScriptedBackend(judge if spec.startswith("openai:http://judge") else answer, spec=spec)


CONFIG = PassConfig(
    name="ui pass",
    models=[
        ModelEntry(label="base", spec="openai:http://base#m"),
        ModelEntry(label="lora", spec="openai:http://lora#m"),
    ],
    judge="openai:http://judge#j",
    repeats=2,
    sampling=Sampling(temperature=0.7, seed=1, max_tokens=32),
    drift_every=0,
)


def test_run_dialog_validates_its_form(qtbot) -> None:  # type: ignore[no-untyped-def]
    dialog = RunDialog("Set")
    qtbot.addWidget(dialog)
    dialog.models.setPlainText("base llama:x.gguf")
    dialog._accept()
    assert "is not LABEL=SPEC" in dialog.error.text() and dialog.config is None
    dialog.models.setPlainText("base=llama:a.gguf\nlora=llama:a.gguf?lora=b.gguf")
    dialog.judge.setText("openai:http://127.0.0.1:8000#judge")
    dialog._accept()
    assert dialog.config is not None and [m.label for m in dialog.config.models] == ["base", "lora"]


def test_pass_runs_with_progress_then_shows_in_runs(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    window.run_controller.open_backend = scripted_open(window)
    events = []
    window.run_controller.progressed.connect(events.append)
    with qtbot.waitSignal(window.run_controller.finished, timeout=20000) as outcome:
        window.start_configured_pass(CONFIG)
    assert outcome.args[0].startswith("Run 1 finished: 40 answers, 0 errors, 40 judged")
    settle(qtbot, window)
    assert {e.phase for e in events} == {"generate", "judge", "pairwise"}
    assert window.pages.currentWidget() is window.runs_view
    assert window.runs_view.table.item(0, 3).text() == "finished" and window.runs_view.table.item(0, 4).text() == "40"


def test_cancel_then_resume_from_the_app(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    window.run_controller.open_backend = scripted_open(window, delay=0.02)
    window.run_controller.progressed.connect(lambda event: window.runs_view.cancel_button.click())
    with qtbot.waitSignal(window.run_controller.finished, timeout=20000) as outcome:
        window.start_configured_pass(CONFIG)
    assert "cancelled" in outcome.args[0]
    (run,) = runs_repo.list_runs(window.project.engine)
    assert 0 < run.generations < 40 and run.status == "stopped"  # cancelled: running it again resumes
    window.run_controller.progressed.disconnect()
    window.run_controller.progressed.connect(window.runs_view.show_event)
    with qtbot.waitSignal(window.run_controller.finished, timeout=20000) as outcome:
        window.start_configured_pass(CONFIG)
    assert "finished" in outcome.args[0]
    (run,) = runs_repo.list_runs(window.project.engine)
    assert (run.generations, run.judgements, run.pairs, run.status) == (40, 40, 20, "finished")


def test_the_judge_check_before_generation_shows_in_the_runs_view(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    window.run_controller.open_backend = scripted_open(window)
    shown: list[tuple[str, str]] = []

    def record(event) -> None:  # type: ignore[no-untyped-def]
        window.runs_view.show_event(event)
        shown.append((event.phase, window.runs_view.phase.text()))

    window.run_controller.progressed.connect(record)
    with qtbot.waitSignal(window.run_controller.finished, timeout=30000) as outcome:
        window.start_configured_pass(CONFIG.model_copy(update={"drift_every": 20}))
    assert "finished" in outcome.args[0]
    phases = [phase for phase, _ in shown]
    assert phases[0] == "calibrate" and phases.index("generate") > phases.index("calibrate")
    assert "drift" in phases  # re-checked during judging
    calibrate_text = next(text for phase, text in shown if phase == "calibrate")
    assert calibrate_text.startswith("calibrate: judge check before generation: 1 of ")
