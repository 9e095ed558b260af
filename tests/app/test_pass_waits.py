"""The same pass started while it runs elsewhere waits for it and then costs nothing,
rather than paying for every model call twice (or being refused, when asked)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from gtreview.app.passes import run_benchmark_pass
from gtreview.core.rubric import Rubric
from gtreview.inference.backend import CompletionBackend
from gtreview.runs.execute import PassCancelled
from gtreview.runs.plan import ModelEntry, PassConfig
from gtreview.store import db, runs_repo
from gtreview.store.project import open_project
from tests.judging.scripted import ScriptedBackend
from tests.projects import new_project
from tests.rubric_factory import rubric
from tests.runs.test_pass import judge_reply

RUBRIC = Rubric.model_validate(rubric(2))
BASE, JUDGE = "openai:http://127.0.0.1:9#m", "anthropic:judge"  # never reached: the backends are scripted
CONFIG = PassConfig(name="t", models=[ModelEntry(label="base", spec=BASE)], judge=JUDGE, repeats=2, drift_every=0)


def gated_opener(calls: list[str], gate: threading.Event, started: threading.Event) -> Any:
    def open_backend(spec: str) -> CompletionBackend:
        def respond(request: Any) -> str:
            calls.append(spec)
            started.set()
            gate.wait(30)  # the first pass holds its run until the test lets it go on
            return judge_reply(request) if spec == JUDGE else "An answer."

        return ScriptedBackend(respond, spec=spec)

    return open_backend


def test_a_second_pass_waits_for_the_first_and_reuses_what_it_stored(tmp_path: Path) -> None:
    folder = new_project(tmp_path / "p")
    first, second = open_project(folder), open_project(folder)  # two connections, as two processes
    calls: list[str] = []
    gate, started = threading.Event(), threading.Event()
    opener = gated_opener(calls, gate, started)
    heard: list[str] = []
    results: dict[str, Any] = {}

    def run(name: str, engine: Any, **kwargs: Any) -> None:
        results[name] = run_benchmark_pass(engine, CONFIG, rubric=RUBRIC, open_backend=opener, **kwargs)

    try:
        leader = threading.Thread(target=run, args=("first", first.engine))
        leader.start()
        assert started.wait(30)
        follower = threading.Thread(
            target=run, args=("second", second.engine), kwargs={"on_busy": heard.append, "busy_poll_s": 0.05}
        )
        follower.start()
        while not heard and follower.is_alive():
            follower.join(0.05)
        assert heard and "is being run by" in heard[0] and "waiting for it to end" in heard[0]
        calls_before = len(calls)
        gate.set()
        leader.join(60)
        follower.join(60)
        assert not leader.is_alive() and not follower.is_alive()
        assert results["second"].run_id == results["first"].run_id
        assert results["second"].model_calls == 0  # everything was stored by the first
        assert len(calls) >= calls_before and calls.count(BASE) == 4  # two questions, two repeats, paid once
        with db.reading(first.engine) as session:
            assert [(r.id, r.status) for r in runs_repo.list_runs(session)] == [(1, "finished")]
    finally:
        gate.set()
        first.close()
        second.close()


def test_without_waiting_the_second_pass_is_refused_and_waiting_can_be_cancelled(tmp_path: Path) -> None:
    folder = new_project(tmp_path / "p")
    first, second = open_project(folder), open_project(folder)
    gate, started = threading.Event(), threading.Event()
    opener = gated_opener([], gate, started)
    leader = threading.Thread(
        target=lambda: run_benchmark_pass(first.engine, CONFIG, rubric=RUBRIC, open_backend=opener)
    )
    try:
        leader.start()
        assert started.wait(30)
        with pytest.raises(runs_repo.RunBusyError, match="is being run by"):
            run_benchmark_pass(second.engine, CONFIG, rubric=RUBRIC, open_backend=opener)
        cancel = threading.Event()
        cancel.set()
        with pytest.raises(PassCancelled, match="stopped waiting for the other pass"):
            run_benchmark_pass(
                second.engine, CONFIG, rubric=RUBRIC, open_backend=opener, on_busy=lambda _m: None, cancel=cancel
            )
    finally:
        gate.set()
        leader.join(60)
        first.close()
        second.close()
