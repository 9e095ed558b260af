"""Judge noise and model noise in words and table rows: one text for the results view,
the PDF report and ``gtreview results --json`` (all three call ``noise_text``)."""

from __future__ import annotations

from pydantic import BaseModel

from gtreview.results.analysis import fmt
from gtreview.results.noise import ModelNoise, NoiseReport

NOISE_HEADING = "Judge noise apart from model noise"
NOISE_HEADER = ["Model", "Question", "Mean /10", "Sampling variance", "Judge variance", "Answers", "Verdicts"]
NOISIEST = 10  # questions per model in the table: those the judge is least sure of
MODES = {
    "shuffled": "the rubric's scored components shown in another order each time",
    "seeded": "the judge's sampling seed changed each time",
}


class NoiseText(BaseModel):
    heading: str = NOISE_HEADING
    summary: str
    readings: list[str]  # one per model
    header: list[str] = NOISE_HEADER
    rows: list[list[str]]  # the noisiest questions of each model (empty when not measured)
    caption: str


def _summary(report: NoiseReport) -> str:
    record = (
        "The score of record is the judge's first verdict (or an expert's override): the repeats measure the judge "
        "and change no other figure."
    )
    if not report.judge_measured:
        return (
            "Judge noise not measured, one verdict per answer: the spread of a model's score mixes what the model "
            'said (sampling) with what the judge made of it. Run the pass again with "Judge repeats per answer" at 2 '
            "or more in the Run dialog (gtreview run --judge-repeats 2); only the new verdicts are asked for, and "
            "they split the two. " + record
        )
    return (
        f"Each answer was judged {report.judge_repeats} times ({MODES.get(report.repeat_mode, report.repeat_mode)}), "
        "so the spread of a model's score splits into sampling noise (its K answers to a question differ) and judge "
        "noise (the judge's verdicts on one answer differ). Standard errors (SE) are of the model's mean score on "
        "this question set; mean ± 1.96 SE is a 95% normal interval. " + record
    )


def _share(split_judge: float | None, split_sampling: float | None) -> str:
    if split_judge is None or split_sampling is None or split_judge + split_sampling <= 0:
        return ""
    share = split_judge**2 / (split_judge**2 + split_sampling**2)
    if share > 0.5:
        advice = (
            "the judge is the larger source: more verdicts per answer would tighten the figure more than more answers"
        )
    else:
        advice = (
            "sampling is the larger source: more answers per question would tighten the figure more than more verdicts"
        )
    shown = "under 1%" if share < 0.01 else "over 99%" if share > 0.99 else f"{share:.0%}"
    return f" The judge makes {shown} of the measurement variance of the mean; {advice}."


def model_reading(noise: ModelNoise) -> str:
    """One model's noise in a sentence or three."""
    if not noise.judge_measured:
        return f"{noise.model}: judge noise not measured, one verdict per answer."
    split, totals, gate = noise.split, noise.retest.totals, noise.retest.gate
    text = (
        f"{noise.model}: variance between answers to one question (sampling) {fmt(split.sampling_variance)}, between "
        f"verdicts on one answer (judge) {fmt(split.judge_variance)} (points², {split.n_answers} answers, "
        f"{split.n_verdicts} verdicts). On the mean: SE {fmt(split.se_sampling)} from sampling, "
        f"{fmt(split.se_judge)} from the judge, {fmt(split.se_measurement)} together, {fmt(split.se_total)} with a new "
        "draw of questions."
    )
    text += _share(split.se_judge, split.se_sampling)
    text += f" The judge against itself: ICC(1,1) of totals {fmt(totals.icc)} over {totals.n_answers} answers"
    if gate.agreement_rate is not None:
        text += (
            f"; the gate verdicts on one answer all agree for {gate.agreement_rate:.0%} of answers "
            f"(Fleiss' kappa {fmt(gate.fleiss_kappa)})"
        )
    return text + "."


def noise_rows(report: NoiseReport, limit: int = NOISIEST) -> list[list[str]]:
    """Per model, the questions with the largest judge variance (where the judge wavers most)."""
    rows = []
    for noise in report.models:
        if not noise.judge_measured:
            continue
        measured = [q for q in noise.questions if q.judge_variance is not None]
        measured.sort(key=lambda q: (-(q.judge_variance or 0.0), q.index))
        for q in measured[:limit]:
            rows.append(
                [
                    noise.model,
                    report.question_ids[q.index],
                    fmt(q.mean),
                    fmt(q.sampling_variance),
                    fmt(q.judge_variance),
                    str(q.n_answers),
                    str(q.n_verdicts),
                ]
            )
    return rows


def noise_text(report: NoiseReport) -> NoiseText:
    """THE words and rows of the noise figures, wherever they are shown."""
    return NoiseText(
        summary=_summary(report),
        readings=[model_reading(noise) for noise in report.models],
        rows=noise_rows(report),
        caption=(
            f"Per model, the {NOISIEST} questions whose verdicts on one answer differ most (variances in points², "
            "one-way random-effects ANOVA of each question's verdicts; a variance of 0 where it was estimated below 0)."
        ),
    )


__all__ = ["NOISE_HEADER", "NOISE_HEADING", "NoiseText", "model_reading", "noise_rows", "noise_text"]
