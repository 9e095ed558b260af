"""``gtreview corpus import|list|inventory``: the project's corpus documents.

``corpus inventory`` exits 0 with the report printed; 2 (one line) when the project
cannot be opened or holds no corpus documents, since there is nothing to explore.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from gtreview.cli.common import EXIT_OK, add_json, add_project, open_cli_project, print_json


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    corpus = commands.add_parser("corpus", help="import, list and explore corpus documents").add_subparsers(
        dest="action", metavar="ACTION", required=True
    )
    cimp = corpus.add_parser("import", help="import .txt, .md, .csv and text .pdf files (folders are searched)")
    cimp.add_argument("paths", type=Path, nargs="+")
    add_json(cimp)
    add_project(cimp)
    cimp.set_defaults(handler=corpus_import)
    clist = corpus.add_parser("list", help="list the documents of the project")
    add_json(clist)
    add_project(clist)
    clist.set_defaults(handler=corpus_list)
    inventory = corpus.add_parser(
        "inventory",
        help="report source families, terminology, duplicates, variant names, numeric conflicts and thin areas",
    )
    add_json(inventory, "print the inventory as JSON")
    add_project(inventory)
    inventory.set_defaults(handler=corpus_inventory)


def corpus_import(args: argparse.Namespace) -> int:
    from gtreview.app.corpus_import import import_corpus

    project = open_cli_project(args)
    try:
        report = import_corpus(project.engine, args.paths)
    finally:
        project.close()
    if args.json:
        print_json({"ok": True, **report.model_dump()})
    else:
        for name in report.added:
            print(f"added      {name}")
        for name in report.unchanged:
            print(f"unchanged  {name}")
        print(f"{len(report.added)} added, {len(report.unchanged)} already in the project")
    return EXIT_OK


def corpus_list(args: argparse.Namespace) -> int:
    from gtreview.app.corpus_review import corpus_documents

    project = open_cli_project(args)
    try:
        documents = corpus_documents(project.engine)
    finally:
        project.close()
    if args.json:
        print_json([d.model_dump() for d in documents])
    else:
        for d in documents:
            extent = f"{d.rows} rows" if d.kind == "csv" else f"{d.pages} pages"
            print(f"{d.name}  ({d.kind}, {extent})  {d.title}")
    return EXIT_OK


def corpus_inventory(args: argparse.Namespace) -> int:
    """Print the inventory of the project's documents as Markdown or JSON.

    The project is opened without creating it: exploring a folder that is not a
    project should say so, not leave an empty project behind.
    """
    from gtreview.app.corpus_review import corpus_inventory as inventory_of
    from gtreview.app.corpus_review import inventory_to_markdown

    project = open_cli_project(args)
    try:
        inventory = inventory_of(project)
    finally:
        project.close()
    if args.json:
        print_json({"ok": True, **inventory.model_dump(mode="json")})
    else:
        print(inventory_to_markdown(inventory), end="")
    return EXIT_OK
