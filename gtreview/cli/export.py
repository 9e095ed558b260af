"""``gtreview export leaderboard|csv``: a run's results for a leaderboard or a spreadsheet."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from gtreview.cli.common import EXIT_OK, ID, add_json, add_project, load_rubric, open_cli_project, print_json

if TYPE_CHECKING:
    from gtreview.report.exports import RunData


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    export = commands.add_parser("export", help="export a run's results").add_subparsers(
        dest="action", metavar="ACTION", required=True
    )
    board = export.add_parser("leaderboard", help="scores.json and meta.json of one model, for a leaderboard")
    board.add_argument("--run", dest="run_id", type=ID, required=True)
    board.add_argument("--model", type=str, required=True, metavar="LABEL")
    board.add_argument("-o", "--output", type=Path, required=True, help="output folder")
    board.add_argument("--contact", type=str, default="", help="contact_or_repo for meta.json")
    board.add_argument(
        "--rubric-key", type=str, default=None, help="rubric_key for meta.json (default: the set's file name)"
    )
    board.add_argument("--model-id", type=str, default=None, help="candidate_model_id for meta.json (default: LABEL)")
    board.add_argument("--rubric", type=Path, default=None, help="rubric for question texts (runs without a set)")
    add_project(board)
    add_json(board)
    board.set_defaults(handler=export_leaderboard)
    table = export.add_parser("csv", help="per-question results of every model, as CSV")
    table.add_argument("--run", dest="run_id", type=ID, required=True)
    table.add_argument("-o", "--output", type=Path, required=True, help="CSV file")
    table.add_argument(
        "--base", type=str, default=None, metavar="LABEL", help="model to compare with (default: the run's base)"
    )
    table.add_argument("--rubric", type=Path, default=None, help="rubric for question order (runs without a set)")
    add_project(table)
    add_json(table)
    table.set_defaults(handler=export_csv)


def _load(args: argparse.Namespace) -> RunData:
    from gtreview.report.exports import load_run

    rubric = load_rubric(args.rubric) if args.rubric is not None else None
    project = open_cli_project(args)
    try:
        return load_run(project.engine, args.run_id, rubric=rubric)
    finally:
        project.close()


def export_leaderboard(args: argparse.Namespace) -> int:
    from gtreview.report.exports import leaderboard_submission, write_leaderboard

    data = _load(args)
    export = leaderboard_submission(
        data, args.model, rubric_key=args.rubric_key, candidate_model_id=args.model_id, contact=args.contact
    )
    paths = write_leaderboard(export, args.output)
    if args.json:
        print_json(
            {
                "ok": True,
                "files": [str(p) for p in paths],
                "questions": len(export.scores),
                "unscored": export.unscored,
                "meta": export.meta,
                "warnings": export.warnings,
            }
        )
    else:
        for warning in export.warnings:
            print(f"note: {warning}")
        print(f"wrote {paths[0]} ({len(export.scores)} questions) and {paths[1]}")
        if export.unscored:
            print(f"left out, never scored: {', '.join(export.unscored)}")
    return EXIT_OK


def export_csv(args: argparse.Namespace) -> int:
    from gtreview.report.exports import question_results, write_results_csv

    data = _load(args)
    rows = question_results(data, base=args.base)
    path = write_results_csv(rows, args.output)
    if args.json:
        print_json({"ok": True, "file": str(path), "rows": len(rows), "warnings": data.warnings})
    else:
        print(f"wrote {path} ({len(rows)} rows)")
    return EXIT_OK
