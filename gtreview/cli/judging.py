"""``gtreview grades check``, ``score``, ``compare`` and ``calibrate``: the judging engine."""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any

from gtreview.cli.common import (
    EXIT_FINDINGS,
    EXIT_OK,
    CliError,
    add_json,
    int_at_least,
    load_rubric,
    print_json,
)
from gtreview.interop.harness_files import question_for, read_answers


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    grades = commands.add_parser("grades", help="check grader-contract records").add_subparsers(
        dest="action", required=True
    )
    check = grades.add_parser("check", help="recompute totals and list contract violations")
    check.add_argument("--rubric", type=Path, required=True)
    check.add_argument("grades", type=Path)
    add_json(check)
    check.set_defaults(handler=grades_check)

    score_parser = commands.add_parser("score", help="judge answers pointwise against the rubric")
    score_parser.add_argument("--rubric", type=Path, required=True)
    score_parser.add_argument("--answers", type=Path, required=True)
    score_parser.add_argument(
        "--judge", type=str, required=True, help="judge model SPEC (llama:, openai:, anthropic:, hf:)"
    )
    score_parser.add_argument(
        "--drift-every",
        type=int_at_least(0),
        default=50,
        help="re-check standardisation fixtures every N answers (0: off)",
    )
    score_parser.add_argument("-o", "--output", type=Path)
    add_json(score_parser)
    score_parser.set_defaults(handler=score)

    compare_parser = commands.add_parser("compare", help="judge two answer files pairwise, in both orders")
    compare_parser.add_argument("--rubric", type=Path, required=True)
    compare_parser.add_argument("--a", type=Path, required=True, dest="answers_a")
    compare_parser.add_argument("--b", type=Path, required=True, dest="answers_b")
    compare_parser.add_argument("--judge", type=str, required=True)
    compare_parser.add_argument("-o", "--output", type=Path)
    add_json(compare_parser)
    compare_parser.set_defaults(handler=compare)

    calibrate_parser = commands.add_parser("calibrate", help="check that a judge reproduces the calibration fixtures")
    calibrate_parser.add_argument("--rubric", type=Path, required=True)
    calibrate_parser.add_argument("--judge", type=str, required=True)
    add_json(calibrate_parser)
    calibrate_parser.set_defaults(handler=calibrate)


def _backend(spec: str) -> Any:
    from gtreview.inference import ModelSpecError, open_backend

    try:
        return open_backend(spec)
    except (ModelSpecError, ValueError, OSError) as exc:
        raise CliError(f"judge {spec}: {exc}") from None


def _write(path: Path | None, data: Any) -> None:
    if path is not None:
        path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def grades_check(args: argparse.Namespace) -> int:
    from gtreview.core.grade_check import check_record

    rubric = load_rubric(args.rubric)
    questions = {q.id: q for q in rubric.questions}
    checks: list[dict[str, Any]] = []
    try:
        lines = args.grades.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise CliError(f"{args.grades}: cannot read ({exc.__class__.__name__})") from None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            checks.append(
                {"line": number, "question_id": None, "total": None, "violations": [f"not valid JSON: {exc.msg}"]}
            )
            continue
        check = check_record(record, questions)
        checks.append({"line": number, **check.model_dump(mode="json")})
    bad = [c for c in checks if c["violations"]]
    if args.json:
        print_json(checks)
    else:
        for c in checks:
            status = "ok" if not c["violations"] else "; ".join(c["violations"])
            print(f"line {c['line']}: {c['question_id']} total {c['total']}: {status}")
        print(f"{len(checks)} records, {len(bad)} with violations")
    return EXIT_FINDINGS if bad else EXIT_OK


