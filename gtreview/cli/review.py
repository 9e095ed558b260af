"""``gtreview review approve|request-changes|retire|reopen|sign-off``: the expert's decisions.

The same intents as the GUI's Review menu (``app.workflow``), under the same rules
(``core.review_flow``): each question's decision is read, checked and recorded in one
write transaction. Several question ids are decided one by one; a refused one is a
one-line error and the command exits non-zero, the others are still decided.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING

from gtreview.cli.common import EXIT_OK, ID, actor, add_json, add_project, open_cli_project, print_failure, print_json
from gtreview.core.errors import UserError

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from gtreview.app.workflow import ReviewChange

# command: (help, what --comment is for)
DECISIONS = {
    "approve": ("approve the current version of questions (no validation errors, calibrated if asked)", "a note"),
    "request-changes": ("send questions back with what should change (needs --comment)", "what should change"),
    "retire": ("retire questions for good (needs --comment); retired questions stay retired", "why"),
    "reopen": ("put questions back to draft", "a note"),
}


def _common(parser: argparse.ArgumentParser, comment: str) -> None:
    parser.add_argument("--set", dest="set_id", type=ID, default=None, help="set id (default: the only set)")
    parser.add_argument(
        "--comment", type=str, default="", metavar="TEXT", help=f"the comment kept with the decision: {comment}"
    )
    parser.add_argument(
        "--reviewer", type=str, default=None, metavar="NAME", help="who decides (default: the login name)"
    )
    add_project(parser)
    add_json(parser)


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    group = commands.add_parser("review", help="review decisions on a set's questions, and sign-off").add_subparsers(
        dest="action", metavar="ACTION", required=True
    )
    for name, (help, comment) in DECISIONS.items():
        decision = group.add_parser(name, help=help)
        decision.add_argument("qids", type=str, nargs="+", metavar="QID", help="the questions (their ids)")
        _common(decision, comment)
        if name == "approve":
            decision.add_argument(
                "--unresolved-reason",
                type=str,
                default="",
                metavar="TEXT",
                help="why evidence whose locators do not resolve in the corpus is acceptable (kept with the approval)",
            )
        decision.set_defaults(handler=decide, decision=name)
    sign = group.add_parser("sign-off", help="freeze the set: every active question approved, retired ones left out")
    _common(sign, "a sign-off note")
    sign.set_defaults(handler=sign_off)


def _intent(args: argparse.Namespace, engine: Engine, set_id: int) -> Callable[[str], ReviewChange]:
    """The app intent of ``args.decision``, for one question id."""
    from gtreview.app import workflow
    from gtreview.app.review import corpus_index

    reviewer, comment = args.reviewer or actor(), args.comment
    if args.decision == "approve":
        index = corpus_index(engine) if len(args.qids) > 1 else None  # read once for several questions
        return lambda qid: workflow.approve(
            engine,
            set_id,
            qid,
            reviewer=reviewer,
            comment=comment,
            index=index,
            unresolved_reason=args.unresolved_reason,
        )
    intents: dict[str, Callable[..., ReviewChange]] = {
        "request-changes": workflow.request_changes,
        "retire": workflow.retire,
        "reopen": workflow.reopen,
    }
    chosen = intents[args.decision]
    return lambda qid: chosen(engine, set_id, qid, reviewer=reviewer, comment=comment)


def decide(args: argparse.Namespace) -> int:
    from gtreview.app.rubrics import chosen_set

    changed: list[ReviewChange] = []
    refused: list[tuple[str, UserError]] = []
    project = open_cli_project(args)
    try:
        set_id = chosen_set(project.engine, args.set_id)
        intent = _intent(args, project.engine, set_id)
        for qid in dict.fromkeys(args.qids):
            try:
                changed.append(intent(qid))
            except UserError as exc:  # this question's refusal; the others are still decided
                refused.append((qid, exc))
    finally:
        project.close()
    for _qid, error in refused:
        print_failure(str(error), None)  # the one line on stderr; --json says it below
    if args.json:
        print_json(
            {
                "ok": not refused,
                "set_id": set_id,
                "changed": [c.model_dump(mode="json") for c in changed],
                "refused": [{"qid": qid, "error": str(error)} for qid, error in refused],
            }
        )
    else:
        for change in changed:
            print(
                f"{change.qid}: {_words(change.before)} -> {_words(change.after)} (version {change.version}, "
                f"set {change.set_id})"
            )
    return refused[0][1].exit_status if refused else EXIT_OK


def _words(status: str) -> str:
    return status.replace("_", " ")


def sign_off(args: argparse.Namespace) -> int:
    from gtreview.app import workflow
    from gtreview.app.rubrics import chosen_set

    project = open_cli_project(args)
    try:
        set_id = chosen_set(project.engine, args.set_id)
        signed = workflow.sign_off(project.engine, set_id, reviewer=args.reviewer or actor(), comment=args.comment)
    finally:
        project.close()
    if args.json:
        print_json({"ok": True, "set_id": set_id, **signed.model_dump(mode="json")})
    else:
        print(
            f"set {set_id} signed off as #{signed.number} by {signed.reviewer}: {signed.question_count} questions, "
            f"hash {signed.content_hash[:12]}"
        )
    return EXIT_OK
