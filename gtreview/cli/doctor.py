"""``gtreview doctor``: does local inference work on this machine, and if not, why?

Reads the llama.cpp build, probes the CPU (AMX), and loads each local model in a worker
process as a pass would, asking it for a few tokens: a tiny model made for the check,
the project's judge and last pass's models (with ``--project``, or the default project
when it exists), and every ``--model``. Exits 0 when everything runs, 1 otherwise.
"""

from __future__ import annotations

import argparse
import sys

from gtreview.cli.common import (
    EXIT_FINDINGS,
    EXIT_OK,
    add_json,
    add_project,
    int_at_least,
    optional_cli_project,
    print_json,
)


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "doctor", help="check that local models run here: llama.cpp build, CPU, each model in a worker"
    )
    parser.add_argument(
        "--model",
        type=str,
        action="append",
        default=[],
        metavar="SPEC",
        help="a model to check too (llama:PATH.gguf, hf:...); repeat for more",
    )
    parser.add_argument(
        "--tokens",
        type=int_at_least(1, maximum=256),
        default=8,
        metavar="N",
        help="tokens each model decodes (default 8)",
    )
    add_project(parser)
    add_json(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from gtreview.app.doctor import check_local_inference

    project = optional_cli_project(args)
    progress = None if args.json else (lambda text: print(f"... {text}", file=sys.stderr, flush=True))
    try:
        report = check_local_inference(
            project.engine if project is not None else None, args.model, tokens=args.tokens, on_progress=progress
        )
    finally:
        if project is not None:
            project.close()
    if args.json:
        print_json(report.to_json())
    else:
        print("\n".join(report.lines()))
    return EXIT_OK if report.ok else EXIT_FINDINGS
