"""The plain readings and the table rows of the design figures, one text for the results
view and the PDF (so the two never say different things about one figure).

Numbers use an ASCII minus: the PDF's base fonts have no U+2212, and a test reads the
same string back from both places.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel

from gtreview.core.stats import (
    LEVEL,
    BradleyTerry,
    ClusteredDifference,
    GateReliability,
    Interval,
    LengthBias,
    McNemarResult,
)
from gtreview.core.wording import plural

if TYPE_CHECKING:
    from gtreview.results.design import DesignFigures

SIGNIFICANCE = 0.05  # where McNemar's p reads as "a real change" in the plain reading


class FigureTable(BaseModel):
    """A table the view draws as HTML and the PDF as a table: the same header and cells."""

    title: str
    header: list[str]
    rows: list[list[str]]
    caption: str = ""


def num(value: float | None, digits: int = 2, *, signed: bool = False) -> str:
    if value is None:
        return "–"
    value = round(value, digits) + 0.0  # no "-0.00": a bound that rounds to zero is zero
    return f"{value:+.{digits}f}" if signed else f"{value:.{digits}f}"


def span(ci: Interval | None, digits: int = 2) -> str:
    return "–" if ci is None else f"[{num(ci.low, digits)}, {num(ci.high, digits)}]"


def level(*intervals: Interval | None) -> str:
    """``(95% interval)``: the coverage the intervals carry, stated once per reading."""
    known = [ci for ci in intervals if ci is not None]
    coverage = known[0].level if known else LEVEL
    return f"({coverage:.0%} interval{'s' if len(known) > 1 else ''})"


def with_interval(value: float | None, ci: Interval | None, digits: int = 2, *, signed: bool = False) -> str:
    """``+0.80 [-0.10, 1.70]``, or the value alone where no interval is defined."""
    return num(value, digits, signed=signed) + ("" if ci is None else f" {span(ci, digits)}")


def clustered_reading(clustered: ClusteredDifference, uncited: int) -> str:
    if clustered.mean_difference is None:
        return "Clustered by source document: no question has a counted answer from both models."
    clusters = plural(clustered.n_clusters - uncited, "source document")
    alone = f" and {plural(uncited, 'question')} citing none" if uncited else ""
    if clustered.ci is None:
        return (
            f"Clustered by {clusters}{alone}: {num(clustered.mean_difference, signed=True)} points; "
            "no interval from a single document."
        )
    return (
        f"Clustered by {clusters}{alone}: {num(clustered.mean_difference, signed=True)} points "
        f"{span(clustered.ci)}, {clustered.verdict} {level(clustered.ci)}."
    )


def mcnemar_reading(result: McNemarResult, repeats: int) -> str:
    head = f"Gate (majority of {plural(repeats, 'answer')} per question)"
    if result.n_pairs == 0:
        return f"{head}: no question has a majority verdict from both models."
    counts = (
        f"the fine-tune alone passes {result.finetune_only}, the base alone {result.base_only} "
        f"of {plural(result.n_pairs, 'question')}"
    )
    left_out = f"; {result.n_excluded} tied or unknown left out" if result.n_excluded else ""
    if result.p_value is None:
        return f"{head}: {counts}{left_out}; no question differs, nothing to test."
    if result.p_value < SIGNIFICANCE:
        side = "higher" if result.finetune_only > result.base_only else "lower"
        meaning = f"the fine-tune's gate pass rate is {side}"
    else:
        meaning = "no clear change in the gate"
    return f"{head}: {counts}{left_out}; McNemar exact p = {result.p_value:.3f}, {meaning}."


def reliability_reading(label: str, gate: GateReliability, repeats: int) -> str:
    rated = [q for q in gate.questions if q.n >= 2]
    if not rated and repeats < 2:
        return f"{label}: one answer per question, so its gate's flakiness is unknown."
    if not rated:  # K answers were asked for: they are not judged yet (or not two of any question)
        return (
            f"{label}: no question has two judged answers yet ({plural(repeats, 'answer')} per question "
            "asked for), so its gate's flakiness is not known yet."
        )
    flaky = sum(q.flaky for q in rated)
    once = next((p for p in gate.by_k if p.k == 1), None)
    every = gate.by_k[-1] if gate.by_k else None
    disagree = "–" if gate.mean_disagreement is None else f"{gate.mean_disagreement:.0%}"
    text = (
        f"{label}: gate flaky on {flaky} of {plural(len(rated), 'question')} "
        f"(two of its answers disagree {disagree} of the time)"
    )
    if once is None or every is None or every.k == 1:
        return text + "."
    return (
        f"{text}; pass^1 {with_interval(once.pass_hat_k, once.pass_hat_k_ci)}, "
        f"pass^{every.k} {with_interval(every.pass_hat_k, every.pass_hat_k_ci)} "
        f"{level(once.pass_hat_k_ci, every.pass_hat_k_ci)}."
    )


def strengths_reading(strengths: BradleyTerry) -> str:
    if not strengths.estimable:
        return "Bradley-Terry strengths: not estimable (a model won every comparison or lost every one)."
    ranked = sorted(strengths.strengths, key=lambda s: -(s.log_strength or 0.0))
    listed = ", ".join(f"{s.model} {with_interval(s.log_strength, s.ci, signed=True)}" for s in ranked)
    intervals = level(*(s.ci for s in ranked))
    return (
        f"Bradley-Terry log-strengths (mean 0; every comparison is against the base): {listed}; "
        f"strongest {ranked[0].model} {intervals}."
    )


def length_reading(length: LengthBias | None) -> str:
    if length is None:
        return "Length: no pairwise verdict to relate to answer length."
    raw = with_interval(length.raw_win_rate, length.raw_ci)
    if length.slope is None or length.slope_ci is None:
        if length.controlled_win_rate is not None:
            return (
                f"Length: the answers are equally long, so no length effect; win rate {raw} "
                f"{level(length.raw_ci)}, ties count half."
            )
        return (
            "Length: the effect cannot be estimated (the verdicts are all alike or length separates them); "
            f"raw win rate {raw} {level(length.raw_ci)}, ties count half."
        )
    ci = length.slope_ci
    direction = (
        "longer answers win more often"
        if ci.low > 0
        else "shorter answers win more often"
        if ci.high < 0
        else "no clear length effect"
    )
    return (
        f"Length: {direction} (slope {with_interval(length.slope, ci, signed=True)}); length-controlled win rate "
        f"{with_interval(length.controlled_win_rate, length.controlled_ci)} vs raw {raw} "
        f"{level(ci, length.controlled_ci, length.raw_ci)}, ties count half."
    )


def design_tables(design: DesignFigures) -> list[FigureTable]:
    """The design figures as tables, in the order the view and the PDF show them."""
    pct = f"{design.interval_level:.0%}"
    tables = []
    if design.finetunes:
        tables.append(
            FigureTable(
                title="Fine-tune − base, as the design has it",
                header=[
                    "Fine-tune",
                    f"Clustered difference [{pct}]",
                    "Clusters",
                    "Gate: only fine-tune / only base",
                    "McNemar exact p",
                    f"Length slope [{pct}]",
                    f"Win rate, length-controlled [{pct}]",
                    f"Win rate, raw [{pct}]",
                ],
                rows=[
                    [
                        f.label,
                        f"{num(f.clustered.mean_difference, signed=True)} {span(f.clustered.ci)}",
                        str(f.clustered.n_clusters),
                        f"{f.mcnemar.finetune_only} / {f.mcnemar.base_only}",
                        num(f.mcnemar.p_value, 3),
                        f"{num(f.length.slope, signed=True)} {span(f.length.slope_ci)}" if f.length else "–",
                        f"{num(f.length.controlled_win_rate)} {span(f.length.controlled_ci)}" if f.length else "–",
                        f"{num(f.length.raw_win_rate)} {span(f.length.raw_ci)}" if f.length else "–",
                    ]
                    for f in design.finetunes
                ],
                caption="The difference resamples source documents (a question citing no corpus document is its own "
                "cluster); the gate is each question's majority over its answers; the length slope is the change in "
                "log-odds of a fine-tune win per standard deviation of the log word-count ratio (Wald interval); "
                "ties count half a win.",
            )
        )
    tables.append(
        FigureTable(
            title="Gate reliability over repeats",
            header=["Model", "k", f"pass^k [{pct}]", f"pass@k [{pct}]", "Questions"],
            rows=[
                [
                    m.label,
                    str(p.k),
                    f"{num(p.pass_hat_k)} {span(p.pass_hat_k_ci)}",
                    f"{num(p.pass_at_k)} {span(p.pass_at_k_ci)}",
                    str(p.n_questions),
                ]
                for m in design.reliability
                for p in m.gate.by_k
            ],
            caption="pass^k: all of k answers pass the gate (reliability); pass@k: at least one does (capability); "
            "unbiased estimates from each question's answers, intervals resample questions; failed generations fail.",
        )
    )
    if design.strengths is not None and design.strengths.estimable:
        tables.append(
            FigureTable(
                title="Bradley-Terry strengths",
                header=["Model", "Log-strength", f"{pct} interval", "Wins (ties half)", "Comparisons"],
                rows=[
                    [s.model, num(s.log_strength, signed=True), span(s.ci), num(s.wins, 1), str(s.comparisons)]
                    for s in design.strengths.strengths
                ],
                caption="exp(a − b) is the odds that a model of log-strength a beats one of b; intervals resample questions.",
            )
        )
    return tables


def design_readings(design: DesignFigures) -> list[str]:
    """Every plain reading, in the order the view and the PDF print them."""
    lines = [f"{f.label}: {reading}" for f in design.finetunes for reading in f.readings]
    lines += [m.reading for m in design.reliability]
    return lines + ([design.strengths_reading] if design.strengths_reading else [])
