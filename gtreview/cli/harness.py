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
    himport = harness.add_parser("import", help="import answer and score files; recompute and list disagreements")
    himport.add_argument("--rubric", type=Path, required=True)
    himport.add_argument("--scores", type=Path)
    himport.add_argument("--answers-a", type=Path)
    himport.add_argument("--answers-b", type=Path)
    himport.add_argument("--label-a", type=str, default="a")
    himport.add_argument("--label-b", type=str, default="b")
    himport.add_argument("--name", type=str, default="harness import")
    add_project(himport)
    add_json(himport)
    himport.set_defaults(handler=harness_import)


def harness_import(args: argparse.Namespace) -> int:
    from gtreview.app.harness_import import import_harness_files

    rubric = load_rubric(args.rubric)
    answers = {label: path for label, path in ((args.label_a, args.answers_a), (args.label_b, args.answers_b)) if path}
    if args.scores is None and not answers:  # a usage error, found before any project is opened
        raise CliError("give --scores and/or --answers-a/--answers-b")
    project = open_cli_project(args)
    try:
        report = import_harness_files(
            project.engine,
            rubric,
            scores=args.scores,
            answers=answers,
            name=args.name,
            labels=(args.label_a, args.label_b),
        )
    finally:
        project.close()
    if args.json:
        print_json({"ok": not report.disagreements, **report.model_dump(mode="json")})
    else:
        for d in report.disagreements:
            note = f" ({d.note})" if d.note else ""
            print(f"entry {d.entry} [{d.id}] {d.field}: file {d.file_value!r}, gtreview {d.recomputed!r}{note}")
        print(
            f"run {report.run_id}: {report.answers} answers, {report.failures} failures, {report.judgements} judgements, "
            f"{report.pairs} pairs imported; {len(report.disagreements)} disagreements"
        )
    return EXIT_FINDINGS if report.disagreements else EXIT_OK
