"""GUI-thread time of the expert's actions on a large set and pass: open the set, next
unreviewed, start review, an autosaved edit, approve, confirm, override.

Builds (once, into --project, or a temporary folder) a project holding a 2,000-question
set and a finished pass of 3 models x 2 repeats with every generation, judgement and
pair stored (scripted backends through the real pass code; some judgements flagged for
adjudication, some pairs unknown or inconsistent), opens the main window offscreen, and
measures each action in one run, side by side:

  - GUI thread: the time the GUI thread spends handling the action, from the slot to
    the last callback of the operations it started (every event the application
    dispatches meanwhile is timed in ``QApplication.notify``; the waiting between them,
    while workers run, is not the GUI thread's time), median and max over the repeats;
  - longest event: the longest single stretch the window could not respond;
  - done in: wall time until the action's results are on screen;
  - synchronous: the same app calls made one after another on the calling thread, which
    is what the old code did on the GUI thread (a lower bound of its freeze: its widget
    updates came on top).

    QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/bench_gui_actions.py [--questions 2000] [--repeats 2]
        [--project DIR] [--times 5]
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import random
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PySide6.QtCore import QEvent, QEventLoop, QObject, QSettings, QTimer
from PySide6.QtWidgets import QApplication

from gtreview.app import adjudication as adj
from gtreview.app import editing, review, workflow
from gtreview.app.corpus_import import import_corpus
from gtreview.app.question_calibration import latest_calibration
from gtreview.app.sample_project import SAMPLE_CORPUS_FOLDERS, sample_rubric_path
from gtreview.core.jsonmodel import canonical_hash
from gtreview.core.rubric import Question, Rubric
from gtreview.inference.backend import CompletionRequest, CompletionResult, Sampling
from gtreview.paths import sample_corpus_dir
from gtreview.results.loader import load_run_results
from gtreview.runs.execute import run_pass
from gtreview.runs.plan import ModelEntry, PassConfig
from gtreview.store import runs_repo, sets
from gtreview.store.db import reading, unit_of_work
from gtreview.store.project import DB_FILE, create_project, open_project
from gtreview.store.settings_repo import APPROVAL_REQUIRES_CALIBRATION, set_setting
from gtreview.ui.gui_thread import install_gui_thread_first
from tests.judging.scripted import ScriptedBackend, verdict_json

MODELS = ("base", "geo-lora", "geo-lora-v2")
_QUESTION = re.compile(r"QUESTION (\S+):")


class TimedApp(QApplication):
    """Times every event the GUI thread dispatches (outermost ones; nested ones are inside)."""

    def __init__(self, argv: list[str]) -> None:
        super().__init__(argv)
        self.spans: list[float] | None = None
        self._depth = 0

    def notify(self, receiver: QObject, event: QEvent) -> bool:
        if self.spans is None or self._depth:
            return super().notify(receiver, event)
        self._depth += 1
        start = time.perf_counter()
        try:
            return super().notify(receiver, event)
        finally:
            self.spans.append(time.perf_counter() - start)
            self._depth -= 1


# -- the project ---------------------------------------------------------------------


def _rubric(n_questions: int) -> Rubric:
    sample = json.loads(sample_rubric_path().read_text(encoding="utf-8"))
    data = {**sample, "questions": []}
    for position in range(n_questions):
        question = copy.deepcopy(sample["questions"][position % len(sample["questions"])])
        question["id"] = f"{question['section']}{position + 1}"
        for fixture in question["calibration"]:
            fixture["fixture_id"] = f"{question['id']}-{fixture['fixture_id'].split('-')[-1]}"
        data["questions"].append(question)
    data["benchmark"]["question_count"] = n_questions
    return Rubric.model_validate(data)


def _opener(questions: dict[str, Question]) -> Callable[[str], ScriptedBackend]:
    def judge(request: CompletionRequest) -> str:
        content = request.messages[1].content
        match = _QUESTION.search(content)
        qid = match.group(1) if match else ""
        if "ANSWER A:" in content:  # pairwise: mostly ties; a few unknown, a few that flip with the order
            roll = random.Random(qid + content.split("ANSWER A:")[0][-40:]).random()
            if roll < 0.03:
                return "no verdict"
            return '{"reason": "r", "verdict": "[[A>B]]"}' if roll < 0.06 else '{"reason": "r", "verdict": "[[A=B]]"}'
        rng = random.Random(content)
        question = questions[qid]
        gate = rng.random() < 0.7
        awards = {
            c.id: (int(c.points) if c.is_gate else rng.randint(0, int(c.points))) if gate else 0
            for c in question.components
        }
        return verdict_json(
            question, gate, awards, adjudication_required=rng.random() < 0.05, adjudication_note="novel"
        )

    def answers(spec: str) -> ScriptedBackend:
        return ScriptedBackend(
            lambda r: CompletionResult(
                text=f"An answer {r.sampling.seed} {len(spec)} about reefs.", completion_tokens=7
            ),
            spec=spec,
        )

    return lambda spec: ScriptedBackend(judge, spec=spec) if "judge" in spec else answers(spec)


def build(folder: Path, n_questions: int, repeats: int) -> None:
    project = open_project(folder) if (folder / DB_FILE).exists() else create_project(folder)
    try:
        with reading(project.engine) as session:
            if runs_repo.list_runs(session):
                return
        started = time.perf_counter()
        root = sample_corpus_dir()
        import_corpus(project.engine, [root / name for name in SAMPLE_CORPUS_FOLDERS])
        rubric = _rubric(n_questions)
        with unit_of_work(project.engine) as tx:
            set_setting(tx, APPROVAL_REQUIRES_CALIBRATION, False)
            set_id = sets.import_rubric(tx, rubric, source_name="bench.json", source_sha256="b", actor="b")
        config = PassConfig(
            name=f"bench {n_questions}x{len(MODELS)}x{repeats}",
            models=[ModelEntry(label=m, spec=f"openai:http://{m}#m") for m in MODELS],
            judge="openai:http://judge#j",
            repeats=repeats,
            sampling=Sampling(temperature=0.7, seed=1, max_tokens=32),
            drift_every=0,
        )
        result = run_pass(
            project.engine,
            config,
            rubric.questions,
            rubric_hash=canonical_hash(rubric.to_json_dict()),
            open_backend=_opener({q.id: q for q in rubric.questions}),
            set_id=set_id,
            global_variants=rubric.global_variants,
        )
        print(
            f"built {folder}: {result.generated} answers, {result.judged} judgements, {result.pairs} pairs "
            f"in {time.perf_counter() - started:.0f} s",
            flush=True,
        )
    finally:
        project.close()


# -- measuring -------------------------------------------------------------------------


def wait_idle(app: TimedApp, window: Any, tail_ms: int = 30) -> None:
    """Run the event loop until every op has finished, then a little longer for repaints."""
    loop = QEventLoop()
    if not window.ops.idle():
        window.ops.settled.connect(loop.quit)
        QTimer.singleShot(300_000, loop.quit)
        loop.exec()
        window.ops.settled.disconnect(loop.quit)
    QTimer.singleShot(tail_ms, loop.quit)
    loop.exec()


def measure(app: TimedApp, window: Any, trigger: Callable[[], None]) -> tuple[float, float, float]:
    """(GUI-thread seconds, longest single event, wall seconds until done)."""
    wait_idle(app, window)
    app.spans = []
    app._depth = 1  # events sent synchronously inside the slot are the slot's time
    start = time.perf_counter()
    try:
        trigger()
    finally:
        app._depth = 0
    slot = time.perf_counter() - start
    wait_idle(app, window, tail_ms=0)
    wall = time.perf_counter() - start
    spans, app.spans = app.spans, None
    wait_idle(app, window)  # repaints after the last callback (not timed: not this action's)
    return slot + sum(spans), max([slot, *spans]), wall


def _decide(engine: Any, decide: str, results: Any, item: Any) -> int:
    """The old controller's record: one decision in its own unit of work."""
    with unit_of_work(engine) as tx:
        if decide == "confirm":
            return adj.confirm(tx, results.run_id, item.target, item.key, actor="b")
        return adj.override_judgement(
            tx, results, item.key, actor="b", gate_passed=False, awards={}, reason="gate not met"
        )


