"""Judging answer files against a rubric file, outside any project: grading-record
checks, pointwise scores, pairwise comparisons and judge calibration.

These serve scripts that sit beside the Groundtruth harness (``gtreview grades check``,
``score``, ``compare``, ``calibrate``): they read the harness's answer files, write the
harness's contract records, and return a summary. Every judge is opened through the
one backend factory (a local model runs in a worker process). What the user can act
on (a bad judge spec, answers that match no question, a judge that drifted) is a
one-line ``UserError``.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from gtreview.core.errors import UserError
from gtreview.core.grade_check import RecordCheck, check_record
from gtreview.core.grading import record_to_contract
from gtreview.core.jsonformat import loads_json
from gtreview.core.redaction import redact
from gtreview.core.rubric import Rubric
from gtreview.core.wording import plural
from gtreview.files import write_text_atomic
from gtreview.inference.backend import CompletionBackend
from gtreview.inference.factory import open_backend as open_model
from gtreview.inference.specs import parse_model_spec
from gtreview.inputs import MAX_DATA_FILE_BYTES, InputReadError, read_limited
from gtreview.interop.harness_files import question_for, read_answers
from gtreview.judging.calibration import (
    CalibrationReport,
    DriftError,
    DriftMonitor,
    FixtureHeard,
    calibrate,
    standardisation_fixtures,
)
from gtreview.judging.pairwise import PairJudgement, PairTask, compare_answers
from gtreview.judging.pointwise import Judgement, JudgeTask, judge_answers

OpenBackend = Callable[[str], CompletionBackend]


class JudgeOpenError(UserError):
    """The judge named cannot be opened (a bad spec, a missing file, a refused server)."""


class AnswerFileError(UserError):
    """An answer or grades file that does not fit the rubric, or cannot be read."""


class JudgeDrifted(UserError):
    """The judge stopped reproducing the standardisation fixtures: a finding, not bad input."""

    exit_status = 1


def open_judge(spec: str, open_backend: OpenBackend = open_model) -> CompletionBackend:
    """The judge ``spec`` names; a failure is one line that says which spec."""
    try:
        return open_backend(spec)
    except (ValueError, OSError) as exc:  # ModelSpecError and BackendOpenError are ValueErrors
        raise JudgeOpenError(redact(f"judge {spec}: {exc}")) from None  # the spec may hold a password


# -- grades check ---------------------------------------------------------------------


class GradeLine(BaseModel):
    """One line of a grades file and what the program's rules say about it."""

    line: int
    check: RecordCheck
    parsed: bool = True  # False: the line is not JSON at all

    def to_json(self) -> dict[str, Any]:
        if not self.parsed:
            return {
                "line": self.line,
                "question_id": None,
                "total": None,
                "violations": self.check.violations,
            }
        return {"line": self.line, **self.check.model_dump(mode="json")}


class GradesCheck(BaseModel):
    lines: list[GradeLine]

    @property
    def with_violations(self) -> list[GradeLine]:
        return [g for g in self.lines if g.check.violations]


def check_grades(rubric: Rubric, grades: Path) -> GradesCheck:
    """Recompute the total of every grading record (one JSON object a line) by the rules."""
    questions = {q.id: q for q in rubric.questions}
    try:
        lines = read_limited(grades, MAX_DATA_FILE_BYTES).decode("utf-8").splitlines()
    except InputReadError as exc:
        raise AnswerFileError(str(exc)) from None
    except UnicodeDecodeError:
        raise AnswerFileError(f"{grades}: not UTF-8 text") from None
    checked: list[GradeLine] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = loads_json(line)
        except json.JSONDecodeError as exc:
            violation = f"not valid JSON: {exc.msg}"
            check = RecordCheck(question_id=None, total=None, violations=[violation])
            checked.append(GradeLine(line=number, check=check, parsed=False))
            continue
        checked.append(GradeLine(line=number, check=check_record(record, questions)))
    return GradesCheck(lines=checked)


# -- pointwise scores -----------------------------------------------------------------


