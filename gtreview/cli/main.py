"""The gtreview command line: the same use cases as the GUI, for analysts and scripts.

Every command exits non-zero on failure and reports bad input in one line, never
with a traceback (set GTREVIEW_DEBUG=1 to see one). Each command group is a module
with ``register(commands)``, which adds its parsers and sets ``handler`` on every
leaf; :func:`main` calls ``args.handler(args)``.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from gtreview import __version__
from gtreview.cli import (
    adjudicate,
    corpus,
    doctor,
    draft,
    export,
    gui,
    harness,
    judge,
    judging,
    probe,
    project,
    question,
    release,
    report,
    results,
    review,
    rubric,
    run,
)
from gtreview.cli.common import EXIT_FINDINGS, EXIT_USAGE, Handler, print_failure, writes_to_stdout
from gtreview.core.errors import Cancelled, UserError
from gtreview.logging_setup import configure_logging, log_path

# The order of the commands in ``gtreview --help``.
GROUPS = (
    gui,
    project,
    rubric,
    question,
    review,
    corpus,
    judging,
    harness,
    run,
    results,
    judge,
    adjudicate,
    report,
    release,
    export,
    draft,
    probe,
    doctor,
)


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (the contract for every bad input), with
    where to find the usage instead of the usage itself; subparsers inherit the class."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {' '.join(message.split())} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="gtreview", description="Source-grounded LLM benchmark workstation.")
    parser.add_argument("--version", action="version", version=f"gtreview {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for group in GROUPS:
        group.register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    if not args_list or args_list[0].startswith("--project") or args_list[0] == "--sample":
        args_list = ["gui", *args_list]
    args = parser.parse_args(args_list)
    handler = getattr(args, "handler", None)
    if handler is None:  # e.g. `gtreview --`: no command named
        parser.print_usage(sys.stderr)
        return EXIT_USAGE
    configure_logging()
    # With `-o -` standard output carries the file and nothing else: the command's own
    # lines (what it wrote, --json, a failure) go to stderr.
    with contextlib.redirect_stdout(sys.stderr) if writes_to_stdout(args) else contextlib.nullcontext():
        return _run(handler, args, args_list)


def _run(handler: Handler, args: argparse.Namespace, args_list: list[str]) -> int:
    try:
        status: int = handler(args)
        return status
    except UserError as exc:
        print_failure(str(exc), args)
        return exc.exit_status
    except Cancelled as exc:
        print_failure(str(exc) or "cancelled", args)
        return exc.exit_status
    except BrokenPipeError:  # the reader (`| head`) went away: stop quietly, as Unix tools do
        _silence_stdout()
        return EXIT_FINDINGS
    except Exception as exc:  # the contract is one line, never a traceback; the log keeps it
        if os.environ.get("GTREVIEW_DEBUG"):
            raise
        logging.getLogger("gtreview.cli").exception("unexpected failure in %s", args_list[:2])
        plain = plain_reason(exc)
        if plain is not None:  # the machine or the input, not a bug: say so in the user's terms
            print_failure(plain, args)
            return EXIT_USAGE
        print_failure(f"{type(exc).__name__}: {exc} (details in {log_path()})", args)
        return EXIT_FINDINGS


def plain_reason(exc: Exception) -> str | None:
    """One line for failures that reach here but are about the files or the machine.

    Each known source of these is refused where it starts; this is the net for the
    paths nobody has found yet, so a folder given for a file or a full disk still
    reads as a sentence rather than a Python class name.
    """
    if isinstance(exc, OSError):
        names = [str(name) for name in (exc.filename, exc.filename2) if name is not None]
        where = " -> ".join(names)
        reason = exc.strerror or str(exc)
        return f"{where}: {reason}" if where else f"failed: {reason}"
    if isinstance(exc, RecursionError):
        return "the input is nested too deeply to process"
    if isinstance(exc, UnicodeEncodeError):
        return "the input holds text that cannot be written as UTF-8 (an unpaired surrogate escape?)"
    if isinstance(exc, OverflowError):
        return f"a number in the input is too large ({exc})"
    return None


def _silence_stdout() -> None:
    """Point stdout at /dev/null so Python's exit flush raises no second BrokenPipeError."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)  # the descriptor itself: sys.stdout may be redirected to stderr (`-o -`)
    os.close(devnull)
