"""``gtreview results``: a run's figures, exactly as the results view shows them."""

from __future__ import annotations

import argparse

from gtreview.cli.common import EXIT_OK, ID, SEED, add_json, add_project, open_cli_project, print_json
from gtreview.core.wording import plural


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "results", help="a run's figures: per model, per question and model, pairwise (from the one results loader)"
    )
    parser.add_argument("--run", dest="run_id", type=ID, required=True)
    parser.add_argument("--seed", type=SEED, default=0, help="seed of the bootstrap resampling (the view uses 0)")
    add_project(parser)
    add_json(parser)
    parser.set_defaults(handler=results)


def _num(value: float | None, digits: int = 2) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def results(args: argparse.Namespace) -> int:
    from gtreview.app.results import run_readings_of
    from gtreview.results.counts import counts_text
    from gtreview.results.membership_text import MEMBERSHIP_HEADING, membership_rows, membership_summary

    project = open_cli_project(args)
    try:
        shown = run_readings_of(project.engine, args.run_id, seed=args.seed)
    finally:
        project.close()
    figures, gate = shown.figures, shown.gate
    if args.json:
        print_json(
            {
                "ok": True,
                **figures.model_dump(mode="json"),
                "judge_gate": gate.model_dump(mode="json"),
                "readings": [reading.model_dump(mode="json") for reading in shown.readings],
                # the Membership tab's report: AUCs, TPRs at a low FPR and ROC corners per signal
                "membership": shown.membership.model_dump(mode="json") if shown.membership is not None else None,
            }
        )
        return EXIT_OK
    level = f"{figures.interval_level:.0%}"
    print(f"run {figures.run_id}: {figures.name} ({figures.shown_status}, {plural(figures.repeats, 'repeat')})")
    print(f"  {gate.line}")
    for line in gate.details:  # the gate criterion by criterion, as the view's tooltip and the PDF give it
        print(f"    {line}")
    print(f"  {'model':<16} {'mean':>6} {level + ' interval':>16} {'questions':>9}  samples")
    for model in figures.models:
        interval = f"[{_num(model.ci_low)}, {_num(model.ci_high)}]"
        # the samples by the names every output counts them with (results.counts), those not 0
        print(f"  {model.label:<16} {_num(model.mean):>6} {interval:>16} {model.n_questions:>9}  {counts_text(model)}")
    for difference in figures.differences:
        # the headline's words: the paired means the difference is made of, and what they cover;
        # the reading repeats the verdict when facts and reasoning say what the score says: once is enough
        also = "" if difference.reading == difference.verdict else f"; {difference.reading}"
        print(
            f"  {difference.finetune} - {difference.base}: {difference.paired} "
            f"({level} interval, resampling questions){also}"
        )
    for pair in figures.pairwise:
        if not pair.judged:
            print(f"  {pair.finetune} vs {pair.base}: pairwise {pair.absent}")
            continue
        c = pair.counts
        bias = "–" if pair.position_bias_rate is None else f"{pair.position_bias_rate:.0%}"
        print(
            f"  {pair.finetune} vs {pair.base}: {c.wins} won, {c.ties} tied, {c.losses} lost, {c.unknown} unknown; "
            f"position bias {bias}"
        )
    for reading in shown.readings:
        print(f"  {reading.heading}: {reading.verdict.text}")
    for line in figures.paraphrase.readings if figures.paraphrase is not None else []:
        print(f"  {line}")
    if figures.noise_reading is not None:  # the Noise tab's and the PDF's words
        print(f"  {figures.noise_reading.heading}: {figures.noise_reading.summary}")
        for line in figures.noise_reading.readings:
            print(f"    {line}")
    if shown.membership is not None:  # the Membership tab's and the PDF's words and rows
        print(f"  {MEMBERSHIP_HEADING}: {membership_summary(shown.membership)}")
        for row in membership_rows(shown.membership):
            print("    " + " | ".join(row))
    return EXIT_OK
