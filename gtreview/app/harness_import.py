"""Importing the Groundtruth harness's answer, errors and score files into a project.

The files are read as the harness writes them (``interop.harness_files``), every
score and verdict is recomputed by gtreview's rules (``app.harness_checks``), and the
lot is stored as one imported run: a generation for every answer (a score entry
carries both of its answers; answer and errors files add what the score file lacks),
a judgement for every scored side and a pair for every compared entry. The run's
record (``runs.record.RunConfig``) keeps its files, labels and the questions they
answer. Importing the same files again finds that run and changes nothing.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from pydantic import BaseModel, Field
from sqlalchemy import Engine

from gtreview.app.harness_checks import GRADER, UNSCORED, Disagreement, check_pair, check_side
from gtreview.core.errors import UserError
from gtreview.core.jsonmodel import canonical_hash
from gtreview.core.rubric import Question, Rubric
from gtreview.interop.harness_files import (
    SIDES,
    HarnessAnswer,
    HarnessFailure,
    ScoreEntry,
    failures_path,
    question_for,
    read_answers,
    read_failures,
    read_rubric_registry,
    read_score_entries,
    registry_key,
)
from gtreview.runs.record import HarnessSource, RunSource, RunStatus, new_import_config
from gtreview.runs.statuses import GenerationStatus, JudgementStatus
from gtreview.store import db, runs_repo, tables

__all__ = [
    "Disagreement",
    "HarnessImportError",
    "HarnessImportReport",
    "HarnessInputs",
    "import_harness_files",
    "read_harness_inputs",
    "rubric_key_of",
]


class HarnessImportError(UserError):
    """An import that names nothing to import, or files that contradict themselves."""


class HarnessImportReport(BaseModel):
    run_id: int | None = None
    already_imported: bool = False  # the same files were imported before: nothing was written
    entries: int = 0
    answers: int = 0
    failures: int = 0
    judgements: int = 0
    unscored: int = 0
    pairs: int = 0
    unknown_pairs: int = 0
    rubric_key: str | None = None
    disagreements: list[Disagreement] = Field(default_factory=list)
    unmatched_ids: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)


Record = tables.Generation | tables.Judgement | tables.PairJudgement


def rubric_key_of(rubric: Rubric, *, rubric_file: str | None = None, registry: Path | None = None) -> str | None:
    """The key the harness's leaderboard knows the rubric by: the rubric's own ``benchmark``
    block (``key`` or ``rubric_key``), else the registry entry (``configs/rubrics.json``)
    listing the rubric's file."""
    extra = rubric.benchmark.model_extra or {}
    for name in ("rubric_key", "key"):
        value = extra.get(name)
        if isinstance(value, str) and value.strip():
            return value.strip()
    if registry is not None and rubric_file:
        return registry_key(read_rubric_registry(registry), rubric_file)
    return None


def _sha(path: Path | None) -> str | None:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path is not None else None


