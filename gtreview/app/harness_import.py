"""Importing the Groundtruth harness's answer and score files into a project.

Nothing in the files is taken on trust: each pointwise total is recomputed from its
components by gtreview's rules, each pairwise verdict is reconciled again from its
two raw tokens, and every disagreement with what the file says is listed.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field
from sqlalchemy import Engine

from gtreview.core.errors import UserError
from gtreview.core.grade_check import check_record
from gtreview.core.jsonmodel import canonical_hash
from gtreview.core.pairwise import PairLabel, reconcile
from gtreview.core.rubric import Question, Rubric
from gtreview.interop.harness_files import HarnessAnswer, question_for, read_answers, read_json_array
from gtreview.runs.record import HarnessSource, RunSource, RunStatus, new_import_config
from gtreview.store import runs_repo, tables

SIDES = ("a", "b")


class HarnessImportError(UserError):
    """An import that names nothing to import."""


class Disagreement(BaseModel):
    entry: int
    id: str
    field: str
    file_value: Any
    recomputed: Any
    note: str = ""


class HarnessImportReport(BaseModel):
    run_id: int | None = None
    entries: int = 0
    answers: int = 0
    failures: int = 0
    judgements: int = 0
    pairs: int = 0
    disagreements: list[Disagreement] = Field(default_factory=list)
    unmatched_ids: list[str] = Field(default_factory=list)


def _label(value: Any) -> str:
    text = str(value or "").strip().removeprefix("[[").removesuffix("]]").replace(" ", "")
    return text


def _close(a: Any, b: Any) -> bool:
    if isinstance(a, int | float) and isinstance(b, int | float) and not isinstance(a, bool):
        return abs(float(a) - float(b)) < 1e-9
    return bool(a == b)


def check_score_entry(
    position: int, entry: dict[str, Any], question: Question
) -> tuple[list[Disagreement], dict[str, Any]]:
    """Recompute one score-file entry; return the disagreements and what was recomputed."""
    qid = str(entry.get("id"))
    found: list[Disagreement] = []
    recomputed: dict[str, Any] = {}
    for side in SIDES:
        if f"score_{side}_components" not in entry and f"score_{side}" not in entry:
            continue
        record = {
            "question_id": question.id,
            "gate_passed": entry.get(f"score_{side}_gate_passed"),
            "components": entry.get(f"score_{side}_components") or [],
            "total": entry.get(f"score_{side}"),
        }
        check = check_record(record, {question.id: question})
        recomputed[side] = check
        if not _close(check.total, entry.get(f"score_{side}")):
            found.append(
                Disagreement(
                    entry=position,
                    id=qid,
                    field=f"score_{side}",
                    file_value=entry.get(f"score_{side}"),
                    recomputed=check.total,
                    note="; ".join(check.violations),
                )
            )
        elif check.violations:
            found.append(
                Disagreement(
                    entry=position,
                    id=qid,
                    field=f"score_{side}_components",
                    file_value=None,
                    recomputed=check.total,
                    note="; ".join(check.violations),
                )
            )
    if "verdict_normal" in entry or "verdict_swapped" in entry:
        outcome = reconcile(str(entry.get("verdict_normal") or ""), str(entry.get("verdict_swapped") or ""))
        recomputed["pair"] = outcome
        checks = [
            ("verdict_normal_score", outcome.normal_score),
            ("avg_score", outcome.average),
            ("verdict", outcome.label.value),
        ]
        swapped = entry.get("verdict_swapped_score")
        if (
            swapped is not None
            and outcome.swapped_score is not None
            and not (_close(swapped, outcome.swapped_score) or _close(swapped, -outcome.swapped_score))
        ):
            found.append(
                Disagreement(
                    entry=position,
                    id=qid,
                    field="verdict_swapped_score",
                    file_value=swapped,
                    recomputed=outcome.swapped_score,
                )
            )
        for field, value in checks:
            if field not in entry:
                continue
            file_value = entry[field]
            same = _label(file_value) == value if field == "verdict" else _close(file_value, value)
            if field == "verdict" and outcome.label is PairLabel.UNKNOWN:
                same = _label(file_value).lower() in {"unknown", ""}
            if not same:
                found.append(Disagreement(entry=position, id=qid, field=field, file_value=file_value, recomputed=value))
    return found, recomputed


def import_harness_files(
    engine: Engine,
    rubric: Rubric,
    *,
    scores: Path | None = None,
    answers: dict[str, Path] | None = None,
    name: str = "harness import",
    labels: tuple[str, str] = ("a", "b"),
    set_id: int | None = None,
) -> HarnessImportReport:
    """Store the files as an imported run and report what gtreview's rules say differently.

    ``answers`` maps a model's label to its answer file; the harness's failures file
    beside each (``<answers>.errors.json``) is imported with it.
    """
    if scores is None and not answers:
        raise HarnessImportError("nothing to import: name a scores file and/or answer files")
    questions = {q.id: q for q in rubric.questions}
    report = HarnessImportReport()
    score_entries = read_json_array(scores) if scores is not None else []
    answer_sets = {label: read_answers(path) for label, path in (answers or {}).items()}
    failures = {label: read_failures(path) for label, path in (answers or {}).items()}
    digest = hashlib.sha256()
    for path in [p for p in [scores, *(answers or {}).values()] if p is not None]:
        digest.update(path.read_bytes())
    run_id = runs_repo.create_run(
        engine,
        name=name,
        rubric_hash=canonical_hash(rubric.to_json_dict()),
        source=RunSource.HARNESS,
        status=RunStatus.IMPORTED,
        set_id=set_id,
        config=new_import_config(
            HarnessSource(
                scores=str(scores) if scores else None,
                answers={k: str(v) for k, v in (answers or {}).items()},
                labels=list(labels),
            ),
            rubric.questions,
        ),
    )
    report.run_id = run_id
    prefix = f"import:{digest.hexdigest()[:16]}"
    records: list[tables.Generation | tables.Judgement | tables.PairJudgement] = []
    for label, entries in answer_sets.items():
        records += [_generation(run_id, prefix, label, answer, questions, report) for answer in entries]
        records += [_failure(run_id, prefix, label, failure, questions, report) for failure in failures[label]]
    report.answers = sum(len(entries) for entries in answer_sets.values())
    report.failures = sum(len(entries) for entries in failures.values())
    for position, entry in enumerate(score_entries):
        if not isinstance(entry, dict):
            report.unmatched_ids.append(f"entry {position}")
            continue
        question = question_for(str(entry.get("id")), questions)
        if question is None:
            report.unmatched_ids.append(str(entry.get("id")))
            continue
        found, recomputed = check_score_entry(position, entry, question)
        report.disagreements += found
        report.entries += 1
        for side, label in zip(SIDES, labels, strict=True):
            check = recomputed.get(side)
            if check is None:
                continue
            records.append(
                tables.Judgement(
                    run_id=run_id,
                    key=f"{prefix}:judgement:{position}:{side}",
                    model_label=label,
                    qid=question.id,
                    sample_index=0,
                    judge=str(entry.get("judge", "harness")),
                    status="scored" if check.total is not None else "unscored",
                    total=check.total,
                    gate_passed=entry.get(f"score_{side}_gate_passed")
                    if isinstance(entry.get(f"score_{side}_gate_passed"), bool)
                    else None,
                    record_json=json.dumps(
                        {
                            "file": {k: v for k, v in entry.items() if k.startswith(f"score_{side}")},
                            "violations": check.violations,
                        },
                        ensure_ascii=False,
                    ),
                )
            )
            report.judgements += 1
        outcome = recomputed.get("pair")
        if outcome is not None:
            records.append(
                tables.PairJudgement(
                    run_id=run_id,
                    key=f"{prefix}:pair:{position}",
                    qid=question.id,
                    sample_index=0,
                    model_a=labels[0],
                    model_b=labels[1],
                    label=outcome.label.value,
                    average=outcome.average,
                    inconsistent=outcome.inconsistent,
                    outcome_json=outcome.model_dump_json(),
                    judge=str(entry.get("judge", "harness")),
                )
            )
            report.pairs += 1
    runs_repo.add_records(engine, records)
    return report


def _generation(
    run_id: int,
    prefix: str,
    label: str,
    answer: HarnessAnswer,
    questions: dict[str, Question],
    report: HarnessImportReport,
) -> tables.Generation:
    question = question_for(answer.id, questions)
    if question is None:
        report.unmatched_ids.append(answer.id)
    text = answer.text
    return tables.Generation(
        run_id=run_id,
        key=f"{prefix}:generation:{label}:{answer.id}",
        model_label=label,
        qid=question.id if question else answer.id,
        sample_index=0,
        raw_text=answer.raw,
        clean_text=answer.clean or answer.raw,
        status="ok" if text.strip() else "error",
        error="" if text.strip() else "empty answer",
        finish_reason="",
    )


def failures_path(answers: Path) -> Path | None:
    """The harness writes failed generations beside the answers, as ``<output>.errors.json``."""
    for candidate in (Path(f"{answers}.errors.json"), answers.with_suffix(".errors.json")):
        if candidate.is_file():
            return candidate
    return None


def read_failures(answers: Path) -> list[dict[str, Any]]:
    path = failures_path(answers)
    return [e for e in read_json_array(path) if isinstance(e, dict)] if path is not None else []


def _failure(
    run_id: int,
    prefix: str,
    label: str,
    entry: dict[str, Any],
    questions: dict[str, Question],
    report: HarnessImportReport,
) -> tables.Generation:
    answer_id = str(entry.get("id"))
    question = question_for(answer_id, questions)
    if question is None:
        report.unmatched_ids.append(answer_id)
    raw = entry.get("raw_output", entry.get("answer_b", ""))
    return tables.Generation(
        run_id=run_id,
        key=f"{prefix}:failure:{label}:{answer_id}",
        model_label=label,
        qid=question.id if question else answer_id,
        sample_index=0,
        raw_text=str(raw or ""),
        clean_text=str(entry.get("answer_b_clean") or ""),
        status="error",
        error=str(entry.get("error") or "generation failed"),
        finish_reason="",
    )
