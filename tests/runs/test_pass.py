"""A benchmark pass with scripted model and judge backends: storage, retries, resume."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from gtreview.core.rubric import Question
from gtreview.inference.backend import CompletionRequest, CompletionResult, Sampling
from gtreview.runs.execute import PassCancelled, PassEvent, run_pass
from gtreview.runs.plan import ModelEntry, PassConfig
from gtreview.store import db, runs_repo
from gtreview.store.project import create_project
from tests.judging.scripted import ScriptedBackend, answer_of, fixture_reply, verdict_json
from tests.rubric_factory import question

QUESTIONS = [Question.model_validate(question(f"A{n}")) for n in (1, 2)]


def judge_reply(request: CompletionRequest) -> str:
    content = request.messages[1].content
    q = next(q for q in QUESTIONS if f"QUESTION {q.id}:" in content)
    if "ANSWER A:" in content:  # pairwise: prefer the fine-tune's answers, whatever the order
        first = content.split("ANSWER A:")[1].split("ANSWER B:")[0]
        return '{"reason": "r", "verdict": "%s"}' % ("[[A>B]]" if "tuned" in first else "[[B>A]]")
    answer = answer_of(request)
    fixture = next((f for f in q.calibration if f.response_text == answer), None)
    if fixture is not None:
        return fixture_reply(q, fixture)
    return verdict_json(q, True, {"C2": 2 if "tuned" in answer else 1})


class Models:
    """Scripted generators: the base answers plainly, the fine-tune leaks its reasoning."""

    def __init__(self) -> None:
        self.opened: list[str] = []

    def generate(self, label: str, request: CompletionRequest) -> CompletionResult:
        text = request.messages[1].content
        if label == "tuned":
            return CompletionResult(
                text=f"<think>recall the reports</think>The tuned answer (seed {request.sampling.seed}).",
                completion_tokens=12,
            )
        return CompletionResult(
            text=f"A base answer (seed {request.sampling.seed}) to: {text[:20]}", completion_tokens=10
        )

    def open(self, spec: str) -> ScriptedBackend:
        self.opened.append(spec)
        if spec.startswith("judge"):
            return ScriptedBackend(judge_reply, spec=spec)
        label = spec.split(":")[1]
        return ScriptedBackend(lambda r: self.generate(label, r), spec=spec)


@pytest.fixture()
def engine(tmp_path: Path):  # type: ignore[no-untyped-def]
    project = create_project(tmp_path / "p")
    yield project.engine
    project.close()


@pytest.fixture(autouse=True)
def identities(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("gtreview.runs.execute.spec_identity", lambda spec: {"spec": spec})


def config(**changes: Any) -> PassConfig:
    base = PassConfig(
        name="t",
        models=[ModelEntry(label="base", spec="openai:base"), ModelEntry(label="tuned", spec="openai:tuned")],
        judge="judge:x",
        repeats=3,
        sampling=Sampling(temperature=0.7, seed=1234, max_tokens=64),
        drift_every=0,
    )
    return base.model_copy(update=changes)


def test_a_pass_stores_everything_and_a_rerun_costs_nothing(engine) -> None:  # type: ignore[no-untyped-def]
    models = Models()
    events: list[PassEvent] = []
    result = run_pass(engine, config(), QUESTIONS, rubric_hash="r", open_backend=models.open, progress=events.append)
    assert (result.generated, result.generation_errors, result.judged, result.pairs) == (12, 0, 12, 6)
    with db.reading(engine) as session:
        generations = runs_repo.run_generations(session, result.run_id)
    tuned = [g for g in generations if g.model_label == "tuned"]
    assert tuned[0].raw_text.startswith("<think>") and tuned[0].clean_text.startswith("The tuned answer")
    seeds = sorted({g.raw_text.split("seed ")[1].split(")")[0] for g in tuned if g.qid == "A1"})
    assert seeds == ["1234", "1235", "1236"]  # one seed per repeat: reproducible
    with db.reading(engine) as session:
        totals = {
            (j.model_label, j.qid, j.sample_index): j.total for j in runs_repo.run_judgements(session, result.run_id)
        }
    assert totals[("tuned", "A1", 0)] == 5 and totals[("base", "A2", 2)] == 4
    with db.reading(engine) as session:
        assert {p.label for p in runs_repo.run_pairs(session, result.run_id)} == {"A>B"}
    assert {e.phase for e in events} == {"generate", "judge", "pairwise"}
    # 0 of N as each phase begins, then one event per verdict and per pair as each is final.
    assert [e.done for e in events if e.phase == "judge"] == list(range(0, 13))
    assert [e.done for e in events if e.phase == "pairwise"] == list(range(0, 7))
    assert {e.total for e in events if e.phase == "judge"} == {12}

    again = Models()
    second = run_pass(engine, config(), QUESTIONS, rubric_hash="r", open_backend=again.open)
    assert second.run_id == result.run_id
    assert (second.model_calls, second.generated, second.reused, again.opened) == (0, 0, 12, [])


def test_each_judge_phase_shows_its_own_counter_before_its_first_verdict(engine) -> None:  # type: ignore[no-untyped-def]
    """The judge reads every answer before its first verdict is final (minutes on a local
    model): meanwhile the pass says it is judging, 0 of N verdicts, not "6 of 6 answers"."""
    models = Models()
    events: list[PassEvent] = []
    seen_by_judge: list[PassEvent] = []

    def open_backend(spec: str) -> ScriptedBackend:
        backend = models.open(spec)
        if spec.startswith("judge"):
            seen_by_judge.append(events[-1])  # what the user sees while the judge loads and reads
        return backend

    run_pass(engine, config(), QUESTIONS, rubric_hash="r", open_backend=open_backend, progress=events.append)
    pointwise, pairwise = seen_by_judge
    assert (pointwise.phase, pointwise.done, pointwise.total, pointwise.unit) == ("judge", 0, 12, "verdicts")
    assert pointwise.describe() == "pointwise verdicts 0 of 12"
    assert (pairwise.phase, pairwise.done, pairwise.total, pairwise.unit) == ("pairwise", 0, 6, "pairs")
    last_judged = [e for e in events if e.phase == "judge"][-1]
    assert last_judged.counter() == "verdicts 12 of 12"


def test_empty_generations_are_retried_then_recorded_as_errors(engine) -> None:  # type: ignore[no-untyped-def]
    attempts: list[int] = []

    def open_backend(spec: str) -> ScriptedBackend:
        if spec.startswith("judge"):
            return ScriptedBackend(judge_reply, spec=spec)

        def respond(request: CompletionRequest) -> CompletionResult:
            if "tuned" in spec and "gold grade fall" in request.messages[1].content:
                attempts.append(request.sampling.seed)
                return CompletionResult(text="<think>only reasoning, no answer", finish_reason="length")
            return CompletionResult(text="An answer.")

        backend = ScriptedBackend(respond, spec=spec)
        backend.restarts = 0  # type: ignore[attr-defined]

        def restart() -> None:
            backend.restarts += 1  # type: ignore[attr-defined]

        backend.restart = restart  # type: ignore[attr-defined]
        return backend

    result = run_pass(engine, config(repeats=1), QUESTIONS, rubric_hash="r", open_backend=open_backend)
    assert result.generation_errors == 2 and len(attempts) == 8  # 2 questions x (1 try + 3 retries)
    assert sorted(set(attempts)) == [1234, 2234, 3234, 4234]  # each retry with a fresh seed
    with db.reading(engine) as session:
        errors = [g for g in runs_repo.run_generations(session, result.run_id) if g.status == "error"]
    assert [(g.attempts, g.clean_text) for g in errors] == [(4, ""), (4, "")]
    assert all(g.raw_text.startswith("<think>") for g in errors)  # the raw output is kept
    with db.reading(engine) as session:
        judged = {(j.model_label, j.qid) for j in runs_repo.run_judgements(session, result.run_id)}
    assert ("tuned", "A1") not in judged  # errors are not judged as if they were answers
    with db.reading(engine) as session:
        pairs = runs_repo.run_pairs(session, result.run_id)
    assert {p.label for p in pairs} == {"B>>A"}  # and they lose their pairs


def test_cancel_then_resume(engine) -> None:  # type: ignore[no-untyped-def]
    cancel = threading.Event()
    models = Models()

    def stop_after_first(event: PassEvent) -> None:
        if event.phase == "judge" and event.done > 0:
            cancel.set()

    with pytest.raises(PassCancelled):
        run_pass(
            engine,
            config(),
            QUESTIONS,
            rubric_hash="r",
            open_backend=models.open,
            progress=stop_after_first,
            cancel=cancel,
        )
    with db.reading(engine) as session:
        (run,) = runs_repo.list_runs(session)
    assert run.generations == 12 and 0 < run.judgements < 12
    resumed = run_pass(engine, config(), QUESTIONS, rubric_hash="r", open_backend=Models().open)
    assert resumed.reused == 12 and resumed.judged == 12 - run.judgements and resumed.pairs == 6
    with db.reading(engine) as session:
        (run,) = runs_repo.list_runs(session)
    assert (run.judgements, run.pairs, run.status) == (12, 6, "finished")


def test_the_judge_is_checked_before_any_generation(engine) -> None:  # type: ignore[no-untyped-def]
    models = Models()
    events: list[PassEvent] = []
    result = run_pass(
        engine, config(drift_every=6), QUESTIONS, rubric_hash="r", open_backend=models.open, progress=events.append
    )
    assert models.opened[:2] == ["judge:x", "openai:base"]  # the fixtures are scored first
    phases = [e.phase for e in events]
    assert phases.index("calibrate") < phases.index("generate")
    assert [e.done for e in events if e.phase == "calibrate"] == [0, 1, 2, 3, 4, 5, 6]
    assert "drift" in phases and result.judged == 12  # re-checked every 6 answers


def test_a_judge_that_fails_its_fixtures_stops_the_pass_before_generation(engine) -> None:  # type: ignore[no-untyped-def]
    from gtreview.judging.calibration import DriftError

    models = Models()

    def open_backend(spec: str) -> ScriptedBackend:
        if spec.startswith("judge"):
            models.opened.append(spec)
            return ScriptedBackend(lambda r: verdict_json(QUESTIONS[0], True, {"C2": 3, "C3": 3}), spec=spec)
        return models.open(spec)

    with pytest.raises(DriftError, match="at the start of the run"):
        run_pass(engine, config(drift_every=50), QUESTIONS, rubric_hash="r", open_backend=open_backend)
    assert models.opened == ["judge:x"]  # no model was opened, nothing was generated
    with db.reading(engine) as session:
        (run,) = runs_repo.list_runs(session)
    assert (run.generations, run.status) == (0, "stopped")


class StreamingBackend(ScriptedBackend):
    """Hands each result over as it ends (as the engine and HTTP backends do) and stops
    when the pass's cancel event is set, as the worker does."""

    def complete_batch(  # type: ignore[override]
        self,
        requests: list[CompletionRequest],
        on_result: Any = None,
        cancel: threading.Event | None = None,
    ) -> list[CompletionResult]:
        from gtreview.core.errors import Cancelled

        self.batches.append(list(requests))
        out = []
        for index, request in enumerate(requests):
            if cancel is not None and cancel.is_set():
                raise Cancelled("cancelled mid-batch")
            reply = self.respond(request)
            result = reply if isinstance(reply, CompletionResult) else CompletionResult(text=reply)
            out.append(result)
            if on_result is not None:
                on_result(index, result)
        return out