class _Import:
    """What one import builds before anything is stored (all files read and checked first)."""

    def __init__(self, run_id: int, prefix: str, labels: tuple[str, str], report: HarnessImportReport) -> None:
        self.run_id, self.prefix, self.labels, self.report = run_id, prefix, labels, report
        self.generations: dict[tuple[str, str], tables.Generation] = {}
        self.records: list[Record] = []

    def key(self, *parts: str) -> str:
        return ":".join([self.prefix, *parts])

    def generation(self, label: str, qid: str, raw: str, clean: str, error: str = "") -> None:
        """A generation unless one for (label, question) came from an earlier file; blank is an error.
        A failure from an errors file replaces a blank answer of the score file: it keeps the
        raw reply (a refusal, a thinking-only text) and why it failed."""
        earlier = self.generations.get((label, qid))
        explains = bool(error) and earlier is not None and earlier.error == "empty answer"
        if earlier is not None and not explains:
            if not error and earlier.status == GenerationStatus.OK and earlier.clean_text.strip() != clean.strip():
                self.report.warnings.append(
                    f"{label} {qid}: the answer file's text differs from the score file's; kept the one judged"
                )
            return
        failed = error or ("" if clean.strip() else "empty answer")
        self.generations[(label, qid)] = tables.Generation(
            run_id=self.run_id,
            key=self.key("generation", label, qid),
            model_label=label,
            qid=qid,
            sample_index=0,
            raw_text=raw,
            clean_text=clean,
            status=(GenerationStatus.ERROR if failed else GenerationStatus.OK).value,
            error=failed,
            finish_reason="",
        )

    def score_entry(self, entry: ScoreEntry, question: Question) -> None:
        for side_name, label in zip(SIDES, self.labels, strict=True):
            side = entry.sides.get(side_name)
            if side is None:
                continue
            if side.has_answer:
                clean = side.answer_clean if side.answer_clean is not None else side.answer_raw or ""
                self.generation(label, question.id, side.answer_raw or "", clean)
            if not side.scored:
                continue
            result, found = check_side(entry, side, question)
            self.report.disagreements += found
            payload = {"file": side.file_fields(), "violations": result.violations, "reason": side.reason}
            if result.contract is None:
                payload["unscored_reason"] = UNSCORED if side.score is None else "its record cannot be scored"
                self.report.unscored += 1
            else:
                payload["contract"] = result.contract
                payload["adjustments"] = [f"recomputed from the harness file: {v}" for v in result.violations]
            self.records.append(
                tables.Judgement(
                    run_id=self.run_id,
                    key=self.key("judgement", label, question.id),
                    generation_key=self.key("generation", label, question.id) if side.has_answer else None,
                    model_label=label,
                    qid=question.id,
                    sample_index=0,
                    judge=GRADER,
                    status=(JudgementStatus.SCORED if result.contract is not None else JudgementStatus.UNSCORED).value,
                    total=result.total,
                    gate_passed=result.gate_passed,
                    record_json=json.dumps(payload, ensure_ascii=False),
                )
            )
            self.report.judgements += 1
        if entry.pairwise:
            outcome, found = check_pair(entry)
            self.report.disagreements += found
            normal, swapped = entry.order_texts()
            self.records.append(
                tables.PairJudgement(
                    run_id=self.run_id,
                    key=self.key("pair", question.id),
                    qid=question.id,
                    sample_index=0,
                    model_a=self.labels[0],
                    model_b=self.labels[1],
                    label=outcome.label.value,
                    average=outcome.average,
                    inconsistent=outcome.inconsistent,
                    outcome_json=json.dumps(
                        {
                            **outcome.model_dump(mode="json"),
                            "reason_normal": normal.strip(),
                            "reason_swapped": swapped.strip(),
                        },
                        ensure_ascii=False,
                    ),
                    judge=GRADER,
                )
            )
            self.report.pairs += 1
            self.report.unknown_pairs += outcome.unknown


def _matched(
    entries: list[ScoreEntry], questions: dict[str, Question], where: Path
) -> list[tuple[ScoreEntry, Question]]:
    matched: list[tuple[ScoreEntry, Question]] = []
    seen: dict[str, ScoreEntry] = {}
    for entry in entries:
        question = question_for(entry.id, questions)
        if question is None:
            continue
        if question.id in seen:
            raise HarnessImportError(
                f"{where}: entries {seen[question.id].position} ({seen[question.id].id}) and {entry.position} "
                f"({entry.id}) both answer question {question.id}"
            )
        seen[question.id] = entry
        matched.append((entry, question))
    return matched


class HarnessInputs(BaseModel):
    """Every file of an import, read and checked; nothing stored yet."""

    scores: Path | None
    answers: dict[str, Path]
    errors: dict[str, Path]  # the harness errors file found beside an answers file
    labels: tuple[str, str]
    base: str
    entries: list[ScoreEntry]
    matched: list[tuple[ScoreEntry, Question]]
    answer_sets: dict[str, list[HarnessAnswer]]
    failure_sets: dict[str, list[HarnessFailure]]
    rubric_key: str | None


def read_harness_inputs(
    rubric: Rubric,
    *,
    scores: Path | None = None,
    answers: dict[str, Path] | None = None,
    labels: tuple[str, str] = ("a", "b"),
    base: str | None = None,
    rubric_key: str | None = None,
    rubric_file: str | None = None,
    rubrics_registry: Path | None = None,
) -> HarnessInputs:
    """Read and check the files of an import (a front-end calls it before opening the project,
    so bad input leaves nothing behind); raise a one-line ``UserError`` for the first problem."""
    answers = dict(answers or {})
    if scores is None and not answers:
        raise HarnessImportError("nothing to import: name a scores file and/or answer files")
    if labels[0] == labels[1]:
        raise HarnessImportError(f"the two sides need different labels (both are {labels[0]!r})")
    unknown = [label for label in answers if label not in labels]
    if unknown:
        raise HarnessImportError(f"answer files for {', '.join(unknown)}, which is neither {labels[0]} nor {labels[1]}")
    if base is not None and base not in labels:
        raise HarnessImportError(f"the base {base!r} is neither {labels[0]} nor {labels[1]}")
    questions = {q.id: q for q in rubric.questions}
    entries = read_score_entries(scores) if scores is not None else []
    errors = {label: found for label, path in answers.items() if (found := failures_path(path)) is not None}
    return HarnessInputs(
        scores=scores,
        answers=answers,
        errors=errors,
        labels=labels,
        base=base or labels[0],
        entries=entries,
        matched=_matched(entries, questions, scores) if scores is not None else [],
        answer_sets={label: read_answers(path) for label, path in answers.items()},
        failure_sets={label: read_failures(path) for label, path in errors.items()},
        rubric_key=rubric_key or rubric_key_of(rubric, rubric_file=rubric_file, registry=rubrics_registry),
    )


