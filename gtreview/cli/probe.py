"""``gtreview probe``: memorisation and familiarity probes of local models.

Log-likelihoods need the logits of every position, which only a local model gives
(run in a worker process, as every local model is); server (openai:) and API
(anthropic:) models are refused in one line.

``--members DOC_GLOB... --held-out DOC_GLOB...`` marks which corpus documents the
fine-tune was trained on and which were held out (kept in the project, and used again
when neither is given); each membership signal's AUC on that split is then reported.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from gtreview.cli.common import (
    EXIT_OK,
    ID,
    SEED,
    CliError,
    add_json,
    add_project,
    int_at_least,
    open_cli_project,
    print_json,
)

if TYPE_CHECKING:
    from gtreview.app.membership import MembershipReport, MembershipSplit


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "probe", help="memorisation probes: does a fine-tune know the corpus passages by heart?"
    )
    parser.add_argument(
        "--model",
        type=str,
        action="append",
        default=[],
        required=True,
        metavar="LABEL=SPEC",
        help="a llama: or hf: model; the first is the base the others are compared with",
    )
    parser.add_argument(
        "--passages",
        type=int_at_least(2, "the intervals pair passages"),
        default=32,
        metavar="N",
        help="corpus passages to sample (default 32); with a membership split, also up to N from each side",
    )
    parser.add_argument("--seed", type=SEED, default=0, help="seed of the passage sample, shuffles and bootstrap")
    parser.add_argument(
        "--controls",
        type=Path,
        default=None,
        metavar="FILE",
        help="held-out text (paragraphs separated by blank lines) instead of shuffled passages",
    )
    parser.add_argument(
        "--members",
        type=str,
        nargs="+",
        action="extend",
        default=[],
        metavar="DOC_GLOB",
        help="corpus documents the fine-tune was trained on (globs over document names); with --held-out, "
        "reports each membership signal's AUC on the split, and keeps the split in the project",
    )
    parser.add_argument(
        "--held-out",
        dest="held_out",
        type=str,
        nargs="+",
        action="extend",
        default=[],
        metavar="DOC_GLOB",
        help="corpus documents held out of its training (without --members/--held-out, the split kept "
        "in the project is used, if any)",
    )
    parser.add_argument(
        "--run",
        dest="run_id",
        type=ID,
        default=None,
        help="keep the probes with this pass, so its results and report show them beside the scores",
    )
    add_project(parser)
    add_json(parser)
    parser.set_defaults(handler=probe)


def _models(values: list[str]) -> list[tuple[str, str]]:
    """--model LABEL=SPEC values as (label, spec) pairs, in order (the first is the base)."""
    pairs = []
    for item in values:
        label, sep, spec = item.partition("=")
        if not sep or not label.strip() or not spec.strip():
            raise CliError(f"--model {item!r}: expected LABEL=SPEC, e.g. base=llama:model.gguf")
        pairs.append((label.strip(), spec.strip()))
    return pairs


def probe(args: argparse.Namespace) -> int:
    from gtreview.app.membership import mark_membership_split, stored_membership_split
    from gtreview.app.probes import probe_models, read_controls, run_memorisation_probes

    # Models and controls are checked before the project opens and before any model loads.
    models = probe_models(_models(args.model))
    controls = read_controls(args.controls) if args.controls is not None else None
    project = open_cli_project(args)
    try:
        split: MembershipSplit | None
        if args.members or args.held_out:  # checked against the corpus, then kept, before any model loads
            split = mark_membership_split(project.engine, args.members, args.held_out)
        else:
            split = stored_membership_split(project.engine)
        outcome = run_memorisation_probes(
            project.engine,
            models,
            passages=args.passages,
            seed=args.seed,
            controls=controls,
            run_id=args.run_id,
            split=split,
        )
    finally:
        project.close()
    familiarity, recall, readings = outcome.familiarity, outcome.recall, outcome.readings
    if args.json:
        print_json(
            {
                "ok": True,
                "familiarity": familiarity.model_dump(mode="json"),
                "recall": recall.model_dump(mode="json"),
                "readings": [r.model_dump(mode="json") for r in readings],
                "membership": outcome.membership.model_dump(mode="json") if outcome.membership else None,
            }
        )
        return EXIT_OK
    print(f"Familiarity: mean log-likelihood per token over {familiarity.n_passages} passages")
    print(f"  {'model':<16} {'passages':>10} {familiarity.control_kind + ' controls':>18}")
    for m in familiarity.models:
        print(f"  {m.label:<16} {_num(m.passages):>10} {_num(m.controls):>18}")
    print(
        f"Verbatim recall: greedy continuation of the first {recall.prompt_share:.0%} of each passage "
        f"(at most {recall.max_prompt_tokens} tokens), up to {recall.max_continuation_tokens} tokens"
    )
    print(
        f"  {'model':<16} {'longest run':>11} {str(recall.ngram) + '-gram':>8} {'exact':>7} {'control ' + str(recall.ngram) + '-gram':>16}"
    )
    for r in recall.models:
        print(
            f"  {r.label:<16} {_num(r.passages.longest_run):>11} {_num(r.passages.ngram_overlap):>8} "
            f"{_num(r.passages.exact_match_rate):>7} {_num(r.controls.ngram_overlap):>16}"
        )
    for item in readings:
        print(f"{item.label}: {item.text}")
        for line in item.evidence:
            print(f"  {line}")
    if outcome.membership is not None:
        _print_membership(outcome.membership)
    return EXIT_OK


def _print_membership(report: MembershipReport) -> None:
    from gtreview.results.membership_text import tpr_phrase

    print(
        f"Membership: {report.n_members} passages of {len(report.member_documents)} training documents "
        f"against {report.n_held_out} of {len(report.held_out_documents)} held-out ones (AUC, and TPR at a low FPR, per signal)"
    )
    for model in report.models:
        role = " (base, the control)" if model.is_base else ""
        print(f"  {model.label}{role}")
        for auc in model.aucs:
            print(f"    {auc.reading}; {tpr_phrase(auc)}")
    for line in report.readings:
        print(line)


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"
