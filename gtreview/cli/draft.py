"""``gtreview draft``: draft a new benchmark set from the project's corpus, and
``gtreview question draft-paraphrases``: draft paraphrases of a set's questions.

The drafted set is saved with every question in status draft, flagged where a check
failed; nothing is approved. The exit status is 0 when every requested question was
drafted, 1 when some stage items failed (the set is still saved if any question
survived, and its id printed) or none survived, and 2 on bad input.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gtreview.cli.common import (
    EXIT_FINDINGS,
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
from gtreview.core.rubric import AccessMode

if TYPE_CHECKING:
    from gtreview.app.drafting import DraftOutcome
    from gtreview.app.paraphrase_drafting import ParaphraseDraftOutcome

DEFAULT_CONTEXT_CHARS = 40_000
MIN_CONTEXT_CHARS = 200


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "draft", help="draft a new benchmark set from the project corpus (every question lands as a draft)"
    )
    parser.add_argument(
        "--model", type=str, required=True, metavar="SPEC", help="the drafting model, e.g. anthropic:MODEL"
    )
    parser.add_argument(
        "--questions", type=int_at_least(1), required=True, metavar="N", help="how many questions to draft"
    )
    parser.add_argument("--name", type=str, default=None, help="name of the new set (default: Draft set DATE)")
    parser.add_argument(
        "--access-mode",
        type=str,
        choices=[m.value for m in AccessMode],
        default=AccessMode.OPEN_CORPUS.value,
        help="the candidates' access to the corpus (default: OPEN_CORPUS)",
    )
    parser.add_argument(
        "--context-chars",
        type=int_at_least(MIN_CONTEXT_CHARS),
        default=DEFAULT_CONTEXT_CHARS,
        metavar="N",
        help=(
            f"characters of corpus passages shown to the model (default: {DEFAULT_CONTEXT_CHARS}); "
            "lower it for a local model with a small context"
        ),
    )
    parser.add_argument("--prices", type=Path, default=None, metavar="FILE", help="a JSON price table (USD per Mtok)")
    add_project(parser)
    add_json(parser)
    parser.set_defaults(handler=draft)


def register_paraphrase_drafting(group: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``gtreview question draft-paraphrases``: the drafting model rewords a set's questions."""
    paraphrases = group.add_parser(
        "draft-paraphrases",
        help="draft paraphrases of a set's questions (each lands as a draft with its original's rubric)",
    )
    paraphrases.add_argument(
        "qids", nargs="*", type=str, metavar="QID", help="the questions to reword (default: every original)"
    )
    paraphrases.add_argument(
        "--model", type=str, required=True, metavar="SPEC", help="the drafting model, e.g. anthropic:MODEL"
    )
    paraphrases.add_argument(
        "--per-question", type=int_at_least(1), default=2, metavar="N", help="paraphrases per question (default: 2)"
    )
    paraphrases.add_argument("--set", dest="set_id", type=ID, default=None, help="set id (default: the only set)")
    paraphrases.add_argument(
        "--prices", type=Path, default=None, metavar="FILE", help="a JSON price table (USD per Mtok)"
    )
    add_project(paraphrases)
    add_json(paraphrases)
    paraphrases.set_defaults(handler=draft_paraphrases)


def draft(args: argparse.Namespace) -> int:
    from gtreview.app.drafting import draft_new_set, read_prices

    prices = read_prices(args.prices)  # a bad price table is refused before the project opens
    project = open_cli_project(args)
    try:
        cancel = threading.Event()
        previous = signal.signal(signal.SIGINT, lambda *_: cancel.set())
        try:
            outcome = draft_new_set(
                project.engine,
                args.model,
                n_questions=args.questions,
                actor=actor(),
                name=args.name,
                access_mode=args.access_mode,
                context_chars=args.context_chars,
                prices=prices,
                progress=None if args.json else _progress_printer(sys.stderr),
                cancel=cancel,
            )
        finally:
            signal.signal(signal.SIGINT, previous)
    finally:
        project.close()
    _report(args, outcome)
    if outcome.result.cancelled:
        raise CliError("drafting was cancelled; nothing was saved", EXIT_FINDINGS)
    return EXIT_OK if outcome.complete else EXIT_FINDINGS


def _progress_printer(stream: Any) -> Any:
    def show(stage: str, done: int, total: int) -> None:
        stream.write(f"\r[{stage:9}] {done}/{total}   ")
        if done >= total:
            stream.write("\n")
        stream.flush()

    return show


