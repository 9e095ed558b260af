"""The gtreview command line: the same services as the GUI, for analysts and scripts.

Every command exits non-zero on failure and reports bad input in one line, never
with a traceback (set GTREVIEW_DEBUG=1 to see one).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from gtreview import __version__
from gtreview.logging_setup import configure_logging, log_path
from gtreview.paths import default_project_dir

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


class CliError(Exception):
    """A failure to report in one line with the given exit status."""

    def __init__(self, message: str, status: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.status = status


def _add_project(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--project", type=Path, default=None, help="project folder (default: one in the per-user data folder)"
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gtreview", description="Source-grounded LLM benchmark workstation.")
    parser.add_argument("--version", action="version", version=f"gtreview {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    gui = commands.add_parser("gui", help="open the app (the default command)")
    _add_project(gui)
    gui.add_argument("--sample", action="store_true", help="open the sample project")

    rubric = commands.add_parser("rubric", help="validate, import and export Groundtruth rubrics").add_subparsers(
        dest="action", metavar="ACTION", required=True
    )
    validate = rubric.add_parser("validate", help="check every rule of a rubric file")
    validate.add_argument("file", type=Path)
    validate.add_argument("--json", action="store_true", help="print findings as JSON")
    imp = rubric.add_parser("import", help="import a rubric into the project as a benchmark set")
    imp.add_argument("file", type=Path)
    imp.add_argument("--json", action="store_true")
    _add_project(imp)
    exp = rubric.add_parser("export", help="export a benchmark set")
    exp.add_argument("--set", dest="set_id", type=int, default=None, help="set id (default: the only set)")
    exp.add_argument("--format", choices=("json", "md"), default="json")
    exp.add_argument("-o", "--output", type=Path, required=True)
    _add_project(exp)
    loc = rubric.add_parser("locators", help="resolve a rubric's evidence locators against the project corpus")
    loc.add_argument("file", type=Path)
    loc.add_argument("--json", action="store_true")
    _add_project(loc)

    corpus = commands.add_parser("corpus", help="import, list and explore corpus documents").add_subparsers(
        dest="action", metavar="ACTION", required=True
    )
    cimp = corpus.add_parser("import", help="import .txt, .md, .csv and text .pdf files (folders are searched)")
    cimp.add_argument("paths", type=Path, nargs="+")
    cimp.add_argument("--json", action="store_true")
    _add_project(cimp)
    clist = corpus.add_parser("list", help="list the documents of the project")
    clist.add_argument("--json", action="store_true")
    _add_project(clist)
    from gtreview.commands_corpus import add_inventory_command

    add_inventory_command(corpus)
    from gtreview.commands_judging import add_judging_commands

    add_judging_commands(commands)
    from gtreview.commands_runs import add_report_command, add_run_command

    add_run_command(commands)
    add_report_command(commands)
    from gtreview.commands_release import add_release_commands

    add_release_commands(commands)
    from gtreview.commands_authoring import add_authoring_commands

    add_authoring_commands(commands)
    from gtreview.commands_probes import add_probe_commands

    add_probe_commands(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    if not args_list or args_list[0].startswith("--project") or args_list[0] == "--sample":
        args_list = ["gui", *args_list]
    args = parser.parse_args(args_list)
    configure_logging()
    handler = _handler(args)
    try:
        return handler(args)
    except CliError as exc:
        _fail(str(exc), args)
        return exc.status
    except Exception as exc:  # the contract is one line, never a traceback; the log keeps it
        if os.environ.get("GTREVIEW_DEBUG"):
            raise
        logging.getLogger("gtreview.cli").exception("unexpected failure in %s", args_list[:2])
        _fail(f"{type(exc).__name__}: {exc} (details in {log_path()})", args)
        return EXIT_FINDINGS


def _fail(message: str, args: argparse.Namespace) -> None:
    first_line = message.splitlines()[0] if message else "failed"
    if getattr(args, "json", False):
        print(json.dumps({"ok": False, "error": first_line}))
    print(f"gtreview: error: {first_line}", file=sys.stderr)


def _handler(args: argparse.Namespace) -> Callable[[argparse.Namespace], int]:
    from gtreview import (
        commands,
        commands_authoring,
        commands_corpus,
        commands_judging,
        commands_probes,
        commands_release,
        commands_runs,
    )

    table: dict[tuple[str, str | None], Callable[[argparse.Namespace], int]] = {
        ("gui", None): commands.run_gui,
        ("rubric", "validate"): commands.rubric_validate,
        ("rubric", "import"): commands.rubric_import,
        ("rubric", "export"): commands.rubric_export,
        ("rubric", "locators"): commands.rubric_locators,
        ("corpus", "import"): commands.corpus_import,
        ("corpus", "list"): commands.corpus_list,
        ("corpus", "inventory"): commands_corpus.corpus_inventory,
        ("grades", "check"): commands_judging.grades_check,
        ("score", None): commands_judging.score,
        ("compare", None): commands_judging.compare,
        ("calibrate", None): commands_judging.calibrate,
        ("harness", "import"): commands_judging.harness_import,
        ("run", None): commands_runs.run,
        ("report", None): commands_runs.report,
    }
    extra = [
        *commands_release.HANDLERS.items(),
        *commands_authoring.HANDLERS.items(),
        *commands_probes.HANDLERS.items(),
    ]
    for key, handler in extra:
        table[key] = handler
    return table[(args.command, getattr(args, "action", None))]


def print_json(value: Any) -> None:
    print(json.dumps(value, indent=2, ensure_ascii=False))


def project_dir(args: argparse.Namespace) -> Path:
    return args.project if args.project is not None else default_project_dir()


if __name__ == "__main__":
    # Run through the imported module so that gtreview.commands and this entry
    # point share one CliError class (``python -m`` would load this file twice).
    from gtreview.cli import main as _main

    sys.exit(_main())
