"""The adjudication queue, overrides with provenance and revert, figures after an override,
blind grading samples."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DatabaseError

from gtreview.app import adjudication as adj
from gtreview.app.question_calibration import calibrate_questions
from gtreview.core.changes import OpChanges
from gtreview.core.rubric import Rubric
from gtreview.inference.backend import CompletionRequest, CompletionResult, Sampling
from gtreview.results.analysis import analyse
from gtreview.results.loader import load_run_results
from gtreview.runs.execute import run_pass
from gtreview.runs.plan import ModelEntry, PassConfig
from gtreview.store.db import reading, unit_of_work
from gtreview.store.project import create_project
from gtreview.store.sets import import_rubric
from tests.judging.scripted import ScriptedBackend, answer_of, verdict_json
from tests.rubric_factory import rubric

DATA = rubric(2)


@pytest.fixture()
def finished(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    monkeypatch.setattr("gtreview.runs.execute.spec_identity", lambda spec: {"spec": spec})
    project = create_project(tmp_path / "p")
    with unit_of_work(project.engine) as tx:
        set_id = import_rubric(tx, Rubric.model_validate(DATA), source_name="r.json", source_sha256="s", actor="t")
    questions = Rubric.model_validate(DATA).questions

    def judge(request: CompletionRequest) -> str:
        content = request.messages[1].content
        q = questions[0] if "QUESTION A1:" in content else questions[1]
        if "ANSWER A:" in content:
            if "QUESTION A2:" in content:
                return '{"reason": "r", "verdict": "[[A>B]]"}'  # always the first shown: inconsistent
            return "no verdict at all"  # unknown
        answer = answer_of(request)
        if answer == "tuned 1235" and q.id == "A1":
            return "broken"  # unscored
        flag = answer.startswith("tuned") and q.id == "A2"
        return verdict_json(
            q,
            True,
            {"C2": 2 if answer.startswith("tuned") else 1},
            adjudication_required=flag,
            adjudication_note="novel argument" if flag else "",
        )

    def open_backend(spec: str) -> ScriptedBackend:
        if spec == "judge":
            return ScriptedBackend(judge, spec=spec)
        return ScriptedBackend(lambda r: CompletionResult(text=f"{spec} {r.sampling.seed}"), spec=spec)

    config = PassConfig(
        name="adj",
        models=[ModelEntry(label="base", spec="base"), ModelEntry(label="tuned", spec="tuned")],
        judge="judge",
        repeats=2,
        sampling=Sampling(seed=1234, temperature=0.7, max_tokens=16),
        drift_every=0,
    )
    result = run_pass(project.engine, config, questions, rubric_hash="h", open_backend=open_backend, set_id=set_id)
    yield project.engine, set_id, result.run_id
    project.close()


def test_queue_has_every_reason(finished) -> None:  # type: ignore[no-untyped-def]
    engine, set_id, run_id = finished
    q = Rubric.model_validate(DATA).questions[0]
    calibrate_questions(engine, ScriptedBackend(lambda r: verdict_json(q, True, {})), set_id, ["A1"])
    results = load_run_results(engine, run_id)
    queue = adj.adjudication_queue(engine, results, set_id=set_id)
    by_reason: dict[adj.QueueReason, list[adj.QueueItem]] = {}
    for item in queue:
        by_reason.setdefault(item.reason, []).append(item)
    assert [(i.qid, i.model, i.sample_index) for i in by_reason[adj.QueueReason.UNSCORED]] == [("A1", "tuned", 1)]
    assert sorted((i.qid, i.model) for i in by_reason[adj.QueueReason.FLAGGED]) == [("A2", "tuned"), ("A2", "tuned")]
    assert {i.qid for i in by_reason[adj.QueueReason.PAIR_UNKNOWN]} == {"A1"}
    assert {i.qid for i in by_reason[adj.QueueReason.PAIR_INCONSISTENT]} == {"A2"}
    misses = by_reason[adj.QueueReason.CALIBRATION_MISS]
    assert {i.key for i in misses} == {"fixture:A1:A1-F1", "fixture:A1:A1-F3"}
    assert not any(i.settled for i in queue)


def test_override_changes_the_figures_and_revert_restores_them(finished) -> None:  # type: ignore[no-untyped-def]
    engine, _, run_id = finished
    results = load_run_results(engine, run_id)
    before = analyse(results, n_boot=100, n_perm=100)
    target = next(s for s in results.samples if s.model == "base" and s.qid == "A1" and s.sample_index == 0)
    assert target.total == 4.0
    with pytest.raises(adj.AdjudicationError, match="needs a reason"):
        with unit_of_work(engine) as tx:
            adj.override_judgement(
                tx, results, target.judgement_key, actor="geo", gate_passed=False, awards={}, reason=" "
            )
    with pytest.raises(adj.AdjudicationError, match=r"outside 0\.\.3"):
        with unit_of_work(engine) as tx:
            adj.override_judgement(
                tx, results, target.judgement_key, actor="geo", gate_passed=True, awards={"C2": 9}, reason="x"
            )
    with unit_of_work(engine) as tx:
        decision = adj.override_judgement(
            tx,
            results,
            target.judgement_key,
            actor="geo",
            gate_passed=False,
            awards={"C2": 3},
            reason="the answer calls the reef the source of the gold",
        )
    after_results = load_run_results(engine, run_id)
    sample = next(s for s in after_results.samples if s.judgement_key == target.judgement_key)
    assert (sample.total, sample.gate_passed, sample.adjudicated, sample.judge_total) == (0.0, False, True, 4.0)
    assert all(v == 0 for v in sample.awards.values())  # a failed gate zeroes the expert's awards too
    after = analyse(after_results, n_boot=100, n_perm=100)
    assert after.models[0].summary.mean < before.models[0].summary.mean  # type: ignore[operator]
    assert after.models[0].counts.settled == 1

    with unit_of_work(engine) as tx:
        adj.revert(tx, run_id, decision, actor="geo2", reason="second look: the source remark was hedged")
    restored = load_run_results(engine, run_id)
    again = next(s for s in restored.samples if s.judgement_key == target.judgement_key)
    assert (again.total, again.adjudicated) == (4.0, False)
    steps = adj.history(engine, run_id, target.judgement_key)
    assert [(s.actor, s.action) for s in steps] == [("geo", "override"), ("geo2", "revert")]
    assert "total 0" in steps[0].detail and steps[1].reason.startswith("second look")
    with engine.begin() as connection, pytest.raises(DatabaseError, match="append-only"):
        connection.execute(text("DELETE FROM adjudication"))


def test_pair_override_and_confirm_settle_queue_items(finished) -> None:  # type: ignore[no-untyped-def]
    engine, _, run_id = finished
    results = load_run_results(engine, run_id)
    unknown = next(p for p in results.pairs if p.label == "unknown")
    with unit_of_work(engine) as tx:
        adj.override_pair(
            tx, results, unknown.key, actor="geo", label="A>B", reason="the fine-tune names the structural control"
        )
    flagged = next(i for i in adj.adjudication_queue(engine, results) if i.reason is adj.QueueReason.FLAGGED)
    with unit_of_work(engine) as tx:
        adj.confirm(tx, run_id, "judgement", flagged.key, actor="geo")
    results = load_run_results(engine, run_id)
    pair = next(p for p in results.pairs if p.key == unknown.key)
    assert (pair.label, pair.average, pair.judge_label, pair.adjudicated) == ("A>B", 1.0, "unknown", True)
    inconsistent = next(
        i for i in adj.adjudication_queue(engine, results) if i.reason is adj.QueueReason.PAIR_INCONSISTENT
    )
    with unit_of_work(engine) as tx:
        adj.override_pair(tx, results, inconsistent.key, actor="geo", label="A=B", reason="both miss the gate")
    results = load_run_results(engine, run_id)
    queue = {i.key: i for i in adj.adjudication_queue(engine, results)}
    assert queue[unknown.key].settled and queue[flagged.key].settled
    assert queue[inconsistent.key].settled and queue[inconsistent.key].reason is adj.QueueReason.PAIR_INCONSISTENT


def test_blind_grading_sample_hides_model_and_judge(finished) -> None:  # type: ignore[no-untyped-def]
    engine, _, run_id = finished
    items = adj.grading_sample(engine, run_id, grader="geo", size=3, seed=7)
    assert len(items) == 3 and items == adj.grading_sample(engine, run_id, grader="geo", size=3, seed=7)
    fields = set(items[0].model_dump())
    assert fields == {"generation_key", "qid", "question", "answer"}  # no model label, no verdict
    saved = adj.save_grade(engine, run_id, items[0], grader="geo", gate_passed=True, awards={"C2": 2, "C3": 9})
    assert saved.changes == OpChanges(adjudications=frozenset({run_id}))  # what the GUI refreshes
    assert items[0].generation_key not in {
        i.generation_key for i in adj.grading_sample(engine, run_id, grader="geo", size=10)
    }
    from gtreview.store.adjudication_repo import awards_of, grades

    with reading(engine) as session:
        (grade,) = grades(session, run_id)
    assert grade.total == 9 and awards_of(grade) == {"C1": 3, "C2": 2, "C3": 4}  # settled by the rules


def test_agreement_between_judge_and_experts(finished, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from pypdf import PdfReader

    from gtreview.report.run_report import write_run_report

    engine, _, run_id = finished
    items = adj.grading_sample(engine, run_id, grader="geo", size=4, seed=3)
    results = load_run_results(engine, run_id)
    judged = {s.generation_key: s for s in results.samples}
    expected_diffs = []
    for number, item in enumerate(items):
        sample = judged[item.generation_key]
        fail = number == 0  # the expert fails the gate once where the judge passed it
        awards = {k: v for k, v in sample.awards.items() if k != "C1"}
        adj.save_grade(engine, run_id, item, grader="geo", gate_passed=not fail, awards=awards)
        adj.save_grade(engine, run_id, item, grader="geo2", gate_passed=True, awards=awards)
        expected_diffs.append(abs((sample.total or 0) - (0 if fail else sample.total or 0)))
    report = adj.agreement_report(engine, run_id)
    assert report.n_graded == 8 and report.graders == ["geo", "geo2"]
    assert report.totals is not None
    assert abs(report.totals.mad - sum(expected_diffs) / 8) < 1e-9  # one disagreement over 8 pairs
    assert report.gate is not None and report.gate.observed == 7 / 8
    assert report.inter_rater is not None and len(report.inter_rater.pairs) == 1
    assert report.most_disagreeing[0].question_id == judged[items[0].generation_key].qid
    out = write_run_report(results, analyse(results, n_boot=100, n_perm=100), tmp_path / "r.pdf", agreement=report)
    text = "\n".join(p.extract_text() for p in PdfReader(str(out)).pages)
    assert "Judge against expert" in text and "Hand-graded answers" in text


def test_the_calibrations_of_a_set_read_at_once_are_those_read_one_by_one(tmp_path: Path) -> None:
    """The queue reads every question's newest calibration of its current version in one
    query; it must be what the one-question read says, for every question."""
    from gtreview.app.question_calibration import latest_calibration, latest_calibrations
    from gtreview.judging.calibration import FixtureCheck, QuestionCalibration
    from gtreview.store import sets

    project = create_project(tmp_path / "p")
    try:
        data = rubric(3)
        with unit_of_work(project.engine) as tx:
            set_id = import_rubric(tx, Rubric.model_validate(data), source_name="r", source_sha256="s", actor="t")

        def calibrate(qid: str, version: int, judge: str, reproduced: bool) -> None:
            check = FixtureCheck(
                question_id=qid,
                fixture_id=f"{qid}-F1",
                role="near miss",
                judgmental=False,
                expected_gate_passed=False,
                expected_total=0,
                expected_awards={},
                reproduced=reproduced,
            )
            report = QuestionCalibration(question_id=qid, fixtures=[check])
            with unit_of_work(project.engine) as tx:
                sets.add_calibration_run(
                    tx,
                    set_id,
                    qid,
                    version,
                    judge=judge,
                    prompt_sha256="p",
                    reproduced=reproduced,
                    report_json=report.model_dump_json(),
                )

        calibrate("A1", 1, "old judge", False)
        calibrate("A1", 1, "new judge", True)  # the newest of the current version counts
        calibrate("A2", 1, "judge", True)
        with reading(project.engine) as session:
            question = sets.load_question(session, set_id, "A2")
        with unit_of_work(project.engine) as tx:
            sets.save_question(tx, set_id, question.model_copy(update={"title": "Changed"}), author="t")
        calibrate("A2", 1, "stale judge", False)  # of the replaced version: not the current one's
        one_by_one = {
            qid: found
            for qid in ("A1", "A2", "A3")
            if (found := latest_calibration(project.engine, set_id, qid)) is not None
        }
        assert latest_calibrations(project.engine, set_id) == one_by_one
        assert list(one_by_one) == ["A1"] and one_by_one["A1"][0] == "new judge"
    finally:
        project.close()
