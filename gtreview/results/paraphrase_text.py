"""The plain reading and the table of paraphrase invariance: one text for the results view,
the PDF report and ``gtreview results --json`` (so the three never say different things).

Numbers use an ASCII minus, as the design readings do (the PDF's base fonts have no U+2212).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gtreview.core.stats import Interval
from gtreview.results.design_text import num
from gtreview.results.reading_rules import MIN_QUESTIONS

if TYPE_CHECKING:
    from gtreview.results.paraphrase import ModelParaphrase, ParaphraseReport

PARAPHRASE_HEADING = "Asked in other words: paraphrase invariance"
PARAPHRASE_HEADER = [
    "Model",
    "Score drop /10 [95%]",
    "Gate pass rate drop [95%]",
    "Binary facts: drop in share of points [95%]",
    "Reasoning: drop in share of points [95%]",
    "Questions",
]
PER_QUESTION_TITLE = "Per question: the drop under paraphrase (points /10)"
NOT_MEASURED = "Paraphrase invariance not measured: no paraphrased variants in this pass."
DIGITS = 2  # as the tables beside the reading print them, so a figure reads the same in both


def _ci_text(ci: Interval | None, n_pairs: int, n_clusters: int, *, flip: bool = False) -> str:
    """``95% CI 0.4 to 2.0, resampling source documents, 14 questions`` (bounds of a gain when ``flip``)."""
    questions = f"{n_pairs} question{'' if n_pairs == 1 else 's'}"
    if ci is None:
        why = "no interval from a single source document" if n_clusters == 1 else "no interval"
        return f"{why}, {questions}"
    low, high = (-ci.high, -ci.low) if flip else (ci.low, ci.high)
    return f"{ci.level:.0%} CI {num(low, DIGITS)} to {num(high, DIGITS)}, resampling source documents, {questions}"


def _loss(drop: float, ci: Interval | None, n_pairs: int, n_clusters: int, *, words: str = "") -> str:
    """``loses 1.2{words} (95% CI ...)``, or ``gains`` with the bounds of the gain."""
    verb = "loses" if drop >= 0 else "gains"
    return f"{verb} {num(abs(drop), DIGITS)}{words} ({_ci_text(ci, n_pairs, n_clusters, flip=drop < 0)})"


def _what_extra_says(ci: Interval | None, n_pairs: int) -> str:
    """What the extra drop supports, under the one-page reading's own rule: no claim from
    fewer paraphrased questions than it reads (so the two never say different things)."""
    if n_pairs < MIN_QUESTIONS:
        return f"is too few paraphrased questions to read ({n_pairs}; {MIN_QUESTIONS} needed)"
    if ci is None:
        return "cannot be told from noise without an interval"
    if ci.no_variation_at(0.0):
        return "shows no variation: the extra drop is 0 on every pair (as at a floor), so the interval says nothing"
    if ci.low > 0:
        return "says its score leans on the source's wording more than the base's does"
    if ci.high < 0:
        return "says it holds its score under paraphrase better than the base"
    return "is within noise: rewording does not tell it apart from the base here"


def model_reading(model: ModelParaphrase) -> str:
    """One model's drop in a clause, ``SmolLM-LoRA loses 1.2 points /10 under paraphrase (...)``."""
    if model.drop is None:
        return f"{model.label}: no original question has a scored answer both to it and to a paraphrase of it"
    loss = _loss(model.drop, model.ci, model.n_pairs, model.n_clusters, words=" points /10 under paraphrase")
    return f"{model.label} {loss}"


