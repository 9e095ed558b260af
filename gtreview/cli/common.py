"""What every command module shares: options, argument types, output, errors, exit codes.

A leaf: it imports nothing from ``gtreview.cli``, so any command module (and
``gtreview.cli.main``, which registers them) can import it without a cycle. The
project and the application modules are imported inside the functions that need
them, so that building the parser (and ``rubric validate``) does not load SQLAlchemy.
Opening the project is the one thing the CLI takes from the store directly (the
import-linter contract in pyproject.toml allows exactly that line).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gtreview.core.errors import UserError
from gtreview.core.redaction import redact
from gtreview.files import OUTPUT_HELP, STDOUT
from gtreview.paths import default_project_dir

if TYPE_CHECKING:
    from gtreview.core.rubric import Rubric
    from gtreview.store.project import Project

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2

Handler = Callable[[argparse.Namespace], int]


class CliError(UserError):
    """A failure to report in one line with the given exit status (usage errors: 2)."""

    def __init__(self, message: str, status: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.exit_status = status

    @property
    def status(self) -> int:
        return self.exit_status


# --- options ------------------------------------------------------------------------------


def add_project(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--project", type=Path, default=None, help="project folder (default: one in the per-user data folder)"
    )


def add_json(parser: argparse.ArgumentParser, help: str = "print the result as JSON") -> None:
    parser.add_argument("--json", action="store_true", help=help)


def add_output_file(parser: argparse.ArgumentParser, *flags: str, help: str, required: bool = False) -> None:
    """The option naming the file a command writes; ``-`` is standard output, and then
    everything else the command prints goes to stderr (see :func:`writes_to_stdout`)."""
    option = parser.add_argument(
        *flags, type=output_file, required=required, metavar="FILE", help=f"{help}; {OUTPUT_HELP}"
    )
    parser.set_defaults(output_file_option=option.dest)


def output_file(text: str) -> Path:
    """An argparse type: a file to write in a folder that exists, as ``cp`` wants it (a
    typo in the folder is refused, not made), also where a link leads."""
    path = Path(text)
    if path == STDOUT:
        return path
    lands = Path(os.path.realpath(path)) if path.is_symlink() else path
    folder = lands.parent
    if not folder.is_dir():
        why = f"no such folder: {folder}" if not folder.exists() else f"{folder} is not a folder"
        raise argparse.ArgumentTypeError(f"cannot write {path}: {why}")
    return path


def writes_to_stdout(args: argparse.Namespace) -> bool:
    """Whether the command's output file is standard output (``-o -``): its other lines
    must not be mixed into that file."""
    option: str | None = getattr(args, "output_file_option", None)
    return option is not None and getattr(args, option, None) == STDOUT


def int_at_least(minimum: int, why: str = "", maximum: int | None = None) -> Callable[[str], int]:
    """An argparse type: an integer no smaller than ``minimum`` (``why`` explains the bound)
    and, with ``maximum``, no larger (what the store or a sampler can hold)."""

    def convert(text: str) -> int:
        try:
            value = int(text) if len(text) <= 40 else None
        except ValueError:
            value = None
        if value is None:
            shown = text if len(text) <= 40 else text[:37] + "..."
            raise argparse.ArgumentTypeError(f"expected an integer, got {shown!r}")
        if value < minimum:
            reason = f" ({why})" if why else ""
            raise argparse.ArgumentTypeError(f"must be at least {minimum}{reason}, got {value}")
        if maximum is not None and value > maximum:
            raise argparse.ArgumentTypeError(f"must be at most {maximum}, got {value}")
        return value

    convert.__name__ = f"integer >= {minimum}"
    return convert


def float_between(low: float, high: float | None = None) -> Callable[[str], float]:
    """An argparse type: a finite number in ``[low, high]`` (no upper bound when ``high`` is None)."""

    def convert(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        if not math.isfinite(value) or value < low or (high is not None and value > high):
            bound = f"between {low:g} and {high:g}" if high is not None else f"at least {low:g}"
            raise argparse.ArgumentTypeError(f"must be {bound}, got {text}")
        return value

    convert.__name__ = "number"
    return convert


ID = int_at_least(1, maximum=2**63 - 1)  # set, run and sign-off numbers start at 1 (and fit SQLite)
SEED = int_at_least(0, maximum=2**32 - 1)  # samplers and the bootstrap take unsigned 32-bit seeds


# --- output -------------------------------------------------------------------------------


def print_json(value: Any) -> None:
    print(json.dumps(value, indent=2, ensure_ascii=False))


def first_line(message: str) -> str:
    return message.splitlines()[0] if message.strip() else "failed"


def print_failure(message: str, args: argparse.Namespace | None) -> None:
    """The one-line failure on stderr; on stdout too, as JSON, when the command has --json.
    Redacted: the line may quote what a server said, and terminals are logged and shared."""
    line = redact(first_line(message))
    if args is not None and getattr(args, "json", False):
        print(json.dumps({"ok": False, "error": line}))
    print(f"gtreview: error: {line}", file=sys.stderr)


# --- project and inputs -------------------------------------------------------------------


def project_dir(args: argparse.Namespace) -> Path:
    folder: Path | None = args.project
    return folder if folder is not None else default_project_dir()


def open_cli_project(args: argparse.Namespace) -> Project:
    """The existing project named by --project (or the default); never creates one, so a
    mistyped folder is refused in one line instead of becoming an empty project."""
    from gtreview.store.project import NoProjectError, open_project

    folder = project_dir(args)
    try:
        return open_project(folder)
    except NoProjectError as exc:
        raise NoProjectError(f"{exc}; to start one there: gtreview project new {folder}") from None


def optional_cli_project(args: argparse.Namespace) -> Project | None:
    """The project --project names (refused in one line when it is not one), or the
    default project when it exists, or None: for commands that work without a project."""
    from gtreview.store.project import DB_FILE

    if args.project is None and not (default_project_dir() / DB_FILE).exists():
        return None
    return open_cli_project(args)


def create_cli_project(folder: Path) -> Project:
    """A new project in ``folder``: what ``gtreview project new`` asks for, and nothing else."""
    from gtreview.store.project import create_project

    return create_project(folder)


def load_rubric(path: Path) -> Rubric:
    """The rubric in ``path``; a file that cannot be read is one line naming it."""
    from gtreview.app.rubric_files import read_rubric

    return read_rubric(path)


def actor() -> str:
    """Who is recorded as having done it: the login name."""
    import getpass

    try:
        return getpass.getuser()
    except Exception:  # noqa: BLE001 - no user name on some systems
        return "unknown"