class ScoreSummary(BaseModel):
    answers: int
    scored: int
    unscored: int
    mean_total: float | None
    gate_pass_rate: float | None


class ScoreResult(BaseModel):
    summary: ScoreSummary
    judgements: list[dict[str, Any]]  # the harness's contract records, as written to the output


def _write(path: Path | None, data: Any) -> None:
    if path is not None:  # beside the target, then renamed: a full disk keeps the previous output
        write_text_atomic(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def judgement_record(judgement: Judgement) -> dict[str, Any]:
    """A judgement as the harness's grader contract writes it, with what produced it."""
    data: dict[str, Any] = {"id": judgement.key.split(":", 1)[1], "status": judgement.status.value}
    if judgement.record is not None:
        data.update(record_to_contract(judgement.record))
        data["adjustments"] = judgement.record.adjustments
    else:
        data.update({"question_id": judgement.question_id, "total": None, "unscored_reason": judgement.unscored_reason})
    data.update(
        {
            "attempts": judgement.attempts,
            "judge": judgement.judge,
            "prompt_sha256": judgement.prompt_sha256,
            "sampling": judgement.sampling.model_dump(),
        }
    )
    return data


def _score_summary(results: list[Judgement]) -> ScoreSummary:
    records = [j.record for j in results if j.record is not None]
    return ScoreSummary(
        answers=len(results),
        scored=len(records),
        unscored=len(results) - len(records),
        mean_total=round(sum(r.total for r in records) / len(records), 3) if records else None,
        gate_pass_rate=round(sum(1 for r in records if r.gate_passed) / len(records), 3) if records else None,
    )


def score_answer_file(
    rubric: Rubric,
    answers: Path,
    judge: str,
    *,
    drift_every: int = 50,
    output: Path | None = None,
    open_backend: OpenBackend = open_model,
) -> ScoreResult:
    """Judge every answer pointwise; re-check the standardisation fixtures every
    ``drift_every`` answers (0: never). On drift, what was judged is still written."""
    questions = {q.id: q for q in rubric.questions}
    tasks: list[JudgeTask] = []
    unmatched: list[str] = []
    for position, answer in enumerate(read_answers(answers)):
        question = question_for(answer.id, questions)
        if question is None:
            unmatched.append(answer.id)
            continue
        tasks.append(JudgeTask(key=f"{position}:{answer.id}", question=question, answer=answer.text))
    if unmatched:
        raise AnswerFileError(f"answers with no matching question: {', '.join(unmatched[:5])}")
    backend = open_judge(judge, open_backend)
    results: list[Judgement] = []
    try:
        monitor = (
            DriftMonitor(
                backend,
                standardisation_fixtures(rubric.questions),
                every=drift_every,
                global_variants=rubric.global_variants,
            )
            if drift_every > 0
            else None
        )
        if monitor is not None:
            monitor.start()
        step = max(1, drift_every or len(tasks))
        for start in range(0, len(tasks), step):
            results += judge_answers(backend, tasks[start : start + step], global_variants=rubric.global_variants)
            if monitor is not None:
                monitor.after(len(results))
    except DriftError as exc:
        _write(output, [judgement_record(j) for j in results])
        raise JudgeDrifted(f"{exc}; stopped after {len(results)} answers") from None
    finally:
        backend.close()
    data = [judgement_record(j) for j in results]
    _write(output, data)
    return ScoreResult(summary=_score_summary(results), judgements=data)


# -- pairwise comparisons -------------------------------------------------------------


class CompareSummary(BaseModel):
    pairs: int
    a_wins: int
    ties: int
    b_wins: int
    unknown: int
    inconsistent: int


class CompareResult(BaseModel):
    summary: CompareSummary
    pairs: list[dict[str, Any]]  # the harness's pairwise records, as written to the output


def pair_record(pair: PairJudgement) -> dict[str, Any]:
    """A pair judged in both orders, as the harness's pairwise file writes it."""
    return {
        "id": pair.key,
        "question_id": pair.question_id,
        "verdict": pair.outcome.label.value,
        "verdict_normal": pair.outcome.verdict_normal,
        "verdict_normal_score": pair.outcome.normal_score,
        "verdict_swapped": pair.outcome.verdict_swapped,
        "verdict_swapped_score": pair.outcome.swapped_score,
        "avg_score": pair.outcome.average,
        "inconsistent": pair.outcome.inconsistent,
        "reason": pair.reason_normal,
        "reason_swapped": pair.reason_swapped,
        "judge": pair.judge,
        "prompt_sha256": pair.prompt_sha256,
    }


def compare_answer_files(
    rubric: Rubric,
    answers_a: Path,
    answers_b: Path,
    judge: str,
    *,
    output: Path | None = None,
    open_backend: OpenBackend = open_model,
) -> CompareResult:
    """Judge each answer of ``answers_a`` against its counterpart in ``answers_b``, in both orders."""
    questions = {q.id: q for q in rubric.questions}
    a = {x.id: x for x in read_answers(answers_a)}
    b = {x.id: x for x in read_answers(answers_b)}
    tasks = []
    for answer_id, answer_a in a.items():
        question = question_for(answer_id, questions)
        if question is None or answer_id not in b:
            raise AnswerFileError(f"answer {answer_id} has no matching question or no counterpart in {answers_b}")
        tasks.append(PairTask(key=answer_id, question=question, answer_a=answer_a.text, answer_b=b[answer_id].text))
    backend = open_judge(judge, open_backend)
    try:
        pairs = compare_answers(backend, tasks, global_variants=rubric.global_variants)
    finally:
        backend.close()
    data = [pair_record(p) for p in pairs]
    _write(output, data)
    labels = Counter(p.outcome.label.value for p in pairs)
    summary = CompareSummary(
        pairs=len(pairs),
        a_wins=labels["A>>B"] + labels["A>B"],
        ties=labels["A=B"],
        b_wins=labels["B>A"] + labels["B>>A"],
        unknown=labels["unknown"],
        inconsistent=sum(1 for p in pairs if p.outcome.inconsistent),
    )
    return CompareResult(summary=summary, pairs=data)


# -- calibration ----------------------------------------------------------------------


def calibrate_rubric(
    rubric: Rubric,
    judge: str,
    *,
    open_backend: OpenBackend = open_model,
    on_fixture: FixtureHeard | None = None,
    on_stage: Callable[[str], None] | None = None,
) -> CalibrationReport:
    """Does ``judge`` reproduce the rubric's calibration fixtures? (Nothing is stored:
    a project's set is calibrated with :func:`gtreview.app.question_calibration.calibrate_set`.)
    ``on_fixture(check, done, total)`` hears each fixture as its verdict is final;
    ``on_stage`` what is under way before the first is (the judge loading, then reading
    every fixture at once: minutes on a local model, which must not read as a hang)."""
    say = on_stage or (lambda _stage: None)
    if open_backend is open_model:  # a malformed spec is its one line, nothing said before it
        parse_model_spec(judge)
    say(f"loading the judge {redact(judge)} …")
    backend = open_judge(judge, open_backend)
    fixtures = sum(len(q.calibration) for q in rubric.questions)
    with_fixtures = sum(bool(q.calibration) for q in rubric.questions)
    say(f"judging {plural(fixtures, 'fixture')} of {plural(with_fixtures, 'question')} …")
    try:
        return calibrate(backend, rubric.questions, global_variants=rubric.global_variants, on_fixture=on_fixture)
    finally:
        backend.close()


__all__ = [
    "AnswerFileError",
    "CalibrationReport",
    "CompareResult",
    "CompareSummary",
    "GradeLine",
    "GradesCheck",
    "JudgeDrifted",
    "JudgeOpenError",
    "ScoreResult",
    "ScoreSummary",
    "calibrate_rubric",
    "check_grades",
    "compare_answer_files",
    "open_judge",
    "score_answer_file",
]
