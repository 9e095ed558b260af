"""``gtreview export leaderboard|csv``: a run's results for a leaderboard or a spreadsheet."""

from __future__ import annotations

import argparse
from pathlib import Path

from gtreview.cli.common import (
    EXIT_OK,
    ID,
    add_json,
    add_output_file,
    add_project,
    load_rubric,
    open_cli_project,
    print_json,
)


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
        "--rubric-key",
        type=str,
        default=None,
        help="rubric_key for meta.json (default: the import's, the rubric's benchmark block, or --rubrics-config's)",
    )
    board.add_argument(
        "--rubrics-config", type=Path, default=None, help="the harness's configs/rubrics.json, to find the rubric key"
    )
    board.add_argument("--model-id", type=str, default=None, help="candidate_model_id for meta.json (default: LABEL)")
    board.add_argument("--model-name", type=str, default=None, help="model_name for meta.json")
    board.add_argument("--harness-name", type=str, default=None, help="harness_name for meta.json")
    board.add_argument("--harness-repo", type=str, default=None, help="harness_repo for meta.json")
    board.add_argument("--submitter", type=str, default=None, help="submitter for meta.json")
    board.add_argument("--date", type=_iso_date, default=None, help="date for meta.json (YYYY-MM-DD)")
    board.add_argument(
        "--rubric", type=Path, default=None, help="rubric for question texts (runs imported before they were kept)"
    )
    add_project(board)
    add_json(board)
    board.set_defaults(handler=export_leaderboard)
    table = export.add_parser("csv", help="per-question results of every model, as CSV")
    table.add_argument("--run", dest="run_id", type=ID, required=True)
    add_output_file(table, "-o", "--output", required=True, help="the CSV file to write")
    table.add_argument(
        "--rubric", type=Path, default=None, help="rubric for question texts (runs imported before they were kept)"
    )
    add_project(table)
    add_json(table)
    table.set_defaults(handler=export_csv)


def _iso_date(text: str) -> str:
    import datetime

    try:
        return datetime.date.fromisoformat(text).isoformat()
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a date as YYYY-MM-DD, got {text!r}") from None


def export_leaderboard(args: argparse.Namespace) -> int:
    from gtreview.app.exports import SubmissionMeta
    from gtreview.app.exports import export_leaderboard as export

    rubric = load_rubric(args.rubric) if args.rubric is not None else None
    meta = SubmissionMeta(
        model_name=args.model_name,
        harness_name=args.harness_name,
        harness_repo=args.harness_repo,
        submitter=args.submitter,
        date=args.date,
    )
    project = open_cli_project(args)
    try:
        result = export(
            project.engine,
            args.run_id,
            args.model,
            args.output,
            rubric=rubric,
            rubric_key=args.rubric_key,
            candidate_model_id=args.model_id,
            contact=args.contact,
            meta=meta,
            rubric_file=args.rubric.name if args.rubric is not None else None,
            rubrics_registry=args.rubrics_config,
        )
    finally:
        project.close()
    if args.json:
        print_json(
            {
                "ok": True,
                "files": [str(p) for p in result.files],
                "questions": result.rows,
                "unscored": result.left_out,
                "meta": result.meta,
                "warnings": result.warnings,
            }
        )
    else:
        for warning in result.warnings:
            print(f"note: {warning}")
        print(f"wrote {result.files[0]} ({result.rows} questions) and {result.files[1]}")
        if result.left_out:
            print(f"left out, never scored: {', '.join(result.left_out)}")
    return EXIT_OK


def export_csv(args: argparse.Namespace) -> int:
    from gtreview.app.exports import export_csv as export

    rubric = load_rubric(args.rubric) if args.rubric is not None else None
    project = open_cli_project(args)
    try:
        result = export(project.engine, args.run_id, args.output, rubric=rubric)
    finally:
        project.close()
    if args.json:
        print_json({"ok": True, "file": str(result.files[0]), "rows": result.rows, "warnings": result.warnings})
    else:
        print(f"wrote {result.files[0]} ({result.rows} rows)")
    return EXIT_OK
