"""``gtreview question paraphrase|update-from-original|draft-paraphrases``: paraphrases of a question.

A paraphrase lands as a draft, reviewed and approved like any question; one whose
original's rubric was edited since is brought up to date, keeping its wording.
"""

from __future__ import annotations

import argparse

from gtreview.cli.common import EXIT_OK, ID, actor, add_json, add_project, open_cli_project, print_json
from gtreview.cli.draft import register_paraphrase_drafting


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    group = commands.add_parser("question", help="paraphrases of a set's questions").add_subparsers(
        dest="action", metavar="ACTION", required=True
    )
    paraphrase = group.add_parser(
        "paraphrase", help="add a paraphrase of a question (a draft with the question's rubric, another wording)"
    )
    paraphrase.add_argument("qid", type=str, metavar="QID", help="the question to reword")
    paraphrase.add_argument("--text", type=str, required=True, help="the paraphrase's wording of the question")
    _common(paraphrase)
    paraphrase.set_defaults(handler=question_paraphrase)
    update = group.add_parser(
        "update-from-original", help="give a paraphrase its original's current rubric, keeping its wording"
    )
    update.add_argument("qid", type=str, metavar="QID", help="the paraphrase to bring up to date")
    _common(update)
    update.set_defaults(handler=question_update)
    register_paraphrase_drafting(group)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--set", dest="set_id", type=ID, default=None, help="set id (default: the only set)")
    add_project(parser)
    add_json(parser)


def question_paraphrase(args: argparse.Namespace) -> int:
    from gtreview.app.paraphrases import add_paraphrase
    from gtreview.app.rubrics import chosen_set

    project = open_cli_project(args)
    try:
        set_id = chosen_set(project.engine, args.set_id)
        added = add_paraphrase(project.engine, set_id, args.qid, args.text, author=actor())
    finally:
        project.close()
    errors = sum(1 for f in added.findings if f.is_error)
    if args.json:
        print_json(
            {
                "ok": True,
                "set_id": set_id,
                "qid": added.qid,
                "paraphrase_of": added.original,
                "findings": [f.model_dump(mode="json") for f in added.findings],
            }
        )
    else:
        print(f"added {added.qid}, a paraphrase of {added.original}, as a draft in set {set_id} ({errors} errors)")
    return EXIT_OK


def question_update(args: argparse.Namespace) -> int:
    from gtreview.app.paraphrases import update_from_original
    from gtreview.app.rubrics import chosen_set

    project = open_cli_project(args)
    try:
        set_id = chosen_set(project.engine, args.set_id)
        saved = update_from_original(project.engine, set_id, args.qid, author=actor())
    finally:
        project.close()
    if args.json:
        print_json(
            {
                "ok": True,
                "set_id": set_id,
                "qid": saved.qid,
                "paraphrase_of": saved.original,
                "version": saved.version,
                "changed": saved.changed,
            }
        )
    elif saved.changed:
        withdrawn = f"; its {saved.withdrawn.value.replace('_', ' ')} status was withdrawn" if saved.withdrawn else ""
        print(f"{saved.qid}: rubric brought up to date from {saved.original} as version {saved.version}{withdrawn}")
    else:
        print(f"{saved.qid}: already has {saved.original}'s rubric; nothing saved")
    return EXIT_OK
