"""CLI command ``corpus inventory``: the corpus exploration report of a project.

Exit status: 0 with the report printed; 2 (one line) when the project cannot be
opened or holds no corpus documents, since there is nothing to explore.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from gtreview.cli import EXIT_OK, EXIT_USAGE, CliError, print_json, project_dir


def add_inventory_command(corpus: Any) -> None:
    """Add ``inventory`` to the ``corpus`` subparsers made in ``cli.build_parser``."""
    inventory = corpus.add_parser(
        "inventory",
        help="report source families, terminology, duplicates, variant names, numeric conflicts and thin areas",
    )
    inventory.add_argument("--json", action="store_true", help="print the inventory as JSON")
    inventory.add_argument(
        "--project", type=Path, default=None, help="project folder (default: one in the per-user data folder)"
    )


def corpus_inventory(args: argparse.Namespace) -> int:
    """Load the project's documents, build the inventory, print Markdown or JSON.

    The project is opened without creating it: exploring a folder that is not a
    project should say so, not leave an empty project behind.
    """
    from gtreview.corpus.inventory import build_inventory, inventory_to_markdown
    from gtreview.store.corpus_repo import load_documents
    from gtreview.store.project import ProjectError, open_project

    folder = project_dir(args)
    try:
        project = open_project(folder, create=False)
    except ProjectError as exc:
        raise CliError(str(exc), EXIT_USAGE) from None
    try:
        documents = load_documents(project.engine)
    finally:
        project.close()
    if not documents:
        raise CliError(
            f"the project in {folder} has no corpus documents; add some with 'gtreview corpus import PATH'",
            EXIT_USAGE,
        )
    inventory = build_inventory(documents)
    if args.json:
        print_json({"ok": True, **inventory.model_dump(mode="json")})
    else:
        print(inventory_to_markdown(inventory), end="")
    return EXIT_OK