def timed(call: Callable[[], object]) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def run(folder: Path, times: int) -> list[tuple[str, list[tuple[float, float, float]], list[float]]]:
    from gtreview.ui.main_window import MainWindow

    app = QApplication.instance()
    assert isinstance(app, TimedApp)
    project = open_project(folder)
    settings = QSettings(str(folder / "bench-settings.ini"), QSettings.Format.IniFormat)
    settings.setValue("reviewer/name", "Dr Bench")
    window = MainWindow(project, settings)
    window.resize(1500, 950)
    window.show()
    engine = project.engine
    wait_idle(app, window)
    set_id = window.set_id
    assert set_id is not None
    with reading(engine) as session:
        run_id = runs_repo.list_runs(session)[-1].id
    index = review.corpus_index(engine)
    rows: list[tuple[str, list[tuple[float, float, float]], list[float]]] = []

    def old_question_refresh(qid: str) -> None:
        """What the old window read on the GUI thread after a save or a review action."""
        review.question_row(engine, set_id, qid)
        detail = review.question_detail(engine, index, set_id, qid)
        latest_calibration(engine, set_id, qid)
        workflow.history(engine, set_id, qid)
        with reading(engine) as session:
            versions = sets.list_versions(session, set_id, qid)
        if len(versions) > 1:
            editing.diff_versions(engine, set_id, qid, versions[-2].version, versions[-1].version)
        with reading(engine) as session:
            sets.list_sets(session)
        workflow.signoffs(engine, set_id)
        assert detail.question.id == qid

    # open the set, coming from another page (what the navigator does)
    new, old = [], []
    for _ in range(times):
        window.show_runs()
        wait_idle(app, window)
        new.append(measure(app, window, lambda: window.open_set(set_id)))
        old.append(timed(lambda: (review.set_overview(engine, set_id), old_question_refresh(window.qid or ""))))
    rows.append(("open the set", new, old))

    # the same, when the list shows other questions (another set, or the first opening):
    # the list is rebuilt rather than updated in place
    new = []
    for _ in range(times):
        window.show_runs()
        wait_idle(app, window)
        window.question_list.model.set_rows([])
        new.append(measure(app, window, lambda: window.open_set(set_id)))
    rows.append(("open, rebuilt", new, []))

    # next unreviewed (Ctrl+J), from the top of the list
    new = []
    for _ in range(times):
        window.question_list.table.selectRow(0)
        wait_idle(app, window)
        new.append(measure(app, window, window.menu_actions["next_unreviewed"].trigger))
    rows.append(("next unreviewed", new, []))

    # start review (Ctrl+R) of the selected draft question
    window.tabs.setCurrentWidget(window.question_view)
    new, old = [], []
    for n in range(times):
        window.question_list.table.selectRow(4 * times + 2 * n)
        wait_idle(app, window)
        new.append(measure(app, window, window.menu_actions["start_review"].trigger))
        qid = window.question_list.model.rows()[4 * times + 2 * n + 1].qid
        old.append(
            timed(
                lambda q=qid: (workflow.start_review(engine, set_id, q, reviewer="b"), old_question_refresh(q))  # type: ignore[func-returns-value]
            )
        )
    rows.append(("start review", new, old))

    # edit a field (autosave): commit a new title of the question shown (typing happens on the Edit tab)
    editor = window.editor
    window.tabs.setCurrentWidget(editor)
    title = next(b for b in editor._bindings if b.path == ("title",))
    new, old = [], []
    for n in range(times):
        window.question_list.table.selectRow(2 * n)
        wait_idle(app, window)
        editor.title_edit.setText(f"Edited title {n} at {time.time():.0f}")
        editor._changed(title)  # typing: live validation, not the commit
        new.append(measure(app, window, editor.commit_pending))
        qid = f"{window.question_list.model.rows()[2 * n + 1].qid}"
        old.append(
            timed(
                lambda q=qid, n=n: (
                    editing.apply_edit(engine, set_id, q, ("title",), f"Old way {n}", author="b"),
                    old_question_refresh(q),
                )
            )
        )
    rows.append(("autosave edit", new, old))

    # approve the selected question (from the Question tab, which shows the new status)
    window.tabs.setCurrentWidget(window.question_view)
    new, old = [], []
    approve_from = 2 * times
    for n in range(times):
        window.question_list.table.selectRow(approve_from + 2 * n)
        wait_idle(app, window)
        new.append(measure(app, window, window.menu_actions["approve"].trigger))
        qid = window.question_list.model.rows()[approve_from + 1 + 2 * n].qid
        old.append(
            timed(
                lambda q=qid: (workflow.approve(engine, set_id, q, reviewer="b"), old_question_refresh(q))  # type: ignore[func-returns-value]
            )
        )
    rows.append(("approve", new, old))

    # the adjudication queue, with the pass's results open in the results view
    window.show_results(run_id)
    wait_idle(app, window)
    window.menu_actions["adjudication"].trigger()
    wait_idle(app, window)
    view = window.adjudication.queue_view
    print(f"queue: {view.row_count()} items over {len(window.adjudication.results.samples)} answers", flush=True)
    view.reason_filter.setCurrentText(adj.QueueReason.FLAGGED.value)
    wait_idle(app, window)
    flagged = view.visible_items()

    opened = load_run_results(engine, run_id)  # what the old controller held since opening the queue

    def old_decision(record: Callable[[Any], object]) -> None:
        """The old controller: record, then reload and re-queue the whole run on the GUI thread."""
        record(opened)
        adj.adjudication_queue(engine, load_run_results(engine, run_id), set_id=set_id)

    for label, decide in (("confirm", "confirm"), ("override", "override")):
        new, old = [], []
        for n in range(times):
            position = (0 if decide == "confirm" else times) + 2 * n
            view.select(position)
            wait_idle(app, window)
            if decide == "override":
                view.form.gate.setChecked(False)
                view.form.reason.setText("gate not met")
                new.append(measure(app, window, view.override_button.click))
            else:
                new.append(measure(app, window, view.confirm_button.click))
            assert view.current().key == flagged[position].key and view.current().settled
            other = flagged[position + 1]
            old.append(timed(lambda o=other, d=decide: old_decision(lambda r: _decide(engine, d, r, o))))
        rows.append((label, new, old))
    window.close()
    project.close()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--questions", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--times", type=int, default=5, help="measurements per action")
    parser.add_argument("--project", type=Path, help="build here once and reuse (default: a temporary folder)")
    args = parser.parse_args()
    TimedApp(sys.argv[:1])
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.project or Path(tmp) / "bench"
        build(folder, args.questions, args.repeats)
        rows = run(folder, args.times)
    print(
        f"\n{args.questions} questions x {len(MODELS)} models x {args.repeats} repeats; ms, median (max) of {args.times}"
    )
    header = ("action", "GUI thread", "longest event", "done in", "synchronous (old)", "old / GUI")
    print(f"{header[0]:<16}{header[1]:>16}{header[2]:>16}{header[3]:>12}{header[4]:>20}{header[5]:>10}")
    for label, new, old in rows:
        gui = [g * 1000 for g, _, _ in new]
        longest = [m * 1000 for _, m, _ in new]
        wall = [w * 1000 for _, _, w in new]
        sync = [s * 1000 for s in old]
        old_text = (
            f"{statistics.median(sync):>12.0f} ({max(sync):>5.0f}){statistics.median(sync) / statistics.median(gui):>10.1f}x"
            if sync
            else f"{'(GUI only)':>20}"
        )
        print(
            f"{label:<16}{statistics.median(gui):>8.1f} ({max(gui):>5.1f})"
            f"{statistics.median(longest):>9.1f} ({max(longest):>4.1f})"
            f"{statistics.median(wall):>12.0f}{old_text}"
        )
    print("aim: GUI thread under 50 ms per action")
    collector = install_gui_thread_first()
    print(
        f"full garbage collections on the GUI thread (when quiet, not inside an action): "
        f"{collector.full_collections}, {collector.full_seconds * 1000:.0f} ms in all, "
        f"longest {collector.longest_full * 1000:.0f} ms"
    )


if __name__ == "__main__":
    main()
