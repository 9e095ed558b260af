"""``gtreview project new [DIR]``: the one command that creates a project; ``gtreview
project check``: what is wrong with one, a line each (exit 1 when anything is).

Every other command opens an existing project and refuses a folder that is not one,
so that a mistyped ``--project`` is an error instead of a new, empty project.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from gtreview.cli.common import (
    EXIT_FINDINGS,
    EXIT_OK,
    add_json,
    add_project,
    create_cli_project,
    print_json,
    project_dir,
)


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    group = commands.add_parser("project", help="create a project, or check one")
    actions = group.add_subparsers(dest="project_command", metavar="ACTION", required=True)
    new = actions.add_parser("new", help="create an empty project in DIR (made if absent)")
    new.add_argument(
        "folder", nargs="?", type=Path, default=None, metavar="DIR", help="default: --project or the default folder"
    )
    add_project(new)
    add_json(new)
    new.set_defaults(handler=new_project)
    check = actions.add_parser(
        "check",
        help="name what is wrong with the project (schema, indexes, triggers, damaged content), a line each; "
        "exit 1 when anything is",
    )
    add_project(check)
    add_json(check)
    check.set_defaults(handler=check_project_command)


def new_project(args: argparse.Namespace) -> int:
    folder: Path = args.folder if args.folder is not None else project_dir(args)
    project = create_cli_project(folder)
    project.close()
    if args.json:
        print_json({"ok": True, "project": str(project.folder)})
    else:
        print(f"created an empty project in {project.folder}")
    return EXIT_OK


def check_project_command(args: argparse.Namespace) -> int:
    from gtreview.app.project_check import check_project  # the store loads only when a command runs

    checked = check_project(project_dir(args))
    if args.json:
        print_json({"ok": checked.ok, "project": checked.project, "problems": checked.problems})
    elif checked.ok:
        print(f"{checked.project}: no problems found")
    else:
        for problem in checked.problems:
            print(f"{checked.project}: {problem}")
    return EXIT_OK if checked.ok else EXIT_FINDINGS
