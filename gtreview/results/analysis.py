"""The figures of a pass, computed once for the results view and the PDF report.

Every figure is a mean over questions with its spread and interval; errors count as 0
and are counted apart; unscored samples are left out and counted apart.
"""

from __future__ import annotations

import numpy as np
from pydantic import BaseModel

from gtreview.core.stats import (
    Agreement,
    Difference,
    ItemAnalysis,
    PairwiseSummary,
    RateSummary,
    ScoreSummary,
    agreement,
    gate_pass_rate,
    item_analysis,
    paired_difference,
    pairwise_summary,
    summarize_scores,
)
from gtreview.core.wording import plural
from gtreview.results.counts import SampleCounts, sample_counts
from gtreview.results.design import DesignFigures, design_figures
from gtreview.results.loader import KINDS, RunResults
from gtreview.results.noise import NoiseReport, noise_report
from gtreview.results.paraphrase import ParaphraseReport, paraphrase_report
from gtreview.results.rows import nanmean, nansd

KIND_NAMES = {"gate": "gate", "binary": "binary facts", "reasoning": "reasoning"}


class ModelFigures(BaseModel):
    label: str
    summary: ScoreSummary
    gate: RateSummary
    counts: SampleCounts
    kinds: dict[str, ScoreSummary]  # share of the points of each component kind (0..1)
    by_section: dict[str, ScoreSummary]
    by_difficulty: dict[str, ScoreSummary]


class FinetuneFigures(BaseModel):
    label: str
    difference: Difference
    kind_differences: dict[str, Difference]
    pairwise: PairwiseSummary | None
    agreement: Agreement | None
    reading: str  # "recites more, reasons no better" / "reasons better" / ...


class QuestionRow(BaseModel):
    qid: str
    title: str
    section: str
    difficulty: str
    means: dict[str, float | None]
    sds: dict[str, float | None]
    pairwise_mean: dict[str, float | None]
    item_difficulty: float | None
    discrimination: float | None
    disagrees: list[str] = []  # fine-tunes whose pointwise and pairwise results point different ways here


class RunAnalysis(BaseModel):
    run_id: int
    name: str
    models: list[ModelFigures]
    finetunes: list[FinetuneFigures]
    questions: list[QuestionRow]
    items: ItemAnalysis
    finding: str
    design: DesignFigures | None = None  # clustered by document, McNemar, pass^k, Bradley-Terry, length
    paraphrase: ParaphraseReport | None = None  # the drop under paraphrase (every other figure: originals only)
    noise: NoiseReport | None = None  # judge noise apart from model noise (J verdicts per answer)


def _rows(results: RunResults, key: str) -> dict[str, list[int]]:
    groups: dict[str, list[int]] = {}
    for index, question in enumerate(results.questions):
        value = getattr(question, key) or "(none)"
        groups.setdefault(str(value), []).append(index)
    return groups


def _difference(finetune: float | None, base: float | None) -> float:
    """Per question, fine-tune minus base; NaN where either has no counted sample."""
    return float("nan") if finetune is None or base is None else finetune - base


def reading(kind_differences: dict[str, Difference]) -> str:
    """The plain reading the benchmark exists for: learned, or recited?"""

    def verdict(kind: str) -> str:
        difference = kind_differences.get(kind)
        return difference.verdict if difference is not None else "insufficient data"

    facts, reasoning = verdict("binary"), verdict("reasoning")
    if facts == reasoning == "insufficient data":
        return "insufficient data"
    if {facts, reasoning} <= {"no variation", "insufficient data"}:
        return "no variation"  # a floor or a ceiling: nothing to read, not "within noise"
    if reasoning == "fine-tune better":
        return "reasons better"
    if facts == "fine-tune better" and reasoning in ("within noise", "no variation", "insufficient data"):
        return "recites more, reasons no better"
    if reasoning == "base better":
        return "reasons worse"
    return "within noise"