def import_harness_files(
    engine: Engine,
    rubric: Rubric,
    *,
    scores: Path | None = None,
    answers: dict[str, Path] | None = None,
    name: str = "harness import",
    labels: tuple[str, str] = ("a", "b"),
    base: str | None = None,
    set_id: int | None = None,
    rubric_key: str | None = None,
    rubric_file: str | None = None,
    rubrics_registry: Path | None = None,
) -> HarnessImportReport:
    """Store the files as an imported run and report what gtreview's rules say differently.

    ``labels`` name the models of the score file's sides A and B; ``answers`` maps a
    label to its answer file, whose harness errors file (``<stem>.errors.json``) comes
    with it. ``base`` is the label the others are compared with (default: side A's).
    The leaderboard's rubric key is ``rubric_key``, else the rubric's own or the one
    ``rubrics_registry`` (the harness's ``configs/rubrics.json``) lists for
    ``rubric_file``. Every file is read and checked before anything is written.
    """
    inputs = read_harness_inputs(
        rubric,
        scores=scores,
        answers=answers,
        labels=labels,
        base=base,
        rubric_key=rubric_key,
        rubric_file=rubric_file,
        rubrics_registry=rubrics_registry,
    )
    questions = {q.id: q for q in rubric.questions}
    answers, errors = inputs.answers, inputs.errors
    rubric_hash = canonical_hash(rubric.to_json_dict())
    config_hash = canonical_hash(
        {
            "scores": _sha(scores),
            "answers": {label: _sha(path) for label, path in answers.items()},
            "errors": {label: _sha(path) for label, path in errors.items()},
            "labels": list(labels),
            "base": inputs.base,
            "rubric": rubric_hash,
        }
    )
    key = inputs.rubric_key
    report = HarnessImportReport(rubric_key=key)
    if key is None and rubrics_registry is not None:
        report.warnings.append(f"{rubrics_registry} lists no entry for {rubric_file}: the run has no rubric key")
    report.unmatched_ids = [e.id for e in inputs.entries if question_for(e.id, questions) is None]
    with db.reading(engine) as session:
        existing = runs_repo.find_run(
            session, source=RunSource.HARNESS, rubric_hash=rubric_hash, config_hash=config_hash
        )
    build = _Import(existing or 0, f"harness:{config_hash[:16]}", labels, report)
    for entry, question in inputs.matched:
        build.score_entry(entry, question)
    report.entries = len(inputs.matched)
    for label, answered in inputs.answer_sets.items():
        _add_answers(build, label, answered, questions, report)
    for label, failed in inputs.failure_sets.items():
        _add_answers(build, label, failed, questions, report)
    report.answers = sum(g.status == GenerationStatus.OK for g in build.generations.values())
    report.failures = len(build.generations) - report.answers
    if existing is not None:
        report.run_id, report.already_imported = existing, True
        return report
    harness = HarnessSource(
        scores=str(scores) if scores else None,
        answers={k: str(v) for k, v in answers.items()},
        errors={k: str(v) for k, v in errors.items()},
        labels=list(labels),
        base=inputs.base,
        rubric_key=key,
        rubric_file=rubric_file,
    )
    with db.unit_of_work(engine) as tx:  # the run and its records, or nothing
        run_id = runs_repo.create_run(
            tx,
            name=name,
            rubric_hash=rubric_hash,
            source=RunSource.HARNESS,
            status=RunStatus.IMPORTED,
            set_id=set_id,
            config=new_import_config(harness, rubric.questions, config_hash=config_hash),
        )
        records: list[Record] = [*build.generations.values(), *build.records]
        for record in records:
            record.run_id = run_id
        runs_repo.add_records(tx, records)
    report.run_id = run_id
    return report


def _add_answers(
    build: _Import,
    label: str,
    answers: list[HarnessAnswer] | list[HarnessFailure],
    questions: dict[str, Question],
    report: HarnessImportReport,
) -> None:
    """Answers (or failures) the score file lacks; an id no question has is listed, not stored."""
    for answer in answers:
        question = question_for(answer.id, questions)
        if question is None:
            report.unmatched_ids.append(answer.id)
            continue
        if isinstance(answer, HarnessFailure):
            # the raw reply (a refusal, a thinking-only text); the event stream only when it is blank
            raw = answer.raw if answer.raw.strip() else answer.event_stream
            build.generation(label, question.id, raw, answer.clean, answer.error or "generation failed")
        else:
            build.generation(label, question.id, answer.raw, answer.clean or answer.raw)