def _report(args: argparse.Namespace, outcome: DraftOutcome) -> None:
    result, set_id = outcome.result, outcome.set_id
    flagged = [d.question.id for d in result.drafts if d.flagged]
    failures = [{"stage": f.stage, "item": f.item, "attempts": f.attempts, "reason": f.reason} for f in result.failures]
    usage = [u.model_dump(mode="json") for u in result.usage]
    if args.json:
        print_json(
            {
                "ok": outcome.complete,
                "set_id": set_id,
                "model": result.model,
                "requested": outcome.requested,
                "drafted": [d.question.id for d in result.drafts],
                "flagged": flagged,
                "failures": failures,
                "usage": usage,
                "total_cost_usd": result.total_cost_usd,
                "cancelled": result.cancelled,
            }
        )
        return
    saved = f"saved as set {set_id} (every question in status draft)" if set_id is not None else "no set was saved"
    print(f"drafted {len(result.drafts)} of {outcome.requested} questions with {result.model}; {saved}")
    for draft_question in result.drafts:
        errors = sum(1 for f in draft_question.findings if f.is_error)
        mark = f"FLAGGED ({errors} errors)" if draft_question.flagged else "ok"
        print(f"  {draft_question.question.id}: {draft_question.question.title or ''} [{mark}]")
    for failure in failures:
        print(
            f"  failed {failure['stage']} {failure['item']} after {failure['attempts']} attempts: {failure['reason']}"
        )
    for stage in result.usage:
        cost = stage.cost_usd if stage.cost_usd == "unknown" else f"${stage.cost_usd:.4f}"
        print(
            f"  {stage.stage:9} {stage.requests} requests, {stage.prompt_tokens} prompt + "
            f"{stage.completion_tokens} completion tokens, cost {cost}"
        )
    total = result.total_cost_usd
    print(f"  total cost {total if total == 'unknown' else f'${total:.4f}'}")


def draft_paraphrases(args: argparse.Namespace) -> int:
    from gtreview.app.drafting import read_prices
    from gtreview.app.paraphrase_drafting import draft_set_paraphrases
    from gtreview.app.rubrics import chosen_set

    prices = read_prices(args.prices)
    project = open_cli_project(args)
    try:
        set_id = chosen_set(project.engine, args.set_id)
        cancel = threading.Event()
        previous = signal.signal(signal.SIGINT, lambda *_: cancel.set())
        try:
            progress = _progress_printer(sys.stderr)
            outcome = draft_set_paraphrases(
                project.engine,
                set_id,
                args.model,
                per_question=args.per_question,
                qids=args.qids or None,
                actor=actor(),
                prices=prices,
                progress=None if args.json else lambda done, total: progress("paraphrase", done, total),
                cancel=cancel,
            )
        finally:
            signal.signal(signal.SIGINT, previous)
    finally:
        project.close()
    _report_paraphrases(args, set_id, outcome)
    if outcome.draft.cancelled:
        raise CliError("drafting was cancelled; the paraphrases accepted before it are kept", EXIT_FINDINGS)
    return EXIT_OK if outcome.complete else EXIT_FINDINGS


def _report_paraphrases(args: argparse.Namespace, set_id: int, outcome: ParaphraseDraftOutcome) -> None:
    draft = outcome.draft
    failures = [{"qid": f.qid, "attempts": f.attempts, "reason": f.reason} for f in draft.failures]
    if args.json:
        print_json(
            {
                "ok": outcome.complete,
                "set_id": set_id,
                "model": draft.model,
                "added": [{"qid": a.qid, "paraphrase_of": a.original} for a in outcome.added],
                "failures": failures,
                "refused": outcome.refused,
                "usage": draft.usage.model_dump(mode="json"),
                "total_cost_usd": draft.total_cost_usd,
                "cancelled": draft.cancelled,
            }
        )
        return
    print(f"added {len(outcome.added)} draft paraphrases to set {set_id} with {draft.model}")
    for added in outcome.added:
        print(f"  {added.qid}: a paraphrase of {added.original}")
    for failure in failures:
        print(f"  failed {failure['qid']} after {failure['attempts']} attempts: {failure['reason']}")
    for refused in outcome.refused:
        print(f"  not added: {refused}")
    usage, total = draft.usage, draft.total_cost_usd
    cost = total if total == "unknown" else f"${total:.4f}"
    print(
        f"  {usage.requests} requests, {usage.prompt_tokens} prompt + {usage.completion_tokens} completion tokens, cost {cost}"
    )
