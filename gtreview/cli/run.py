"""``gtreview run``: a benchmark pass with a progress line and resume."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path
from typing import Any

from gtreview.cli.common import (
    EXIT_FINDINGS,
    EXIT_OK,
    ID,
    SEED,
    CliError,
    add_json,
    add_project,
    float_between,
    int_at_least,
    load_rubric,
    open_cli_project,
    print_json,
)


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser("run", help="a benchmark pass: generate K answers per model, judge, compare")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--rubric", type=Path, help="a rubric file")
    source.add_argument("--set", dest="set_id", type=ID, help="a benchmark set of the project (current versions)")
    parser.add_argument(
        "--model",
        type=str,
        action="append",
        default=[],
        metavar="LABEL=SPEC",
        help="a model to run; the first is the base the others are compared with",
    )
    parser.add_argument("--models-json", type=Path, help="models from a Groundtruth configs/models.json")
    parser.add_argument("--base-url", type=str, help="with --models-json: the vLLM server that serves them")
    parser.add_argument("--gguf-dir", type=Path, help="with --models-json: a folder of local GGUF files to use instead")
    parser.add_argument(
        "--entry",
        type=str,
        action="append",
        default=[],
        metavar="LABEL",
        help="with --models-json: run only this entry (repeatable; default: every entry)",
    )
    parser.add_argument("--judge", type=str, required=True, metavar="SPEC")
    parser.add_argument("--repeats", type=int_at_least(1), default=1, metavar="K")
    parser.add_argument(
        "--judge-repeats",
        type=int_at_least(1),
        default=1,
        metavar="J",
        help="verdicts per answer (default 1); with 2 or more the judge's noise is measured apart from the "
        "model's; the first verdict stays the score of record, and a rerun asks only for new verdicts",
    )
    parser.add_argument(
        "--judge-repeat-mode",
        choices=("shuffled", "seeded"),
        default="shuffled",
        help="how a repeat differs: the rubric's scored components shown in another order (default; a "
        "temperature-0 judge says the same again under a new seed) or the judge's seed + j",
    )
    parser.add_argument("--temperature", type=float_between(0.0), default=0.7)
    parser.add_argument("--top-p", type=float_between(0.0, 1.0), default=0.95)
    parser.add_argument("--max-tokens", type=int_at_least(1), default=1024)
    parser.add_argument("--seed", type=SEED, default=1234)
    parser.add_argument("--no-pairwise", action="store_true")
    parser.add_argument("--drift-every", type=int_at_least(0), default=50)
    parser.add_argument("--name", type=str, default=None)
    parser.add_argument(
        "--no-wait",
        action="store_true",
        help="refuse, rather than wait for, the same pass running in another process",
    )
    add_project(parser)
    add_json(parser)
    parser.set_defaults(handler=run)


def _models_json(args: argparse.Namespace) -> tuple[list[str], list[str]]:
    """``LABEL=SPEC`` values from the models.json, each server asked what it serves; and the notes."""
    from gtreview.app.passes import models_from_config

    if args.models_json is None:
        if args.entry:
            raise CliError("--entry goes with --models-json")
        return [], []
    lineup = models_from_config(args.models_json, base_url=args.base_url, gguf_dir=args.gguf_dir, entries=args.entry)
    return [f"{label}={spec}" for label, spec in lineup.models], lineup.notes


def _models(values: list[str]) -> list[dict[str, str]]:
    if not values:
        raise CliError("name the models with --model LABEL=SPEC or --models-json FILE")
    models = []
    for value in values:
        label, sep, spec = value.partition("=")
        if not sep or not label.strip() or not spec.strip():
            raise CliError(f"--model {value!r}: expected LABEL=SPEC, e.g. base=llama:base.gguf")
        models.append({"label": label.strip(), "spec": spec.strip()})
    labels = [m["label"] for m in models]
    if len(set(labels)) != len(labels):
        raise CliError("model labels must be unique")
    return models


def _progress_printer(stream: Any) -> Any:
    """One line per phase, redrawn per event: the phase, a bar and what it is doing."""

    def show(event: Any) -> None:
        width = 24
        filled = int(width * event.done / event.total) if event.total else width
        bar = "#" * filled + "-" * (width - filled)
        stream.write(f"\r[{event.phase:9}] [{bar}] {event.describe()}   ")
        if event.done >= event.total:
            stream.write("\n")
        stream.flush()

    return show


def run(args: argparse.Namespace) -> int:
    from gtreview.app.passes import DriftError, PassCancelled, run_benchmark_pass
    from gtreview.inference.backend import Sampling
    from gtreview.runs.plan import PassConfig

    rubric = load_rubric(args.rubric) if args.rubric is not None else None
    from_json, notes = _models_json(args)  # servers are asked before any project is opened
    models = _models(args.model + from_json)
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    project = open_cli_project(args)
    try:
        config = PassConfig(
            name=args.name or (args.rubric.stem if args.rubric else f"set {args.set_id}"),
            models=models,
            judge=args.judge,
            repeats=args.repeats,
            judge_repeats=args.judge_repeats,
            judge_repeat_mode=args.judge_repeat_mode,
            sampling=Sampling(
                temperature=args.temperature, top_p=args.top_p, seed=args.seed, max_tokens=args.max_tokens
            ),
            pairwise=not args.no_pairwise,
            drift_every=args.drift_every,
        )
        cancel = threading.Event()
        previous = signal.signal(signal.SIGINT, lambda *_: cancel.set())
        try:
            result = run_benchmark_pass(
                project.engine,
                config,
                set_id=None if rubric is not None else args.set_id,
                rubric=rubric,
                progress=None if args.json else _progress_printer(sys.stderr),
                cancel=cancel,
                on_busy=None if args.no_wait else lambda message: print(message, file=sys.stderr, flush=True),
            )
        finally:
            signal.signal(signal.SIGINT, previous)
    except PassCancelled as exc:
        raise CliError(str(exc), EXIT_FINDINGS) from None
    except DriftError as exc:
        raise CliError(
            f"{exc}; the pass stopped (what finished is stored; --drift-every 0 skips the judge check)",
            EXIT_FINDINGS,
        ) from None
    except ValueError as exc:  # a configuration pydantic refuses (a spec, a sampling value)
        raise CliError(str(exc).splitlines()[0]) from None
    finally:
        project.close()
    summary = result.model_dump()
    if args.json:
        print_json({"ok": True, **summary, "notes": notes})
    else:
        print(
            f"run {result.run_id}: {result.generated} answers generated, {result.reused} reused, "
            f"{result.generation_errors} generation errors ({result.retries} retries), {result.judged} judged, "
            f"{result.unscored} unscored, {result.pairs} pairs; {result.model_calls} model calls"
        )
    return EXIT_OK
