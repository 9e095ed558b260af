"""One reading per fine-tune: the evidence on one page, and a plain verdict.

The results view's Reading tab, the PDF's reading pages and ``gtreview results --json``
all show what :func:`fine_tune_readings` returns, so the three never say different things.
Each reading gathers what the pass holds about one fine-tune against the base: the score
change (clustered by source document and by question) with the noise of each mean split
into sampling and judge parts, the gate change (McNemar), fact against reasoning points,
the membership AUCs kept with the pass, the paraphrase drop, and the judge gate. The
verdict's rules are in :mod:`gtreview.results.reading_rules`.

Inputs computed elsewhere come in as arguments: ``noise`` (per model the split of its
score's standard error into sampling and judge parts, from judge repeats), ``paraphrase``
(per fine-tune its drop under paraphrase) and the judge gate (decided by the application
layer, which this package may not import).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel

from gtreview.core.stats import LEVEL, Difference, Interval, NoiseSplit, RateSummary, noise_split
from gtreview.core.wording import plural
from gtreview.results.absence import EMPTY, why_no_difference
from gtreview.results.analysis import FinetuneFigures, RunAnalysis
from gtreview.results.design import FinetuneDesign
from gtreview.results.design_text import mcnemar_reading, num, with_interval
from gtreview.results.loader import RunResults
from gtreview.results.membership_text import membership_of
from gtreview.results.noise import NoiseReport
from gtreview.results.paraphrase import ParaphraseReport
from gtreview.results.reading_rules import (
    MIN_QUESTIONS,
    Evidence,
    Finding,
    Verdict,
    agreeing,
    decide,
    finding,
)
from gtreview.runs.membership import base_confounds

READING_HEADER = ["Evidence", f"Figures ({LEVEL:.0%} intervals)", "What it says"]
READING_CAPTION = (
    f"A claim is made only where its {LEVEL:.0%} interval excludes no change (0, or 1/2 for an AUC). Its strength is "
    "weak, moderate or strong as the interval's bound nearest no change keeps less than a quarter, a quarter, or half "
    "of the estimate's distance from it (about p < 0.05, 0.01, 0.0001), and is at most moderate below 10 independent "
    "units (source documents, passages' documents, paraphrase pairs), weak below 5. Standard errors are those of each "
    "model's mean on these questions; the intervals also resample the questions."
)
NOT_MEASURED_MEMBERSHIP = (
    "not measured: no membership tests kept with this pass (gtreview probe --run ID --members GLOB --held-out GLOB)"
)
NOT_MEASURED_PARAPHRASE = "not measured: no paraphrased variants"
NOT_MEASURED_JUDGE = "not measured (one verdict per answer)"
NO_VARIATION = "no variation: no change on any question (as at a floor), so the interval says nothing"


class ParaphraseInput(BaseModel):
    """One fine-tune's paraphrase test, in points of 10: a drop is the score on a question's
    original wording less that on its paraphrases (positive: it loses under paraphrase)."""

    finetune_drop: float | None
    base_drop: float | None
    difference: float | None  # the fine-tune's drop less the base's: what memorised wording costs it
    ci: Interval | None
    n_pairs: int


class ReadingLine(BaseModel):
    topic: str
    figures: str
    reading: str


class FineTuneReading(BaseModel):
    label: str
    base: str
    interval_level: float = LEVEL
    heading: str
    verdict: Verdict
    lines: list[ReadingLine]
    evidence: Evidence
    noise: dict[str, NoiseSplit]  # the fine-tune's and the base's, as the noise line reads them
    judge_noise_measured: bool


def sampling_noise(scores: npt.ArrayLike) -> NoiseSplit:
    """The noise of a model's mean from a (Q, K) score matrix with one verdict per answer.

    There judge and sampling noise are confounded, and ``noise_split`` of (Q, K, 1) rightly
    estimates neither. Read as (Q, 1, K), the spread of a question's K answers is both
    together: reported as sampling noise, with the judge's part not measured.
    """
    split = noise_split(np.asarray(scores, dtype=np.float64)[:, None, :])
    return NoiseSplit(
        question_variance=None,
        sampling_variance=split.judge_variance,
        judge_variance=None,
        se_sampling=split.se_judge,
        se_judge=None,
        se_measurement=split.se_judge,
        se_total=None,
        n_questions=split.n_questions,
        n_answers=split.n_verdicts,
        n_verdicts=split.n_verdicts,
    )


def _moved(found: Finding, up: str, down: str, none: str) -> str:
    if found.side == "undefined":
        return "no interval (too few questions or documents)"
    if found.side == "constant":
        return NO_VARIATION
    words = {"up": up, "down": down, "none": none}[found.side]
    return f"{words} ({found.strength})" if found.strength else words


def _score(
    figures: FinetuneFigures, design: FinetuneDesign | None, base: str, units: int
) -> tuple[Finding, ReadingLine]:
    paired = figures.difference
    by_question = with_interval(paired.mean_difference, paired.ci, signed=True)
    parts = []
    found = [finding(paired.mean_difference, paired.ci, units=units, figure=by_question)]
    if design is not None:
        clustered = design.clustered
        shown = with_interval(clustered.mean_difference, clustered.ci, signed=True)
        parts.append(f"clustered by {plural(clustered.n_clusters, 'source document')}: {shown}")
        clustered_finding = finding(clustered.mean_difference, clustered.ci, units=units, figure=shown)
        found.insert(0, clustered_finding)
    parts.append(f"by question: {by_question} over {paired.n_questions} questions")
    score = agreeing(*found)
    if score.side != "undefined" and found[0].side != "undefined":
        score = score.model_copy(update={"figure": found[0].figure})  # the verdict cites the clustered figure
    line = ReadingLine(
        topic="Score change",
        figures="; ".join(parts) + " (points of 10)",
        reading=_moved(
            score, f"higher than {base}", f"lower than {base}", "within noise: not every interval excludes 0"
        ),
    )
    return score, line


def _noise_line(label: str, base: str, splits: Mapping[str, NoiseSplit], judged: set[str]) -> ReadingLine:
    """``judged``: the models whose split came from judge repeats."""

    def part(model: str) -> str:
        split = splits[model]
        judge = num(split.se_judge) if model in judged else NOT_MEASURED_JUDGE
        return f"{model} sampling {num(split.se_sampling)}, judge {judge}"

    measured = {label, base} <= judged

    def combined(attribute: str) -> float | None:
        values = [getattr(splits[m], attribute) for m in (label, base)]
        return None if any(v is None for v in values) else math.sqrt(sum(v * v for v in values))

    sampling, judge = combined("se_sampling"), combined("se_judge")
    figures = f"standard errors of each mean: {part(label)}; {part(base)}"
    if not measured:
        reading = "the answers' spread includes the judge's; one verdict per answer cannot tell them apart"
    elif sampling is not None and judge is not None and sampling + judge > 0:
        share = judge * judge / (sampling * sampling + judge * judge)
        figures += f"; of the difference: sampling {num(sampling)}, judge {num(judge)}"
        reading = f"the judge makes {share:.0%} of the difference's measurement variance"
    else:
        reading = "too few answers or verdicts to split the noise"
    return ReadingLine(topic="Noise in the score", figures=figures, reading=reading)


def _rate(rate: RateSummary) -> str:
    return with_interval(rate.rate, rate.ci)


def _gate_line(
    label: str, base: str, rates: Mapping[str, RateSummary], design: FinetuneDesign | None, repeats: int
) -> ReadingLine:
    figures = f"pass rate {base} {_rate(rates[base])}, {label} {_rate(rates[label])}"
    reading = mcnemar_reading(design.mcnemar, repeats) if design is not None else "no paired gate test"
    return ReadingLine(topic="Gate", figures=figures, reading=reading)


def _kind(kinds: Mapping[str, Difference], kind: str, units: int, empty: str) -> Finding:
    difference = kinds.get(kind)
    if difference is None or difference.n_questions == 0:
        return Finding(side="undefined", figure=empty)  # why there is nothing to read (results.absence)
    shown = with_interval(difference.mean_difference, difference.ci, signed=True)
    return finding(difference.mean_difference, difference.ci, units=min(units, difference.n_questions), figure=shown)


def _components_line(facts: Finding, reasoning: Finding, gate: Finding) -> ReadingLine:
    def moved(name: str, found: Finding) -> str:
        if found.figure in EMPTY:
            return f"{name}: {found.figure}"
        return f"{name} " + _moved(found, "rose", "fell", "within noise")

    return ReadingLine(
        topic="Facts versus reasoning",
        figures=f"share of points, fine-tune − base: binary facts {facts.figure}; reasoning {reasoning.figure}; "
        f"gate {gate.figure}",
        reading=f"{moved('facts', facts)}; {moved('reasoning', reasoning)}",
    )


def _membership(results: RunResults, label: str) -> tuple[Finding | None, ReadingLine]:
    report = membership_of(results)
    model = next((m for m in report.models if m.label == label), None) if report is not None else None
    if report is None or model is None:
        return None, ReadingLine(topic="Membership", figures="–", reading=NOT_MEASURED_MEMBERSHIP)
    reference = next((a for a in model.aucs if a.signal == "reference"), None)
    units = min(len(report.member_documents), len(report.held_out_documents))
    sides = (
        f"{report.n_members} / {report.n_held_out} passages of {len(report.member_documents)} / "
        f"{len(report.held_out_documents)} documents (trained on / held out)"
    )
    if reference is None:
        return Finding(side="undefined"), ReadingLine(topic="Membership", figures=sides, reading="no reference ratio")
    result = reference.result
    shown = with_interval(result.auc, result.ci)
    found = finding(result.auc, result.ci, units=units, figure=f"AUC {shown}", null=0.5)
    others = sorted(
        (a for a in model.aucs if a.signal != "reference" and a.result.auc is not None),
        key=lambda a: -(a.result.auc or 0.0),
    )
    figures = [f"reference ratio AUC {shown} (the signal the verdict reads)"]
    figures += [f"also {others[0].name} {with_interval(others[0].result.auc, others[0].result.ci)}"] if others else []
    reading = reference.reading
    if base_confounds(report.models):
        reading += "; the base separates the split too, so only the reference ratio counts"
    return found, ReadingLine(topic="Membership", figures="; ".join([*figures, sides]), reading=reading)


def _paraphrase(test: ParaphraseInput | None, label: str, base: str) -> tuple[Finding | None, ReadingLine]:
    if test is None:
        return None, ReadingLine(topic="Paraphrase", figures="–", reading=NOT_MEASURED_PARAPHRASE)
    shown = with_interval(test.difference, test.ci, signed=True)
    figures = (
        f"drop under paraphrase: {label} {num(test.finetune_drop, signed=True)}, {base} "
        f"{num(test.base_drop, signed=True)}; extra drop {shown} over {test.n_pairs} pairs (points of 10)"
    )
    if test.n_pairs < MIN_QUESTIONS:
        reading = f"too few paraphrased pairs to read ({test.n_pairs}; {MIN_QUESTIONS} needed)"
        return Finding(side="undefined", figure=shown), ReadingLine(
            topic="Paraphrase", figures=figures, reading=reading
        )
    found = finding(test.difference, test.ci, units=test.n_pairs, figure=shown)
    reading = _moved(
        found,
        f"loses more than {base} under paraphrase: its score leans on the source's wording",
        f"loses less than {base} under paraphrase",
        f"keeps its score under paraphrase as {base} does",
    )
    return found, ReadingLine(topic="Paraphrase", figures=figures, reading=reading)


JUDGED_TOPICS = ("Score change", "Facts versus reasoning", "Paraphrase")  # figures that are judged scores
NOT_READ = "not read (no gated judge); as measured"
UNREAD_BY_JUDGE = "no judged figure here is read, only the membership test"


def _judge_line(gated: bool | None, line: str) -> ReadingLine:
    if gated is None:
        return ReadingLine(topic="Judge", figures="–", reading=f"gate not checked: {UNREAD_BY_JUDGE}")
    reading = "gated: its figures count" if gated else f"NOT gated: {UNREAD_BY_JUDGE}"
    return ReadingLine(topic="Judge", figures=line or "–", reading=reading)


def _unread(line: ReadingLine, gated: bool | None) -> ReadingLine:
    """A judged figure's line under a judge that may be noise: its figures stay, its
    words say they are not read (the verdict does not read them either)."""
    if gated is True or line.topic not in JUDGED_TOPICS or line.figures == "–":
        return line
    return line.model_copy(update={"reading": f"{NOT_READ}: {line.reading}"})


def noise_inputs(report: NoiseReport | None) -> dict[str, NoiseSplit]:
    """Per model the split of its noise from the pass's judge repeats (the Noise tab's
    figures); a model judged once per answer is left out and read as sampling noise."""
    if report is None:
        return {}
    return {model.model: model.split for model in report.models if model.judge_measured}


def paraphrase_inputs(report: ParaphraseReport | None) -> dict[str, ParaphraseInput]:
    """Per fine-tune its paraphrase test as the reading takes it, from the pass's paraphrase
    report (the same figures its Paraphrase tab and PDF section print); none without paraphrases."""
    if report is None or not report.measured:
        return {}
    base = report.for_model(report.base)
    return {
        model.label: ParaphraseInput(
            finetune_drop=model.drop,
            base_drop=base.drop if base is not None else None,
            difference=model.versus_base.difference,
            ci=model.versus_base.ci,
            n_pairs=model.versus_base.n_pairs,
        )
        for model in report.models
        if not model.is_base and model.versus_base is not None
    }


def fine_tune_readings(
    results: RunResults,
    analysis: RunAnalysis,
    *,
    noise: Mapping[str, NoiseSplit] | None = None,
    paraphrase: Mapping[str, ParaphraseInput] | None = None,
    judge_gated: bool | None = None,
    judge_line: str = "",
) -> list[FineTuneReading]:
    """One reading per fine-tune (the base has none), in the pass's model order.

    ``noise`` gives a model's split from judge repeats; a model missing from it gets
    :func:`sampling_noise` of its scores, judge noise not measured. ``noise`` and
    ``paraphrase`` default to the pass's own reports (``analysis.noise``, ``analysis.paraphrase``). ``judge_gated`` is
    the judge gate's decision (None: not checked) and ``judge_line`` its sentence.
    """
    if noise is None:
        noise = noise_inputs(analysis.noise)
    if paraphrase is None:
        paraphrase = paraphrase_inputs(analysis.paraphrase)
    base = results.base
    designs = {d.label: d for d in analysis.design.finetunes} if analysis.design is not None else {}
    rates = {m.label: m.gate for m in analysis.models}
    splits = {m: (noise or {}).get(m) or sampling_noise(results.score_matrix(m)) for m in results.models}
    readings = []
    for figures in analysis.finetunes:
        label = figures.label
        design = designs.get(label)
        units = design.clustered.n_clusters if design is not None else figures.difference.n_questions
        score, score_line = _score(figures, design, base, units)
        facts, reasoning, gate_share = (
            _kind(figures.kind_differences, k, units, why_no_difference(results, (label, base), k))
            for k in ("binary", "reasoning", "gate")
        )
        membership, membership_line = _membership(results, label)
        para, para_line = _paraphrase(paraphrase.get(label), label, base)
        judged = {m for m in (label, base) if m in (noise or {}) and splits[m].se_judge is not None}
        evidence = Evidence(
            label=label,
            base=base,
            n_questions=figures.difference.n_questions,
            mean_finetune=figures.difference.mean_finetune,
            mean_base=figures.difference.mean_base,
            score=score,
            facts=facts,
            reasoning=reasoning,
            membership=membership,
            paraphrase=para,
            judge_gated=judge_gated,
        )
        readings.append(
            FineTuneReading(
                label=label,
                base=base,
                heading=f"Reading: {label} against {base}",
                verdict=decide(evidence),
                lines=[
                    _unread(line, judge_gated)
                    for line in (
                        score_line,
                        _noise_line(label, base, splits, judged),
                        _gate_line(label, base, rates, design, results.repeats),
                        _components_line(facts, reasoning, gate_share),
                        membership_line,
                        para_line,
                        _judge_line(judge_gated, judge_line),
                    )
                ],
                evidence=evidence,
                noise={m: splits[m] for m in (label, base)},
                judge_noise_measured={label, base} <= judged,
            )
        )
    return readings


def reading_rows(reading: FineTuneReading) -> list[list[str]]:
    """The evidence table's rows, as the view and the PDF print them."""
    return [[line.topic, line.figures, line.reading] for line in reading.lines]
