"""Judge noise apart from model noise, per model and per question, from a pass's J verdicts.

A model's score moves for two reasons on a fixed question set: it says something
different on another sample (sampling noise, K answers per question) and the judge says
something different about the same answer (judge noise, J verdicts per answer). With
J judge repeats stored in the pass the two are split (``gtreview.core.stats.noise``) and
the judge's agreement with itself is read (``gtreview.core.stats.retest``). The score of
record is still verdict 0: the repeats measure the judge and change no other figure.
"""

from __future__ import annotations

from pydantic import BaseModel

from gtreview.core.stats import (
    GateRetest,
    IccResult,
    NoiseSplit,
    QuestionNoise,
    gate_retest,
    noise_per_question,
    noise_split,
    verdict_icc,
)
from gtreview.results.loader import RunResults


class JudgeRetest(BaseModel):
    """The judge against itself on the same answers: totals (ICC(1,1)) and the gate."""

    totals: IccResult
    gate: GateRetest


class ModelNoise(BaseModel):
    model: str
    split: NoiseSplit  # sampling vs judge variance, and what each does to the model mean's SE
    questions: list[QuestionNoise]  # in the order of NoiseReport.question_ids
    retest: JudgeRetest
    judge_measured: bool  # False with one verdict per answer: judge noise not measured


class NoiseReport(BaseModel):
    judge_repeats: int  # J, verdicts asked per answer
    repeat_mode: str  # "shuffled" (component order) or "seeded" (judge seed + j)
    question_ids: list[str]  # QuestionNoise.index -> question id
    models: list[ModelNoise]

    def for_model(self, label: str) -> ModelNoise | None:
        return next((m for m in self.models if m.model == label), None)

    @property
    def judge_measured(self) -> bool:
        return any(m.judge_measured for m in self.models)


def model_noise(results: RunResults, model: str) -> ModelNoise:
    """One model's split, from the judge's own verdicts (``RunResults.verdict_cube``)."""
    cube, gates = results.verdict_cube(model), results.gate_cube(model)
    retest = JudgeRetest(totals=verdict_icc(cube), gate=gate_retest(gates))
    return ModelNoise(
        model=model,
        split=noise_split(cube),
        questions=noise_per_question(cube),
        retest=retest,
        # measured where some answer has two verdicts or more, not merely where J > 1 was asked
        judge_measured=results.judge_repeats > 1 and retest.totals.n_answers > 0,
    )


def noise_report(results: RunResults) -> NoiseReport:
    return NoiseReport(
        judge_repeats=results.judge_repeats,
        repeat_mode=results.config.judge_repeat_mode,
        question_ids=[q.id for q in results.questions],
        models=[model_noise(results, model) for model in results.models],
    )


__all__ = ["JudgeRetest", "ModelNoise", "NoiseReport", "model_noise", "noise_report"]