def score(args: argparse.Namespace) -> int:
    from gtreview.judging.calibration import DriftError, DriftMonitor, standardisation_fixtures
    from gtreview.judging.pointwise import JudgeTask, judge_answers

    rubric = load_rubric(args.rubric)
    questions = {q.id: q for q in rubric.questions}
    answers = read_answers(args.answers)
    tasks: list[JudgeTask] = []
    unmatched: list[str] = []
    for position, answer in enumerate(answers):
        question = question_for(answer.id, questions)
        if question is None:
            unmatched.append(answer.id)
            continue
        tasks.append(JudgeTask(key=f"{position}:{answer.id}", question=question, answer=answer.text))
    if unmatched:
        raise CliError(f"answers with no matching question: {', '.join(unmatched[:5])}")
    backend = _backend(args.judge)
    results = []
    try:
        monitor = (
            DriftMonitor(
                backend,
                standardisation_fixtures(rubric.questions),
                every=args.drift_every,
                global_variants=rubric.global_variants,
            )
            if args.drift_every > 0
            else None
        )
        if monitor is not None:
            monitor.start()
        step = max(1, args.drift_every or len(tasks))
        for start in range(0, len(tasks), step):
            results += judge_answers(backend, tasks[start : start + step], global_variants=rubric.global_variants)
            if monitor is not None:
                monitor.after(len(results))
    except DriftError as exc:
        _write(args.output, [_judgement_json(j) for j in results])
        raise CliError(f"{exc}; stopped after {len(results)} answers", EXIT_FINDINGS) from None
    finally:
        backend.close()
    data = [_judgement_json(j) for j in results]
    _write(args.output, data)
    scored = [j for j in results if j.record is not None]
    summary = {
        "answers": len(results),
        "scored": len(scored),
        "unscored": len(results) - len(scored),
        "mean_total": round(sum(j.record.total for j in scored if j.record) / len(scored), 3) if scored else None,
        "gate_pass_rate": round(sum(1 for j in scored if j.record and j.record.gate_passed) / len(scored), 3)
        if scored
        else None,
    }
    if args.json:
        print_json({"ok": True, "summary": summary, "judgements": data})
    else:
        print(json.dumps(summary))
    return EXIT_OK


def _judgement_json(judgement: Any) -> dict[str, Any]:
    from gtreview.core.grading import record_to_contract

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


def compare(args: argparse.Namespace) -> int:
    from gtreview.judging.pairwise import PairTask, compare_answers

    rubric = load_rubric(args.rubric)
    questions = {q.id: q for q in rubric.questions}
    a = {x.id: x for x in read_answers(args.answers_a)}
    b = {x.id: x for x in read_answers(args.answers_b)}
    tasks = []
    for answer_id, answer_a in a.items():
        question = question_for(answer_id, questions)
        if question is None or answer_id not in b:
            raise CliError(f"answer {answer_id} has no matching question or no counterpart in {args.answers_b}")
        tasks.append(PairTask(key=answer_id, question=question, answer_a=answer_a.text, answer_b=b[answer_id].text))
    backend = _backend(args.judge)
    try:
        pairs = compare_answers(backend, tasks, global_variants=rubric.global_variants)
    finally:
        backend.close()
    data = [
        {
            "id": p.key,
            "question_id": p.question_id,
            "verdict": p.outcome.label.value,
            "verdict_normal": p.outcome.verdict_normal,
            "verdict_normal_score": p.outcome.normal_score,
            "verdict_swapped": p.outcome.verdict_swapped,
            "verdict_swapped_score": p.outcome.swapped_score,
            "avg_score": p.outcome.average,
            "inconsistent": p.outcome.inconsistent,
            "reason": p.reason_normal,
            "reason_swapped": p.reason_swapped,
            "judge": p.judge,
            "prompt_sha256": p.prompt_sha256,
        }
        for p in pairs
    ]
    _write(args.output, data)
    labels = Counter(p.outcome.label.value for p in pairs)
    summary = {
        "pairs": len(pairs),
        "a_wins": labels["A>>B"] + labels["A>B"],
        "ties": labels["A=B"],
        "b_wins": labels["B>A"] + labels["B>>A"],
        "unknown": labels["unknown"],
        "inconsistent": sum(1 for p in pairs if p.outcome.inconsistent),
    }
    if args.json:
        print_json({"ok": True, "summary": summary, "pairs": data})
    else:
        print(json.dumps(summary))
    return EXIT_OK


def calibrate(args: argparse.Namespace) -> int:
    from gtreview.judging.calibration import calibrate as run_calibration

    rubric = load_rubric(args.rubric)
    backend = _backend(args.judge)
    try:
        report = run_calibration(backend, rubric.questions, global_variants=rubric.global_variants)
    finally:
        backend.close()
    if args.json:
        data = report.model_dump(mode="json")
        data["reproduced"] = report.reproduced
        for question, entry in zip(report.questions, data["questions"], strict=True):
            entry["reproduced"] = question.reproduced
        print_json(data)
    else:
        for question in report.questions:
            misses = [f"{f.fixture_id} ({f.reason})" for f in question.fixtures if not f.reproduced]
            print(
                f"{question.question_id}: {'reproduced' if question.reproduced else 'NOT reproduced: ' + '; '.join(misses)}"
            )
        print(f"{report.reproduced_count} of {report.fixture_count} fixtures reproduced by {report.judge}")
    return EXIT_OK if report.reproduced else EXIT_FINDINGS