def test_answers_stream_in_one_call_per_model_and_a_cancel_keeps_every_arrived_one(engine) -> None:  # type: ignore[no-untyped-def]
    questions = [Question.model_validate(question(f"A{n}")) for n in range(1, 7)]
    cancel = threading.Event()
    backends: list[StreamingBackend] = []
    arrived: list[str] = []
    cancel_at: list[int] = [7]  # the pass is cancelled while the 7th answer is written
    stored_before: list[int] = []

    def judge(request: CompletionRequest) -> str:
        q = next(q for q in questions if f"QUESTION {q.id}:" in request.messages[1].content)
        return verdict_json(q, True, {})

    def open_backend(spec: str) -> ScriptedBackend:
        def respond(request: CompletionRequest) -> CompletionResult:
            arrived.append(spec)
            if len(arrived) in cancel_at:
                with db.reading(engine) as session:
                    stored_before.append(sum(r.generations for r in runs_repo.list_runs(session)))
                cancel.set()
            return CompletionResult(text=f"An answer (seed {request.sampling.seed}).", completion_tokens=5)

        backend = StreamingBackend(judge if spec == "openai:judge" else respond, spec=spec)
        backends.append(backend)
        return backend

    cfg = config(repeats=2, pairwise=False, judge="openai:judge")
    with pytest.raises(PassCancelled):
        run_pass(engine, cfg, questions, rubric_hash="r", open_backend=open_backend, cancel=cancel)
    assert [len(batch) for batch in backends[0].batches] == [12]  # every answer of the model in one call
    with db.reading(engine) as session:
        (run,) = runs_repo.list_runs(session)
    assert run.generations == 7 and run.status == "stopped"  # nothing that arrived is lost
    assert stored_before == [6]  # each answer was stored as it arrived, not at the end of the call
    backends.clear()
    cancel.clear()
    cancel_at.clear()
    result = run_pass(engine, cfg, questions, rubric_hash="r", open_backend=open_backend, cancel=cancel)
    assert [len(b.batches[0]) for b in backends[:2]] == [5, 12]  # only what was missing is asked for
    assert (result.reused, result.generated, result.judged) == (7, 17, 24)