def paraphrase_readings(report: ParaphraseReport) -> list[str]:
    """The plain reading: one line per fine-tune (its drop, the base's, and its extra drop),
    or one per model when the pass has no fine-tune; "not measured" without paraphrases."""
    if not report.n_paraphrases:
        return [NOT_MEASURED]
    base = report.for_model(report.base)
    finetunes = [m for m in report.models if not m.is_base]
    if base is None or not finetunes:
        return [model_reading(m) + "." for m in report.models]
    lines = []
    for model in finetunes:
        parts = [model_reading(model)]
        if base.drop is not None:
            base_name = "the base" if base.label == "base" else f"the base {base.label}"  # not "the base base"
            parts.append(f"{base_name} {_loss(base.drop, base.ci, base.n_pairs, base.n_clusters)}")
        extra = model.versus_base
        if extra is not None and extra.difference is not None:
            noun = "extra loss" if extra.difference >= 0 else "smaller loss"
            parts.append(
                f"the fine-tune's {noun} {num(abs(extra.difference), DIGITS)} "
                f"({_ci_text(extra.ci, extra.n_pairs, extra.n_clusters, flip=extra.difference < 0)}) "
                f"{_what_extra_says(extra.ci, extra.n_pairs)}"
            )
        lines.append("; ".join(parts) + ".")
    return lines


def paraphrase_summary(report: ParaphraseReport) -> str:
    """What was measured, and how to read a drop."""
    if not report.n_paraphrases:
        return NOT_MEASURED
    return (
        f"{report.n_paraphrases} paraphrased variant{'' if report.n_paraphrases == 1 else 's'} of "
        f"{report.n_originals} question{'' if report.n_originals == 1 else 's'}, answered and judged like any question "
        "(every other figure counts the original questions only). A drop is the mean score of a question's answers "
        "less the mean over its paraphrases' answers, averaged over the questions: a model that learned keeps its "
        "score under paraphrase, one that memorised the source's wording loses it. The gate's drop is in its pass "
        "rate, the fact and reasoning drops in the share of their points (0 to 1). Intervals are "
        f"{report.interval_level:.0%} bootstrap intervals that resample source documents." + _left_out(report)
    )


def _left_out(report: ParaphraseReport) -> str:
    if not report.left_out:
        return ""
    listed = "; ".join(f"{item.qid}: {item.reason}" for item in report.left_out)
    return f" Left out, paired with no original: {listed}."


def _cell(value: float | None, ci: Interval | None, digits: int) -> str:
    if value is None:
        return "–"
    interval = "" if ci is None else f" [{num(ci.low, digits)}, {num(ci.high, digits)}]"
    return f"{num(value, digits, signed=True)}{interval}"


def paraphrase_rows(report: ParaphraseReport) -> list[list[str]]:
    """One row per model; a fine-tune's extra drop over the base follows it on a row of its own."""
    rows = []
    for model in report.models:
        kinds = [model.kinds[k] for k in ("gate", "binary", "reasoning")]
        label = f"{model.label} (base)" if model.is_base else model.label
        rows.append(
            [
                label,
                _cell(model.drop, model.ci, 2),
                *[_cell(k.drop, k.ci, 2) for k in kinds],
                str(model.n_pairs),
            ]
        )
        extra = model.versus_base
        if extra is not None:
            rows.append(
                [
                    f"{model.label} minus base",
                    _cell(extra.difference, extra.ci, 2),
                    "",
                    "",
                    "",
                    str(extra.n_pairs),
                ]
            )
    return rows


def paraphrase_question_header(report: ParaphraseReport) -> list[str]:
    return ["Id", "Title", "Paraphrases", *[m.label for m in report.models]]


def paraphrase_question_rows(report: ParaphraseReport) -> list[list[str]]:
    """Each reworded original: its paraphrases and every model's drop on it (the table lists
    the paraphrases apart from the per-question table of the originals)."""
    return [
        [
            q.qid,
            q.title,
            ", ".join(q.paraphrases),
            *[num(q.drops.get(m.label), 1, signed=True) for m in report.models],
        ]
        for q in report.questions
    ]


__all__ = [
    "NOT_MEASURED",
    "PARAPHRASE_HEADER",
    "PARAPHRASE_HEADING",
    "PER_QUESTION_TITLE",
    "model_reading",
    "paraphrase_question_header",
    "paraphrase_question_rows",
    "paraphrase_readings",
    "paraphrase_rows",
    "paraphrase_summary",
]
