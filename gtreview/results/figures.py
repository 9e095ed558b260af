"""The figures of a run as one typed value: what the results view shows and
``gtreview results --json`` prints, from the one loader and its analysis."""

from __future__ import annotations

from pydantic import BaseModel

from gtreview.core.stats import LEVEL
from gtreview.results.analysis import RunAnalysis, paired_words
from gtreview.results.counts import SampleCounts
from gtreview.results.design import DesignFigures
from gtreview.results.loader import RunResults
from gtreview.results.noise import NoiseReport
from gtreview.results.noise_text import NoiseText, noise_text
from gtreview.results.paraphrase import ParaphraseReport
from gtreview.results.rows import PairCounts, QuestionFigures, pair_counts, question_figures
from gtreview.runs.statuses import RunSource, RunStatus


class ModelFigures(SampleCounts):
    """A model's figures, and its samples counted by the names of ``results.counts``."""

    label: str
    mean: float | None
    ci_low: float | None
    ci_high: float | None
    sd: float | None  # spread across repeats (see ScoreSummary)
    gate_pass_rate: float | None
    n_questions: int  # the questions its mean covers (those with a counted sample)
    samples: int


class DifferenceFigures(BaseModel):
    """A fine-tune minus the base, paired by question (the view's difference chart)."""

    finetune: str
    base: str
    mean_difference: float | None
    mean_base: float | None = None  # the two means the difference is made of: over the questions
    mean_finetune: float | None = None  # both have a counted answer for (n_questions), not each model's own
    n_questions: int = 0
    paired: str = ""  # those figures in words, as the headline gives them
    ci_low: float | None
    ci_high: float | None
    p_value: float | None  # paired permutation test
    verdict: str
    reading: str  # learned or recited: "reasons better", "recites more, reasons no better", ...


class PairwiseFigures(BaseModel):
    finetune: str
    base: str
    counts: PairCounts
    position_bias_rate: float | None
    mean_average: float | None
    judged: bool = False  # the pass asked for pairwise verdicts and has some (False: --no-pairwise, or none yet)
    absent: str = ""  # when not judged, why: not run in this pass, not judged yet, or not in the imported files


def pairwise_absent(results: RunResults) -> str:
    """Why a run shows no pairwise verdicts: the view, the PDF and the CLI say it in these words."""
    if results.source is RunSource.HARNESS:
        return "not in the imported files"
    if not results.config.pairwise:
        return "not run in this pass"
    return "not judged yet"


class RunFigures(BaseModel):
    run_id: int
    name: str
    source: RunSource
    status: RunStatus
    shown_status: str = ""  # as every view shows it: a running run whose process is gone reads as interrupted
    interval_level: float = LEVEL
    repeats: int
    models: list[ModelFigures]
    differences: list[DifferenceFigures]
    questions: list[QuestionFigures]
    pairwise: list[PairwiseFigures]
    design: DesignFigures | None = None  # clustered difference, McNemar, pass^k, Bradley-Terry, length
    paraphrase: ParaphraseReport | None = None  # the drop under paraphrase, with its plain reading
    judge_repeats: int = 1  # J verdicts per answer; verdict 0 is the score of record
    noise: NoiseReport | None = None  # judge noise apart from model noise
    noise_reading: NoiseText | None = None  # the words the view and the PDF show for it


def run_figures(results: RunResults, analysis: RunAnalysis) -> RunFigures:
    models = []
    for figures in analysis.models:
        counts = figures.counts
        ci = figures.summary.ci
        models.append(
            ModelFigures(
                label=figures.label,
                mean=figures.summary.mean,
                ci_low=ci.low if ci else None,
                ci_high=ci.high if ci else None,
                sd=figures.summary.sd,
                gate_pass_rate=figures.gate.rate,
                n_questions=figures.summary.n_questions,
                samples=counts.planned(),
                **counts.model_dump(),
            )
        )
    pairwise = [
        PairwiseFigures(
            finetune=f.label,
            base=results.base,
            counts=pair_counts(results, f.label),
            position_bias_rate=f.pairwise.position_bias_rate if f.pairwise else None,
            mean_average=f.pairwise.mean_average if f.pairwise else None,
            judged=f.pairwise is not None,
            absent="" if f.pairwise is not None else pairwise_absent(results),
        )
        for f in analysis.finetunes
    ]
    differences = [
        DifferenceFigures(
            finetune=f.label,
            base=results.base,
            mean_difference=f.difference.mean_difference,
            mean_base=f.difference.mean_base,
            mean_finetune=f.difference.mean_finetune,
            n_questions=f.difference.n_questions,
            paired=paired_words(results.base, f.label, f.difference),
            ci_low=f.difference.ci.low if f.difference.ci else None,
            ci_high=f.difference.ci.high if f.difference.ci else None,
            p_value=f.difference.p_value,
            verdict=f.difference.verdict,
            reading=f.reading,
        )
        for f in analysis.finetunes
    ]
    return RunFigures(
        run_id=results.run_id,
        name=results.name,
        source=results.source,
        status=results.status,
        shown_status=results.shown_status,
        repeats=results.repeats,
        models=models,
        differences=differences,
        questions=question_figures(results),
        pairwise=pairwise,
        design=analysis.design,
        paraphrase=analysis.paraphrase,
        judge_repeats=results.judge_repeats,
        noise=analysis.noise,
        noise_reading=noise_text(analysis.noise) if analysis.noise is not None else None,
    )
