"""``gtreview report``: the PDF report of a pass."""

from __future__ import annotations

import argparse

from gtreview.cli.common import EXIT_OK, ID, SEED, add_output_file, add_project, open_cli_project


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser("report", help="the PDF report of a run (a pass or an imported harness run)")
    parser.add_argument("--run", dest="run_id", type=ID, required=True)
    add_output_file(parser, "--pdf", required=True, help="the PDF file to write")
    add_project(parser)
    parser.add_argument("--seed", type=SEED, default=0, help="seed of the bootstrap and permutation resampling")
    parser.set_defaults(handler=report)


def report(args: argparse.Namespace) -> int:
    from gtreview.app.reports import write_report

    project = open_cli_project(args)
    try:
        written = write_report(project.engine, args.run_id, args.pdf, seed=args.seed)
    finally:
        project.close()
    print(f"wrote {written.path}")
    print(written.gate.line)  # the cover's judge gate: a report of an ungated judge says so here too
    return EXIT_OK
