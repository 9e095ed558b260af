"""A pass from the app: Run dialog, progress in the Runs view, cancel, resume."""

import socket
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime

from PySide6.QtWidgets import QLabel

from gtreview.app.results import run_summaries
from gtreview.inference.backend import CompletionRequest, CompletionResult, Sampling
from gtreview.runs.plan import ModelEntry, PassConfig
from gtreview.store import runs_repo
from gtreview.store.db import reading, unit_of_work
from gtreview.ui.dialogs.run_dialog import RunDialog
from gtreview.ui.flow import RUNS_POLL_MS
from gtreview.ui.widgets.runs_view import COLUMNS
from tests.judging.scripted import ScriptedBackend, fixture_reply, verdict_json
from tests.store.test_run_liveness import dead_pid, hold
from tests.ui.waiting import settle


def scripted_open(window, delay: float = 0.0):  # type: ignore[no-untyped-def]
    from gtreview.store import sets

    with reading(window.project.engine) as session:
        questions = {q.id: q for q in sets.export_rubric(session, window.set_id).questions}

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


def test_run_dialog_validates_its_form(qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    for name in ("a.gguf", "b.gguf"):
        (tmp_path / name).write_bytes(b"GGUF")
    dialog = RunDialog("Set", model_folders=[tmp_path])
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
    table = window.runs_view.table
    assert table.item(0, COLUMNS.index("Status")).text() == "finished"
    assert table.item(0, COLUMNS.index("Answers")).text() == "40"


def test_cancel_then_resume_from_the_app(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    window.run_controller.open_backend = scripted_open(window, delay=0.02)
    window.run_controller.progressed.connect(lambda event: event.done and window.runs_view.cancel_button.click())
    with qtbot.waitSignal(window.run_controller.finished, timeout=20000) as outcome:
        window.start_configured_pass(CONFIG)
    assert "cancelled" in outcome.args[0]
    with reading(window.project.engine) as session:
        (run,) = runs_repo.list_runs(session)
    assert 0 < run.generations < 40 and run.status == "stopped"  # cancelled: running it again resumes
    window.run_controller.progressed.disconnect()
    window.run_controller.progressed.connect(window.runs_view.show_event)
    with qtbot.waitSignal(window.run_controller.finished, timeout=20000) as outcome:
        window.start_configured_pass(CONFIG)
    assert "finished" in outcome.args[0]
    with reading(window.project.engine) as session:
        (run,) = runs_repo.list_runs(session)
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
    assert calibrate_text.startswith("phase 2 of 6: calibrate: judge check before generation: 0 of 6 fixtures")
    assert calibrate_text.endswith(" · then: generate base, generate lora, judge, pairwise")  # what is to come


# -- the Run dialog: missing files, Browse, remembered settings ---------------------------


def test_run_dialog_refuses_missing_model_files_and_finds_relative_ones(qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    models = tmp_path / "models"
    models.mkdir()
    (models / "base.gguf").write_bytes(b"GGUF")
    dialog = RunDialog("Set", model_folders=[tmp_path / "elsewhere", models])
    qtbot.addWidget(dialog)
    dialog.judge.setText("openai:http://127.0.0.1:8000#judge")
    dialog.models.setPlainText(f"base=llama:{tmp_path / 'missing.gguf'}")
    dialog._accept()
    assert dialog.config is None and dialog.error.text() == f"model file not found: {tmp_path / 'missing.gguf'}"
    dialog.models.setPlainText("base=llama:base.gguf\nlora=llama:base.gguf?lora=adapter.gguf")
    dialog._accept()
    assert dialog.config is None and dialog.error.text().startswith("LoRA adapter not found: adapter.gguf (looked in")
    (models / "adapter.gguf").write_bytes(b"GGUF")
    dialog._accept()
    assert dialog.config is not None
    assert [m.spec for m in dialog.config.models] == [
        f"llama:{models / 'base.gguf'}",
        f"llama:{models / 'base.gguf'}?lora={models / 'adapter.gguf'}",
    ]


def test_run_dialog_browse_starts_in_the_model_folder(qtbot, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    asked: list[str] = []
    picked = iter([str(tmp_path / "base.gguf"), str(tmp_path / "tuned.gguf"), str(tmp_path / "judge.gguf")])

    def pick(_parent, _title, start, _filter):  # type: ignore[no-untyped-def]
        asked.append(start)
        return next(picked), ""

    monkeypatch.setattr("gtreview.ui.dialogs.model_files.QFileDialog.getOpenFileName", pick)
    dialog = RunDialog("Set", model_folders=[tmp_path / "missing", tmp_path])
    qtbot.addWidget(dialog)
    dialog.add_model.click()
    dialog.add_model.click()
    dialog.browse_judge.click()
    assert asked == [str(tmp_path)] * 3  # the first model folder that exists
    assert dialog.models.toPlainText() == f"base=llama:{tmp_path / 'base.gguf'}\nmodel2=llama:{tmp_path / 'tuned.gguf'}"
    assert dialog.judge.text() == f"llama:{tmp_path / 'judge.gguf'}"


def open_run_dialog(qtbot, window) -> RunDialog:  # type: ignore[no-untyped-def]
    before = set(window.findChildren(RunDialog))
    window.start_pass()
    qtbot.waitUntil(lambda: bool(set(window.findChildren(RunDialog)) - before), timeout=10000)
    (dialog,) = set(window.findChildren(RunDialog)) - before
    return dialog


def test_the_run_dialog_remembers_the_last_pass(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    from gtreview.app.project_settings import last_pass

    window = sample_window
    window.run_controller.open_backend = scripted_open(window)
    dialog = open_run_dialog(qtbot, window)
    assert dialog.models.toPlainText() == "" and dialog.repeats.value() == 5  # nothing run yet: the defaults
    dialog.models.setPlainText("\n".join(f"{m.label}={m.spec}" for m in CONFIG.models))
    dialog.judge.setText(CONFIG.judge)
    dialog.repeats.setValue(2)
    dialog.max_tokens.setValue(32)
    dialog.pairwise.setChecked(False)
    with qtbot.waitSignal(window.run_controller.finished, timeout=30000):
        dialog._accept()
    settle(qtbot, window)
    assert last_pass(window.project.engine) is not None  # kept in the project, for every window and session
    dialog.close()
    again = open_run_dialog(qtbot, window)
    assert again.models.toPlainText() == "base=openai:http://base#m\nlora=openai:http://lora#m"
    assert (again.judge.text(), again.repeats.value(), again.max_tokens.value(), again.pairwise.isChecked()) == (
        CONFIG.judge,
        2,
        32,
        False,
    )
    again.close()


# -- the Runs view: live, interrupted, another process, resume, quit ----------------------


class Streaming(ScriptedBackend):
    """Hands back each answer as it is final (as the engine and the HTTP pool do), so the
    pass stores it at once; after the first ``after`` it waits for ``gate`` (or a cancel)."""

    def __init__(self, inner: ScriptedBackend, gate: threading.Event, after: int, pace: float) -> None:
        super().__init__(inner.respond, spec=inner.spec)
        self.gate, self.after, self.served, self.pace = gate, after, 0, pace

    def complete_batch(self, requests, on_result=None, cancel=None):  # type: ignore[no-untyped-def]
        out = []
        for index, request in enumerate(requests):
            self.served += 1
            time.sleep(self.pace)  # answers arrive over more than the pass's commit interval (0.5 s)
            while self.served > self.after and not self.gate.wait(0.02):
                if cancel is not None and cancel.is_set():
                    raise RuntimeError("cancelled")
            (result,) = super().complete_batch([request])
            out.append(result)
            if on_result is not None:
                on_result(index, result)
        return out


def gated_open(window, gate: threading.Event, after: int = 3, pace: float = 0.0):  # type: ignore[no-untyped-def]
    """Answers that wait for ``gate`` after the first ``after``: the pass stays running."""
    inner = scripted_open(window)

    def opener(spec: str):  # type: ignore[no-untyped-def]
        backend = inner(spec)
        return backend if spec.startswith("openai:http://judge") else Streaming(backend, gate, after, pace)

    return opener


ROW_OF = ("Run", "Name", "Source", "Status", "Answers", "Judgements", "Pairs")


def row_of(view, run_id: int) -> list[str]:  # type: ignore[no-untyped-def]
    """The run's row: these columns, in this order."""
    table = view.table
    for row in range(table.rowCount()):
        if table.item(row, 0).text() == str(run_id):
            return [table.item(row, COLUMNS.index(name)).text() for name in ROW_OF]
    return []


def test_a_running_pass_is_listed_with_live_counts(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    gate = threading.Event()
    window.run_controller.open_backend = gated_open(window, gate, after=6, pace=0.15)
    window.runs_timer.setInterval(100)
    window.start_configured_pass(CONFIG)
    try:
        qtbot.waitUntil(lambda: row_of(window.runs_view, 1)[3:4] == ["running"], timeout=20000)
        nav = window.navigator.runs_item
        assert [nav.child(i).text(0) for i in range(nav.childCount())] == ["1: ui pass (running)"]
        qtbot.waitUntil(lambda: int(row_of(window.runs_view, 1)[4]) > 0, timeout=20000)  # live counts
        assert int(row_of(window.runs_view, 1)[4]) <= 6 and row_of(window.runs_view, 1)[3] == "running"
        assert window.runs_view.resume_button.isEnabled() is False
    finally:
        gate.set()
        qtbot.waitUntil(lambda: not window.run_controller.running, timeout=30000)
    window.runs_timer.setInterval(RUNS_POLL_MS)
    settle(qtbot, window)
    assert row_of(window.runs_view, 1)[3:] == ["finished", "40", "40", "20"]


def test_a_pass_whose_process_died_reads_interrupted_and_resumes(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    engine = window.project.engine
    window.run_controller.open_backend = scripted_open(window, delay=0.02)
    window.run_controller.progressed.connect(lambda event: event.done and window.runs_view.cancel_button.click())
    with qtbot.waitSignal(window.run_controller.finished, timeout=20000):
        window.start_configured_pass(CONFIG)
    window.run_controller.progressed.disconnect()
    settle(qtbot, window)
    hold(engine, 1, f"{socket.gethostname()}:{dead_pid()}", datetime.now(UTC))  # killed mid-pass
    window.show_runs()
    settle(qtbot, window)
    assert row_of(window.runs_view, 1)[3] == "stopped (interrupted)"
    nav = window.navigator.runs_item
    assert nav.child(0).text(0) == "1: ui pass (stopped (interrupted))"
    window.runs_view.select_run(1)
    assert window.runs_view.resume_button.isEnabled()
    window.run_controller.open_backend = scripted_open(window)
    with qtbot.waitSignal(window.run_controller.finished, timeout=30000) as outcome:
        window.runs_view.resume_button.click()  # reruns the stored configuration: the same run carries on
    assert outcome.args[0].startswith("Run 1 finished")
    settle(qtbot, window)
    with reading(engine) as session:
        (run,) = runs_repo.list_runs(session)
    assert (run.id, run.shown_status, run.generations, run.judgements, run.pairs) == (1, "finished", 40, 40, 20)
    assert row_of(window.runs_view, 1)[3:] == ["finished", "40", "40", "20"]
    assert not window.runs_view.resume_button.isEnabled()  # a finished pass has nothing to resume


def test_a_pass_run_by_another_process_shows_as_running(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    engine = window.project.engine
    with unit_of_work(engine) as tx:
        run_id = runs_repo.create_run(
            tx, name="cli pass", rubric_hash="r", source=runs_repo.RunSource.PASS, status=runs_repo.RunStatus.STOPPED
        )
    window.runs_timer.setInterval(100)
    window.show_runs()
    with subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"]) as cli:
        try:
            owner = f"{socket.gethostname()}:{cli.pid}"
            hold(engine, run_id, owner, datetime.now(UTC))  # what `gtreview run` in a terminal writes
            qtbot.waitUntil(lambda: row_of(window.runs_view, run_id)[3:4] == ["running"], timeout=10000)
            assert window.runs_view.phase.text().startswith(f"Run {run_id} (cli pass) is running in {owner}")
        finally:
            cli.kill()
    qtbot.waitUntil(lambda: row_of(window.runs_view, run_id)[3:4] == ["stopped (interrupted)"], timeout=10000)
    assert window.runs_view.phase.text() == "No pass running."
    window.runs_timer.setInterval(RUNS_POLL_MS)
    window.pages.setCurrentWidget(window.work_splitter)
    assert not window.runs_timer.isActive()  # re-read only while the Runs page is shown (or a pass runs)


def test_answers_count_every_answer_the_run_uses(qtbot, sample_window, capsys) -> None:  # type: ignore[no-untyped-def]
    import json

    from gtreview.cli.main import main as cli_main
    from gtreview.results.loader import load_run_results

    window = sample_window
    window.run_controller.open_backend = scripted_open(window)
    base_only = CONFIG.model_copy(update={"name": "base only", "models": CONFIG.models[:1]})
    with qtbot.waitSignal(window.run_controller.finished, timeout=30000):
        window.start_configured_pass(base_only)
    settle(qtbot, window)
    with qtbot.waitSignal(window.run_controller.finished, timeout=30000):
        window.start_configured_pass(CONFIG)  # reuses the 20 answers of the base
    settle(qtbot, window)
    shown = row_of(window.runs_view, 2)
    counts = load_run_results(window.project.engine, 2).record_counts()
    assert shown[4:] == [str(counts["generations"]), str(counts["judgements"]), str(counts["pairs"])]
    assert shown[4:] == ["40", "40", "20"]  # 20 reused + 20 new answers, not the 20 new rows alone
    capsys.readouterr()
    assert cli_main(["results", "--run", "2", "--json", "--project", str(window.project.folder)]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert sum(m["samples"] - m["missing"] for m in figures["models"]) == int(shown[4])


def test_quitting_during_a_pass_asks_then_stops_it_cleanly(qtbot, sample_window, caplog) -> None:  # type: ignore[no-untyped-def]
    import logging

    window = sample_window
    gate = threading.Event()
    window.run_controller.open_backend = gated_open(window, gate)
    window.start_configured_pass(CONFIG)
    qtbot.waitUntil(lambda: bool(run_summaries(window.project.engine)), timeout=20000)
    asked: list[bool] = []
    window.ask_stop_jobs = lambda _parent, _jobs: asked.append(False) or False  # "No": keep running
    assert window.close() is False and window.isVisible() and window.run_controller.running

    def stop(_parent, jobs) -> bool:  # type: ignore[no-untyped-def]
        assert [job.title for job in jobs] == ['Pass "ui pass"']
        asked.append(True)
        return True  # the waiting answer sees the cancel

    window.ask_stop_jobs = stop
    with caplog.at_level(logging.ERROR):
        window.menu_actions["quit"].trigger()
        assert not window.isVisible() and not window.run_controller.running  # stopped before the window went
    assert asked == [False, True]
    assert [r for r in caplog.records if r.levelno >= logging.ERROR] == []  # no traceback, nothing logged as a bug
    with reading(window.project.engine) as session:
        (run,) = runs_repo.list_runs(session)
    assert run.shown_status == "stopped" and run.resumable


def test_a_shown_pass_that_is_cancelled_reads_stopped_and_says_why(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    """The results page of a running pass said "Pass running" after the pass was cancelled,
    until the run was opened again; now it is read again, says it was cancelled, and names
    the app's Resume as well as the CLI."""
    window = sample_window
    window.run_controller.open_backend = scripted_open(window, delay=0.05)
    opened: list[int] = []

    def open_then_cancel(event) -> None:  # type: ignore[no-untyped-def]
        if event.phase == "generate" and event.done and not opened:
            opened.append(1)
            window.show_results(1)
        elif opened == [1] and window.results.shown_status == "running":
            opened.append(2)
            window.runs_view.cancel_button.click()

    window.run_controller.progressed.connect(open_then_cancel)
    with qtbot.waitSignal(window.run_controller.finished, timeout=30000):
        window.start_configured_pass(CONFIG)
    shown = window.results_view.status

    def said() -> str:
        return str(shown.text())

    qtbot.waitUntil(lambda: said().startswith("Pass not finished: cancelled"), timeout=20000)
    assert "Resume selected pass" in said() and "gtreview run" in said()


def test_every_field_of_the_run_dialog_has_its_own_alt_key(qtbot) -> None:  # type: ignore[no-untyped-def]
    """Alt+T was both Temperature and Max new tokens; Max new tokens is Alt+K."""
    dialog = RunDialog("Set")
    qtbot.addWidget(dialog)
    keys: dict[str, str] = {}
    for label in dialog.findChildren(QLabel):
        text = label.text()
        if "&" in text and label.buddy() is not None:
            key = text[text.index("&") + 1].lower()
            assert key not in keys, f"Alt+{key.upper()} is both {keys[key]!r} and {text!r}"
            keys[key] = text
    assert keys["k"] == "Max new to&kens"


def test_a_copy_of_the_base_is_refused_in_one_line_and_no_run_is_made(
    qtbot, sample_window, tiny_gguf, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    copy = tmp_path / "geo-ft.gguf"
    copy.write_bytes(tiny_gguf.read_bytes())
    models = [ModelEntry(label="base", spec=f"llama:{tiny_gguf}"), ModelEntry(label="geo", spec=f"llama:{copy}")]
    with qtbot.waitSignal(window.run_controller.finished, timeout=30000) as outcome:
        window.start_configured_pass(CONFIG.model_copy(update={"models": models}))
    assert outcome.args[0].startswith("Pass not started: base and geo are the same model (sha256 ")
    with reading(window.project.engine) as session:
        assert runs_repo.list_runs(session) == []
