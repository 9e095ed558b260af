"""``gtreview grades check``, ``score``, ``compare`` and ``calibrate``: the judging engine."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from gtreview.cli.common import EXIT_FINDINGS, EXIT_OK, add_json, add_output_file, int_at_least, load_rubric, print_json


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
    add_output_file(score_parser, "-o", "--output", help="write the judgements (grader-contract records) as JSON")
    add_json(score_parser)
    score_parser.set_defaults(handler=score)

    compare_parser = commands.add_parser("compare", help="judge two answer files pairwise, in both orders")
    compare_parser.add_argument("--rubric", type=Path, required=True)
    compare_parser.add_argument("--a", type=Path, required=True, dest="answers_a")
    compare_parser.add_argument("--b", type=Path, required=True, dest="answers_b")
    compare_parser.add_argument("--judge", type=str, required=True)
    add_output_file(compare_parser, "-o", "--output", help="write the pair verdicts as JSON")
    add_json(compare_parser)
    compare_parser.set_defaults(handler=compare)

    calibrate_parser = commands.add_parser("calibrate", help="check that a judge reproduces the calibration fixtures")
    calibrate_parser.add_argument("--rubric", type=Path, required=True)
    calibrate_parser.add_argument("--judge", type=str, required=True)
    add_json(calibrate_parser)
    calibrate_parser.set_defaults(handler=calibrate)


def grades_check(args: argparse.Namespace) -> int:
    from gtreview.app.judging import check_grades

    report = check_grades(load_rubric(args.rubric), args.grades)
    if args.json:
        print_json([line.to_json() for line in report.lines])
    else:
        for line in report.lines:
            check = line.check
            status = "ok" if not check.violations else "; ".join(check.violations)
            print(f"line {line.line}: {check.question_id} total {check.total}: {status}")
        print(f"{len(report.lines)} records, {len(report.with_violations)} with violations")
    return EXIT_FINDINGS if report.with_violations else EXIT_OK


def score(args: argparse.Namespace) -> int:
    from gtreview.app.judging import score_answer_file

    result = score_answer_file(
        load_rubric(args.rubric), args.answers, args.judge, drift_every=args.drift_every, output=args.output
    )
    summary = result.summary.model_dump()
    if args.json:
        print_json({"ok": True, "summary": summary, "judgements": result.judgements})
    else:
        print(json.dumps(summary))
    return EXIT_OK


def compare(args: argparse.Namespace) -> int:
    from gtreview.app.judging import compare_answer_files

    result = compare_answer_files(
        load_rubric(args.rubric), args.answers_a, args.answers_b, args.judge, output=args.output
    )
    summary = result.summary.model_dump()
    if args.json:
        print_json({"ok": True, "summary": summary, "pairs": result.pairs})
    else:
        print(json.dumps(summary))
    return EXIT_OK


def _fixture_printer(stream: Any) -> Any:
    """One line per fixture as its verdict is final (the judge reads them all at once,
    so they come in any order): a long calibration shows it is working."""

    def show(check: Any, done: int, total: int) -> None:
        outcome = "reproduced" if check.reproduced else f"NOT reproduced ({check.reason})"
        print(f"[{done}/{total}] {check.question_id} {check.fixture_id}: {outcome}", file=stream, flush=True)

    return show


def calibrate(args: argparse.Namespace) -> int:
    from gtreview.app.judging import calibrate_rubric

    # Progress on stderr, as ``gtreview run`` shows it, and none with --json (stdout stays one document).
    on_fixture = None if args.json else _fixture_printer(sys.stderr)
    on_stage = None if args.json else (lambda stage: print(stage, file=sys.stderr, flush=True))
    report = calibrate_rubric(load_rubric(args.rubric), args.judge, on_fixture=on_fixture, on_stage=on_stage)
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
