"""``gtreview judge gate``: the judge gate's settings, and the gate of a pass.

``--threshold`` and ``--measure`` change what the judge's agreement with the expert must
reach (a project setting, the same the GUI edits); ``--run`` shows that pass's gate, line
and per-criterion lines, as the results view and the PDF report give them.
"""

from __future__ import annotations

import argparse

from gtreview.cli.common import EXIT_OK, ID, SEED, add_json, add_project, open_cli_project, print_json


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    group = commands.add_parser("judge", help="the judge gate: its settings, and whether a pass's judge passed it")
    actions = group.add_subparsers(dest="judge_command", metavar="ACTION", required=True)
    gate = actions.add_parser("gate", help="show (or set) the judge gate's threshold and measure, or a pass's gate")
    gate.add_argument("--run", dest="run_id", type=ID, default=None, help="show this pass's judge gate")
    gate.add_argument(
        "--threshold",
        type=float,
        default=None,
        help="the agreement (in -1..1) the 95%% lower bound must reach, on totals and on every criterion",
    )
    gate.add_argument(
        "--measure", type=str, default=None, help="agreement on totals: weighted_kappa (default) or krippendorff_alpha"
    )
    gate.add_argument("--seed", type=SEED, default=0, help="seed of the bootstrap resampling (the view uses 0)")
    add_project(gate)
    add_json(gate)
    gate.set_defaults(handler=judge_gate_command)


def judge_gate_command(args: argparse.Namespace) -> int:
    from gtreview.app.judge_gate import MEASURE_NAMES, judge_gate
    from gtreview.app.project_settings import judge_gate_settings, set_judge_gate_settings

    project = open_cli_project(args)
    try:
        changed = set_judge_gate_settings(project.engine, threshold=args.threshold, measure=args.measure).settings
        settings = judge_gate_settings(project.engine)
        gate = judge_gate(project.engine, args.run_id, seed=args.seed) if args.run_id is not None else None
    finally:
        project.close()
    if args.json:
        print_json(
            {
                "ok": True,
                "settings": settings.model_dump(mode="json"),
                "changed": sorted(changed),
                "judge_gate": gate.model_dump(mode="json") if gate is not None else None,
            }
        )
        return EXIT_OK
    verb = "set to" if changed else "is"
    print(
        f"judge gate {verb}: {MEASURE_NAMES[settings.measure]} on totals, and every criterion, "
        f"with a 95% lower bound of at least {settings.threshold:.2f}"
    )
    if gate is not None:
        print(f"run {gate.run_id}: {gate.line}")
        for line in gate.details:
            print(f"  {line}")
    return EXIT_OK