def test_an_answer_without_a_verdict_is_unjudged_not_missing(engine) -> None:  # type: ignore[no-untyped-def]
    from gtreview.report.run_report import _why_no_score
    from gtreview.results.loader import SampleStatus

    run, results = stopped_at(engine, "judge")
    statuses = [s.status for s in results.samples]
    assert statuses.count(SampleStatus.UNJUDGED) == run.generations - run.judgements > 0
    assert SampleStatus.MISSING not in statuses  # every answer was generated
    unjudged = next(s for s in results.samples if s.status is SampleStatus.UNJUDGED)
    assert unjudged.answer_clean and "no verdict" in _why_no_score(unjudged)


def test_the_score_chart_of_a_run_with_nothing_scored_starts_at_zero(engine, qtbot) -> None:  # type: ignore[no-untyped-def]
    from gtreview.results.analysis import analyse
    from gtreview.ui.widgets.results_view import ResultsView

    _run, results = stopped_at(engine, "generate", pairwise=False)  # answers, and no verdict yet
    view = ResultsView()
    qtbot.addWidget(view)
    view.show_results(results, analyse(results, n_boot=50, n_perm=50), "")
    low, high = view.distribution.plotItem.vb.viewRange()[1]
    assert low == 0 and high > 0  # no negative counts on an empty chart
    # nothing to count: said in the chart's place, with no made-up axis (once "none scored")
    assert not view.distribution.plotItem.getAxis("left").isVisible()
    said = [i.textItem.toPlainText() for i in view.distribution.plotItem.items if hasattr(i, "textItem")]
    assert said == ["no scored answers yet"]


