"""``gtreview project new [DIR]``: the one command that creates a project.

Every other command opens an existing project and refuses a folder that is not one,
so that a mistyped ``--project`` is an error instead of a new, empty project.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from gtreview.cli.common import EXIT_OK, add_json, add_project, create_cli_project, print_json, project_dir


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    group = commands.add_parser("project", help="create a project")
    actions = group.add_subparsers(dest="project_command", metavar="ACTION", required=True)
    new = actions.add_parser("new", help="create an empty project in DIR (made if absent)")
    new.add_argument(
        "folder", nargs="?", type=Path, default=None, metavar="DIR", help="default: --project or the default folder"
    )
    add_project(new)
    add_json(new)
    new.set_defaults(handler=new_project)


def new_project(args: argparse.Namespace) -> int:
    folder: Path = args.folder if args.folder is not None else project_dir(args)
    project = create_cli_project(folder)
    project.close()
    if args.json:
        print_json({"ok": True, "project": str(project.folder)})
    else:
        print(f"created an empty project in {project.folder}")
    return EXIT_OK
