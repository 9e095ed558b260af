"""``gtreview harness import``: Groundtruth harness outputs, recomputed and compared."""

from __future__ import annotations

import argparse
from pathlib import Path

from gtreview.cli.common import (
    EXIT_FINDINGS,
    EXIT_OK,
    CliError,
    add_json,
    add_project,
    load_rubric,
    open_cli_project,
    print_json,
)


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    harness = commands.add_parser("harness", help="import Groundtruth harness outputs").add_subparsers(
        dest="action", required=True
    )
    himport = harness.add_parser(
        "import", help="import score, answer and errors files; recompute and list disagreements"
    )
    himport.add_argument("--rubric", type=Path, required=True)
    himport.add_argument("--scores", type=Path, help="a score file of main.py --score (one or two answer files)")
    himport.add_argument("--answers-a", type=Path, help="side A's answer file (its .errors.json comes with it)")
    himport.add_argument("--answers-b", type=Path, help="side B's answer file (its .errors.json comes with it)")
    himport.add_argument("--label-a", type=str, default="a", help="the model of side A (default: a)")
    himport.add_argument("--label-b", type=str, default="b", help="the model of side B (default: b)")
    himport.add_argument(
        "--base", choices=("a", "b"), default="a", help="which side is the base the other is compared with (default: a)"
    )
    himport.add_argument("--rubric-key", type=str, default=None, help="the harness leaderboard's key for the rubric")
    himport.add_argument(
        "--rubrics-config", type=Path, default=None, help="the harness's configs/rubrics.json, to find the rubric key"
    )
    himport.add_argument("--name", type=str, default="harness import")
    add_project(himport)
    add_json(himport)
    himport.set_defaults(handler=harness_import)


def harness_import(args: argparse.Namespace) -> int:
    from gtreview.app.harness_import import import_harness_files, read_harness_inputs

    rubric = load_rubric(args.rubric)
    answers = {label: path for label, path in ((args.label_a, args.answers_a), (args.label_b, args.answers_b)) if path}
    if args.scores is None and not answers:  # a usage error, found before any project is opened
        raise CliError("give --scores and/or --answers-a/--answers-b")
    files = {
        "scores": args.scores,
        "answers": answers,
        "labels": (args.label_a, args.label_b),
        "base": args.label_a if args.base == "a" else args.label_b,
        "rubric_key": args.rubric_key,
        "rubric_file": args.rubric.name,
        "rubrics_registry": args.rubrics_config,
    }
    read_harness_inputs(rubric, **files)  # bad input is one line before any project is opened
    project = open_cli_project(args)
    try:
        report = import_harness_files(project.engine, rubric, name=args.name, **files)
    finally:
        project.close()
    if args.json:
        print_json({"ok": not report.disagreements, **report.model_dump(mode="json")})
    else:
        for d in report.disagreements:
            note = f" ({d.note})" if d.note else ""
            print(
                f"entry {d.entry} [{d.id}] {d.field}: file {d.file_value!r}, gtreview {d.recomputed!r}: {d.rule}{note}"
            )
        for warning in report.warnings:
            print(f"note: {warning}")
        if report.unmatched_ids:
            print(f"note: ids no question of the rubric has, not imported: {', '.join(report.unmatched_ids)}")
        done = "already imported as" if report.already_imported else "imported as"
        print(
            f"{done} run {report.run_id}: {report.answers} answers, {report.failures} failures, "
            f"{report.judgements} judgements ({report.unscored} unscored), {report.pairs} pairs "
            f"({report.unknown_pairs} unknown); {len(report.disagreements)} disagreements"
        )
    return EXIT_FINDINGS if report.disagreements else EXIT_OK