def stopped_at(engine, phase: str, **changes: Any):  # type: ignore[no-untyped-def]
    """A pass cancelled as ``phase`` reports its first progress; its run and its results."""
    from gtreview.results.loader import load_run_results

    cancel = threading.Event()
    with pytest.raises(PassCancelled):
        run_pass(
            engine,
            config(**changes),
            QUESTIONS,
            rubric_hash="r",
            open_backend=Models().open,
            progress=lambda event: cancel.set() if event.phase == phase and event.done > 0 else None,
            cancel=cancel,
        )
    with db.reading(engine) as session:
        (run,) = runs_repo.list_runs(session)
    return run, load_run_results(engine, run.id)


def test_each_verdict_is_stored_as_it_arrives_not_at_the_end_of_the_judges_call(engine) -> None:  # type: ignore[no-untyped-def]
    questions = [Question.model_validate(question(f"A{n}")) for n in range(1, 4)]
    stored_when_asked: list[int] = []
    judge_backends: list[StreamingBackend] = []

    def judge(request: CompletionRequest) -> str:
        with db.reading(engine) as session:
            stored_when_asked.append(runs_repo.list_runs(session)[0].judgements)
        q = next(q for q in questions if f"QUESTION {q.id}:" in request.messages[1].content)
        return verdict_json(q, True, {})

    def open_backend(spec: str) -> ScriptedBackend:
        if spec == "openai:judge":
            judge_backends.append(StreamingBackend(judge, spec=spec))
            return judge_backends[-1]
        return ScriptedBackend(lambda r: CompletionResult(text="An answer.", completion_tokens=3), spec=spec)

    result = run_pass(
        engine,
        config(repeats=2, pairwise=False, judge="openai:judge"),
        questions,
        rubric_hash="r",
        open_backend=open_backend,
    )
    assert result.judged == 12 and [len(b) for b in judge_backends[0].batches] == [12]  # one call
    assert stored_when_asked == list(range(12))  # the verdicts before each one were already stored


def test_progress_names_each_model_by_its_label_and_the_pass_s_place(engine) -> None:  # type: ignore[no-untyped-def]
    """Generation is "base: 0 of 6 answers", never the file; every event says which phase
    of the pass it is and which are still to come (the judge's 0 of N can last minutes)."""
    models = Models()
    events: list[PassEvent] = []
    pass_config = config(models=[ModelEntry(label="base", spec="llama:/m/base-file.gguf"), *config().models[1:]])
    run_pass(engine, pass_config, QUESTIONS, rubric_hash="r", open_backend=models.open, progress=events.append)
    generating = [e for e in events if e.phase == "generate"]
    assert generating[0].message == "base: 0 of 6 answers" and generating[0].counter() == "base answers 0 of 6"
    assert not any("base-file" in e.message for e in generating)
    first = generating[0]
    assert (first.heading(), first.still_to_come()) == (
        "phase 3 of 6: generate",
        "then: generate tuned, judge, pairwise",
    )
    judge = next(e for e in events if e.phase == "judge")
    assert (judge.heading(), judge.still_to_come()) == ("phase 5 of 6: judge", "then: pairwise")
    assert next(e for e in events if e.phase == "pairwise").still_to_come() == ""
