"""``gtreview adjudicate``: the expert's queue and decisions, for scripts and outside checks.

``list`` prints the queue with each item's key; ``override``, ``confirm`` and ``revert``
record one append-only decision on an item by key, exactly as the queue's buttons do.
"""

from __future__ import annotations

import argparse

from gtreview.cli.common import (
    EXIT_OK,
    ID,
    CliError,
    actor,
    add_json,
    add_project,
    int_at_least,
    open_cli_project,
    print_json,
)
from gtreview.core.wording import plural

PAIR_LABELS = ("A>>B", "A>B", "A=B", "B>A", "B>>A")


def _award(text: str) -> tuple[str, int]:
    component, sep, value = text.partition("=")
    if not sep or not component.strip():
        raise argparse.ArgumentTypeError(f"{text!r}: expected COMPONENT=POINTS, e.g. C2=3")
    try:
        return component.strip(), int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: the points must be a whole number") from None


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--run", dest="run_id", type=ID, required=True)
    add_project(parser)
    add_json(parser)


def _decision_options(parser: argparse.ArgumentParser) -> None:
    _common(parser)
    parser.add_argument("--item", type=str, required=True, metavar="KEY", help="the item's key (see `list`)")
    parser.add_argument("--actor", type=str, default=None, help="who decides (default: the login name)")


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    group = commands.add_parser("adjudicate", help="the adjudication queue and expert decisions").add_subparsers(
        dest="action", metavar="ACTION", required=True
    )
    listing = group.add_parser("list", help="the queue: flagged, unscored, unknown and inconsistent items, with keys")
    _common(listing)
    listing.set_defaults(handler=list_queue)
    override = group.add_parser("override", help="settle an answer's gate and awards, or a pair's verdict")
    _decision_options(override)
    override.add_argument("--gate", choices=("pass", "fail"), default=None, help="an answer's gate")
    override.add_argument(
        "--award", type=_award, action="append", default=[], metavar="C=N", help="a component's points (repeatable)"
    )
    override.add_argument("--label", choices=PAIR_LABELS, default=None, help="a pair's verdict (fine-tune is A)")
    override.add_argument("--reason", type=str, required=True)
    override.set_defaults(handler=override_item)
    confirm = group.add_parser("confirm", help="the judge was right: the item leaves the queue")
    _decision_options(confirm)
    confirm.add_argument("--reason", type=str, default="")
    confirm.set_defaults(handler=confirm_item)
    revert = group.add_parser("revert", help="undo the decision in force on an item (or the one named)")
    _decision_options(revert)
    revert.add_argument("--decision", type=int_at_least(1), default=None, metavar="ID")
    revert.add_argument("--reason", type=str, required=True)
    revert.set_defaults(handler=revert_item)


def list_queue(args: argparse.Namespace) -> int:
    from gtreview.app.adjudicate import item_label, queue_of_run

    project = open_cli_project(args)
    try:
        items = queue_of_run(project.engine, args.run_id)
    finally:
        project.close()
    if args.json:
        print_json({"ok": True, "run_id": args.run_id, "items": [i.model_dump(mode="json") for i in items]})
        return EXIT_OK
    for item in items:
        where = item_label(item)  # as the app's queue names it: samples from 1
        state = "settled" if item.settled else "open"
        print(f"{item.key}  {item.reason.value:<20} {where:<32} {state}")
    print(f"{plural(len(items), 'item')}, {sum(not i.settled for i in items)} open")
    return EXIT_OK


def _report(args: argparse.Namespace, decision: object) -> int:
    from gtreview.app.adjudicate import Decision

    assert isinstance(decision, Decision)
    if args.json:
        print_json({"ok": True, **decision.model_dump(mode="json")})
    else:
        print(
            f"decision {decision.decision_id}: {decision.action} on {decision.qid} ({decision.model}), {decision.key}"
        )
    return EXIT_OK


def override_item(args: argparse.Namespace) -> int:
    from gtreview.app.adjudicate import override_item as override

    awards = dict(args.award)
    if len(awards) != len(args.award):
        raise CliError("--award names a component twice")
    if args.label is not None and (args.gate is not None or awards):
        raise CliError("give a pair's --label, or an answer's --gate and --award, not both")
    project = open_cli_project(args)
    try:
        decision = override(
            project.engine,
            args.run_id,
            args.item,
            actor=args.actor or actor(),
            reason=args.reason,
            gate_passed=None if args.gate is None else args.gate == "pass",
            awards=awards,
            label=args.label,
        )
    finally:
        project.close()
    return _report(args, decision)


def confirm_item(args: argparse.Namespace) -> int:
    from gtreview.app.adjudicate import confirm_item as confirm

    project = open_cli_project(args)
    try:
        decision = confirm(project.engine, args.run_id, args.item, actor=args.actor or actor(), reason=args.reason)
    finally:
        project.close()
    return _report(args, decision)


def revert_item(args: argparse.Namespace) -> int:
    from gtreview.app.adjudicate import revert_item as revert

    project = open_cli_project(args)
    try:
        decision = revert(
            project.engine,
            args.run_id,
            args.item,
            actor=args.actor or actor(),
            reason=args.reason,
            decision_id=args.decision,
        )
    finally:
        project.close()
    return _report(args, decision)