def analyse(results: RunResults, *, seed: int = 0, n_boot: int = 2000, n_perm: int = 10000) -> RunAnalysis:
    sections, difficulties = _rows(results, "section"), _rows(results, "difficulty")
    matrices = {m: results.score_matrix(m) for m in results.models}
    shares = {m: results.kind_share(m) for m in results.models}
    models = []
    for label in results.models:
        scores = matrices[label]
        models.append(
            ModelFigures(
                label=label,
                summary=summarize_scores(scores, n_boot=n_boot, seed=seed),
                gate=gate_pass_rate(results.gate_matrix(label), n_boot=n_boot, seed=seed),
                counts=sample_counts(s for s in results.samples if s.model == label),
                kinds={
                    k.value: summarize_scores(shares[label][:, :, i], n_boot=n_boot, seed=seed)
                    for i, k in enumerate(KINDS)
                },
                by_section={
                    g: summarize_scores(scores[rows], n_boot=n_boot, seed=seed) for g, rows in sections.items()
                },
                by_difficulty={
                    g: summarize_scores(scores[rows], n_boot=n_boot, seed=seed) for g, rows in difficulties.items()
                },
            )
        )
    base = results.base
    finetunes = []
    pair_means: dict[str, list[float | None]] = {}
    for label in results.models[1:]:
        difference = paired_difference(matrices[label], matrices[base], n_boot=n_boot, n_perm=n_perm, seed=seed)
        kind_differences = {
            k.value: paired_difference(
                shares[label][:, :, i], shares[base][:, :, i], n_boot=n_boot, n_perm=n_perm, seed=seed
            )
            for i, k in enumerate(KINDS)
        }
        pairs = [p for p in results.pairs_of(label) if p.label is not None]
        summary = None
        if pairs:
            summary = pairwise_summary(
                [p.label or "unknown" for p in pairs],
                [p.average for p in pairs],
                [p.inconsistent for p in pairs],
                question_ids=[p.qid for p in pairs],
                n_boot=n_boot,
                seed=seed,
            )
        means = []
        for question in results.questions:
            values = [p.average for p in pairs if p.qid == question.id and p.average is not None]
            means.append(float(np.mean(values)) if values else None)
        pair_means[label] = means
        pointwise = [_difference(nanmean(f), nanmean(b)) for f, b in zip(matrices[label], matrices[base], strict=True)]
        agree = agreement(pointwise, means) if pairs else None
        finetunes.append(
            FinetuneFigures(
                label=label,
                difference=difference,
                kind_differences=kind_differences,
                pairwise=summary,
                agreement=agree,
                reading=reading(kind_differences),
            )
        )
    respondents = (
        np.concatenate([matrices[m] for m in results.models], axis=1) if results.questions else np.zeros((0, 0))
    )
    items = item_analysis(respondents, n_boot=n_boot, seed=seed)
    disagreeing = {f.label: set(f.agreement.disagreeing) for f in finetunes if f.agreement is not None}
    rows = []
    for index, question in enumerate(results.questions):
        item = items.items[index] if index < len(items.items) else None
        rows.append(
            QuestionRow(
                qid=question.id,
                title=question.title or "",
                section=question.section or "",
                difficulty=question.difficulty or "",
                means={m: nanmean(matrices[m][index]) for m in results.models},
                sds={m: nansd(matrices[m][index]) for m in results.models},
                pairwise_mean={m: pair_means[m][index] for m in pair_means},
                item_difficulty=item.difficulty if item else None,
                discrimination=item.discrimination if item else None,
                disagrees=[label for label, indices in disagreeing.items() if index in indices],
            )
        )
    analysis = RunAnalysis(
        run_id=results.run_id,
        name=results.name,
        models=models,
        finetunes=finetunes,
        questions=rows,
        items=items,
        finding="",
        design=design_figures(results, seed=seed, n_boot=n_boot),
        paraphrase=paraphrase_report(results, seed=seed, n_boot=n_boot),
        noise=noise_report(results),
    )
    analysis.finding = finding_text(results, analysis)
    return analysis


