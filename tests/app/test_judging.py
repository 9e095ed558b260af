"""Judging answer files through gtreview.app.judging (and a set's calibration through
gtreview.app.question_calibration): typed summaries, the records written, and the
one-line refusals. The judge is scripted and handed in as the backend opener."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gtreview.app import workflow
from gtreview.app.judging import (
    AnswerFileError,
    JudgeDrifted,
    JudgeOpenError,
    calibrate_rubric,
    check_grades,
    compare_answer_files,
    score_answer_file,
)
from gtreview.app.question_calibration import calibrate_set, latest_calibration
from gtreview.core.activity import JobProgress
from gtreview.core.errors import Cancelled
from gtreview.core.rubric import Rubric
from gtreview.inference.backend import CompletionRequest
from gtreview.store import sets
from gtreview.store.db import unit_of_work
from gtreview.store.project import create_project
from tests.judging.scripted import ScriptedBackend, answer_of, fixture_reply, verdict_json
from tests.rubric_factory import rubric

RUBRIC = Rubric.model_validate(rubric(2))
Opener = Callable[[str], ScriptedBackend]


def faithful(request: CompletionRequest) -> str:
    """Reproduces every fixture; any other answer gets the gate and one point of C2;
    of two answers, the one that starts "strong" wins in either order."""
    content = request.messages[1].content
    if "ANSWER A:" in content:
        first_strong = content.split("ANSWER A:")[1].lstrip("\n<").startswith("strong")
        return json.dumps({"reason": "r", "verdict": "[[A>>B]]" if first_strong else "[[B>>A]]"})
    answer = answer_of(request)
    for question in RUBRIC.questions:
        for fixture in question.calibration:
            if fixture.response_text == answer:
                return fixture_reply(question, fixture)
    question = next(q for q in RUBRIC.questions if f"QUESTION {q.id}:" in content)
    return verdict_json(question, True, {"C2": 1})


def opener(respond: Callable[[CompletionRequest], str] = faithful) -> Opener:
    return lambda spec: ScriptedBackend(respond, spec=spec)


def write(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_grades_are_recomputed_line_by_line(tmp_path: Path) -> None:
    q = RUBRIC.questions[0]
    good = {"question_id": "A1", "gate_passed": True, "total": 5, "components": []}
    good["components"] = [
        {"id": c.id, "awarded": c.points if c.is_gate else 1, "maximum": c.points} for c in q.components
    ]
    wrong = {**good, "total": 9}
    grades = tmp_path / "grades.jsonl"
    grades.write_text("\n".join([json.dumps(good), "", json.dumps(wrong), "{not json"]) + "\n", encoding="utf-8")
    report = check_grades(RUBRIC, grades)
    assert [line.line for line in report.lines] == [1, 3, 4]
    assert report.lines[0].check.violations == [] and report.lines[0].check.total == 5
    assert report.lines[1].check.violations == ["stated total 9 but the rules give 5"]
    assert [line.line for line in report.with_violations] == [3, 4]
    assert report.lines[2].to_json() == {
        "line": 4,
        "question_id": None,
        "total": None,
        "violations": [report.lines[2].check.violations[0]],
    }
    assert report.lines[2].check.violations[0].startswith("not valid JSON")
    assert set(report.lines[0].to_json()) == {
        "line",
        "question_id",
        "fixture_id",
        "total",
        "stated_total",
        "violations",
    }
    with pytest.raises(AnswerFileError, match=r"missing\.jsonl: no such file"):
        check_grades(RUBRIC, tmp_path / "missing.jsonl")


def test_score_summarises_and_writes_the_contract_records(tmp_path: Path) -> None:
    answers = write(tmp_path / "a.json", [{"id": "A1", "answer": "An answer."}, {"id": "2", "answer": "Another."}])
    out = tmp_path / "scores.json"
    result = score_answer_file(RUBRIC, answers, "judge", drift_every=1, output=out, open_backend=opener())
    assert result.summary.model_dump() == {
        "answers": 2,
        "scored": 2,
        "unscored": 0,
        "mean_total": 4.0,
        "gate_pass_rate": 1.0,
    }
    written = json.loads(out.read_text(encoding="utf-8"))
    assert written == result.judgements
    assert [(r["id"], r["question_id"], r["total"]) for r in written] == [("A1", "A1", 4), ("2", "A2", 4)]


def test_score_refuses_unmatched_answers_and_a_bad_judge(tmp_path: Path) -> None:
    stray = write(tmp_path / "stray.json", [{"id": "Z9", "answer": "?"}])
    with pytest.raises(AnswerFileError, match="answers with no matching question: Z9"):
        score_answer_file(RUBRIC, stray, "judge", open_backend=opener())
    answers = write(tmp_path / "a.json", [{"id": "A1", "answer": "x"}])
    with pytest.raises(JudgeOpenError, match=r"^judge nonsense: ") as info:
        score_answer_file(RUBRIC, answers, "nonsense")  # the real factory refuses the spec
    assert info.value.exit_status == 2 and "\n" not in str(info.value)


def test_a_drifting_judge_stops_the_scoring_as_a_finding(tmp_path: Path) -> None:
    answers = write(tmp_path / "a.json", [{"id": "A1", "answer": "x"}])
    out = tmp_path / "scores.json"
    never = opener(lambda request: verdict_json(RUBRIC.questions[0], True, {}))
    with pytest.raises(JudgeDrifted, match=r"judge drift at the start of the run.*; stopped after 0 answers") as info:
        score_answer_file(RUBRIC, answers, "judge", output=out, open_backend=never)
    assert info.value.exit_status == 1
    assert json.loads(out.read_text(encoding="utf-8")) == []  # what was judged is still written


def test_compare_judges_both_orders(tmp_path: Path) -> None:
    a = write(tmp_path / "a.json", [{"id": "A1", "answer": "strong answer"}, {"id": "A2", "answer": "weak one"}])
    b = write(tmp_path / "b.json", [{"id": "A1", "answer": "weak answer"}, {"id": "A2", "answer": "strong one"}])
    out = tmp_path / "pairs.json"
    result = compare_answer_files(RUBRIC, a, b, "judge", output=out, open_backend=opener())
    assert result.summary.model_dump() == {
        "pairs": 2,
        "a_wins": 1,
        "ties": 0,
        "b_wins": 1,
        "unknown": 0,
        "inconsistent": 0,
    }
    assert [(p["id"], p["verdict"]) for p in result.pairs] == [("A1", "A>>B"), ("A2", "B>>A")]
    assert json.loads(out.read_text(encoding="utf-8")) == result.pairs
    lone = write(tmp_path / "lone.json", [{"id": "A1", "answer": "x"}])
    with pytest.raises(AnswerFileError, match="answer A2 has no matching question or no counterpart"):
        compare_answer_files(RUBRIC, a, lone, "judge", open_backend=opener())


def test_calibrating_a_rubric_file_and_a_projects_set(tmp_path: Path) -> None:
    report = calibrate_rubric(RUBRIC, "judge", open_backend=opener())
    assert report.reproduced and report.judge == "judge"
    assert report.reproduced_count == report.fixture_count == sum(len(q.calibration) for q in RUBRIC.questions)

    project = create_project(tmp_path / "p")
    try:
        with unit_of_work(project.engine) as tx:
            set_id = sets.import_rubric(tx, RUBRIC, source_name="r.json", source_sha256="s", actor="geo")
        workflow.retire(project.engine, set_id, "A2", reviewer="geo", comment="duplicate")
        outcome = calibrate_set(project.engine, set_id, None, judge="judge", open_backend=opener())
        results = outcome.questions
        assert outcome.changes.question_ids(set_id) == {"A1"}
        assert [r.question_id for r in results] == ["A1"] and results[0].reproduced  # retired: left out
        stored = latest_calibration(project.engine, set_id, "A1")
        assert stored is not None and stored[0] == "judge" and stored[1] == results[0]
        assert latest_calibration(project.engine, set_id, "A2") is None
        with pytest.raises(JudgeOpenError, match="judge nonsense"):
            calibrate_set(project.engine, set_id, ["A1"], judge="nonsense")
    finally:
        project.close()


def test_a_set_calibration_says_each_fixture_and_keeps_what_it_finished_when_cancelled(tmp_path: Path) -> None:
    """n of N fixtures from the start (the judge loading), one report per fixture as its
    verdict is final, and a cancel keeps every question whose fixtures were all judged."""
    project = create_project(tmp_path / "p")
    try:
        with unit_of_work(project.engine) as tx:
            set_id = sets.import_rubric(tx, RUBRIC, source_name="r.json", source_sha256="s", actor="geo")
        first = len(RUBRIC.questions[0].calibration)
        total = sum(len(q.calibration) for q in RUBRIC.questions)
        cancel = threading.Event()
        heard: list[JobProgress] = []

        def progress(report: JobProgress) -> None:
            heard.append(report)
            if report.done == first:  # A1's fixtures are all judged
                cancel.set()

        with pytest.raises(Cancelled):
            calibrate_set(
                project.engine, set_id, None, judge="judge", open_backend=opener(), progress=progress, cancel=cancel
            )
        assert (heard[0].done, heard[0].total, heard[0].unit) == (0, total, "fixtures")
        assert heard[0].message == "loading the judge judge"
        assert (heard[1].done, heard[1].message) == (0, f"judging fixture 1 of {total}")  # the judge is open
        assert [p.done for p in heard[2:]] == list(range(1, first + 1))
        assert heard[2].message.startswith("A1 ") and f"reproduced (1 of {total} fixtures)" in heard[2].message
        kept = latest_calibration(project.engine, set_id, "A1")
        assert kept is not None and kept[1].reproduced and len(kept[1].fixtures) == first
        assert latest_calibration(project.engine, set_id, "A2") is None  # never finished: nothing kept
    finally:
        project.close()
