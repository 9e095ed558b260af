"""``gtreview report``: the PDF report of a pass."""

from __future__ import annotations

import argparse
from pathlib import Path

from gtreview.cli.common import EXIT_OK, ID, CliError, add_project, open_cli_project


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser("report", help="the PDF report of a pass")
    parser.add_argument("--run", dest="run_id", type=ID, required=True)
    parser.add_argument("--pdf", type=Path, required=True)
    add_project(parser)
    parser.add_argument("--seed", type=int, default=0, help="seed of the bootstrap and permutation resampling")
    parser.set_defaults(handler=report)


def report(args: argparse.Namespace) -> int:
    from gtreview.app.adjudication import agreement_report
    from gtreview.app.workflow import signoffs
    from gtreview.report.run_report import write_run_report
    from gtreview.results.analysis import analyse
    from gtreview.results.loader import load_run_results
    from gtreview.store import runs_repo, sets_repo

    project = open_cli_project(args)
    try:
        try:
            results = load_run_results(project.engine, args.run_id)
        except (KeyError, ValueError) as exc:
            raise CliError(str(exc).strip("'\"")) from None
        set_id = next((r.set_id for r in runs_repo.list_runs(project.engine) if r.id == args.run_id), None)
        set_name, signoff = "", ""
        if set_id is not None:
            set_name = next((s.name for s in sets_repo.list_sets(project.engine) if s.id == set_id), "")
            matching = [s for s in signoffs(project.engine, set_id) if s.content_hash == results.rubric_hash]
            signoff = (
                f"sign-off #{matching[-1].number} by {matching[-1].reviewer}, {matching[-1].signed_at:%Y-%m-%d}"
                if matching
                else "draft: no sign-off matches this version of the set"
            )
        analysis = analyse(results, seed=args.seed)
        agreement = agreement_report(project.engine, args.run_id, seed=args.seed, results=results)
        write_run_report(results, analysis, args.pdf, set_name=set_name, signoff=signoff, agreement=agreement)
    finally:
        project.close()
    print(f"wrote {args.pdf}")
    return EXIT_OK