def fmt(value: float | None, digits: int = 2) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def fmt_ci(summary: ScoreSummary | RateSummary | Difference, digits: int = 2) -> str:
    ci = summary.ci
    return "–" if ci is None else f"[{ci.low:.{digits}f}, {ci.high:.{digits}f}]"


def covers(n: int, of: int) -> str:
    """The questions a mean covers: "all 3 questions", or "2 of the 3 questions"."""
    return f"all {plural(of, 'question')}" if n == of else f"{n} of the {plural(of, 'question')}"


def paired_words(base: str, finetune: str, difference: Difference) -> str:
    """The paired difference with the two means it is made of, over the questions both have a
    counted answer for: the only figures that subtract to it (a model's own mean may cover
    questions the other never answered)."""
    if difference.mean_difference is None:
        return "no question has a counted answer from both, so there is no paired difference"
    p = "–" if difference.p_value is None else f"{difference.p_value:.3f}"
    return (
        f"on the {plural(difference.n_questions, 'question')} both answered: base {fmt(difference.mean_base)}, "
        f"{finetune} {fmt(difference.mean_finetune)}, difference {fmt(difference.mean_difference)} "
        f"{fmt_ci(difference)} (paired permutation p = {p}), {difference.verdict}"
    )


def _mean_words(summary: ScoreSummary, questions: int) -> str:
    if summary.mean is None:
        return "has no counted answer yet"
    return f"scored {fmt(summary.mean)} of 10 on {covers(summary.n_questions, questions)} (95% CI {fmt_ci(summary)})"


def _uncounted_words(counts: SampleCounts) -> str:
    """The samples that are not in the mean, or counted as 0, by their one name each."""
    parts = []
    if counts.errors:
        parts.append(f"{plural(counts.errors, 'failed generation')}, counted as 0")
    if counts.unscored:
        parts.append(f"{plural(counts.unscored, 'unscored judgement')}, left out")
    if counts.unjudged:
        parts.append(f"{plural(counts.unjudged, 'answer')} not judged yet, left out")
    if counts.missing:
        parts.append(f"{plural(counts.missing, 'answer')} never generated, left out")
    return "; ".join(parts)


def finding_text(results: RunResults, analysis: RunAnalysis) -> str:
    """The headline: each mean with the questions it covers, then each fine-tune's paired
    difference with the paired means, so every number in it can be checked against another."""
    by_label = {m.label: m for m in analysis.models}
    base = by_label[results.base]
    questions = len(results.questions)
    parts = [
        f"{plural(questions, 'question')}, {plural(results.repeats, 'answer')} per question and model. "
        f"The base '{base.label}' {_mean_words(base.summary, questions)}."
    ]
    if uncounted := _uncounted_words(base.counts):
        parts.append(f"It had {uncounted}.")
    for finetune in analysis.finetunes:
        model = by_label[finetune.label]
        mean = _mean_words(model.summary, questions).replace(" of 10", "", 1)
        paired = paired_words(results.base, finetune.label, finetune.difference)
        parts.append(f"The fine-tune '{finetune.label}' {mean}. {paired[0].upper()}{paired[1:]}.")
        if finetune.pairwise is not None:
            pw = finetune.pairwise
            bias = "–" if pw.position_bias_rate is None else f"{pw.position_bias_rate:.0%}"
            parts.append(
                f"Judged side by side it won {pw.wins}, tied {pw.ties} and lost {pw.losses} of "
                f"{plural(pw.n_pairs, 'pair')} ({pw.unknown} unknown; the judge's position bias {bias})."
            )
        facts = finetune.kind_differences.get("binary")
        reasoning = finetune.kind_differences.get("reasoning")
        parts.append(
            f"On binary facts its share of points moved by {fmt(facts.mean_difference if facts else None)} "
            f"({facts.verdict if facts else 'no binary components'}), on reasoning by "
            f"{fmt(reasoning.mean_difference if reasoning else None)} ({reasoning.verdict if reasoning else '–'}): "
            f"{finetune.reading}."
        )
        if uncounted := _uncounted_words(model.counts):
            parts.append(f"It had {uncounted}.")
    return " ".join(parts)
