"""One reading per fine-tune, gathered from a scripted pass over the sample project (the
design figures' pass: three models, ten questions over eight documents, four answers
each), with the inputs other parts supply (judge repeats, paraphrase drops, membership
tests, the judge gate) given as they would be."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gtreview.core.stats import Interval, NoiseSplit, noise_split
from gtreview.core.stats.membership import AucResult
from gtreview.results.analysis import RunAnalysis
from gtreview.results.design_text import mcnemar_reading, num, span, with_interval
from gtreview.results.loader import RunResults
from gtreview.results.reading import (
    NOT_MEASURED_JUDGE,
    NOT_MEASURED_MEMBERSHIP,
    NOT_MEASURED_PARAPHRASE,
    FineTuneReading,
    ParaphraseInput,
    fine_tune_readings,
    sampling_noise,
)
from gtreview.runs.membership import MembershipReport, ModelMembership, SignalAuc, auc_reading
from tests.results.test_design import REPEATS, design_run

__all__ = ["design_run"]  # the module-scoped pass, shared with the design figures' tests


def lines(reading: FineTuneReading) -> dict[str, str]:
    return {line.topic: f"{line.figures} | {line.reading}" for line in reading.lines}


def test_one_reading_per_fine_tune_from_the_passes_own_figures(design_run: tuple[RunResults, RunAnalysis]) -> None:
    results, analysis = design_run
    readings = fine_tune_readings(results, analysis)
    assert [r.label for r in readings] == ["tuned", "other"]  # the base has none
    assert analysis.design is not None
    for reading, figures, design in zip(readings, analysis.finetunes, analysis.design.finetunes, strict=True):
        by_topic = lines(reading)
        clustered = f"{num(design.clustered.mean_difference, signed=True)} {span(design.clustered.ci)}"
        assert f"clustered by 8 source documents: {clustered}" in by_topic["Score change"]
        paired = with_interval(figures.difference.mean_difference, figures.difference.ci, signed=True)
        assert f"by question: {paired} over 10 questions" in by_topic["Score change"]
        assert by_topic["Gate"].endswith(mcnemar_reading(design.mcnemar, REPEATS))
        reasoning = figures.kind_differences["reasoning"]
        assert (
            f"reasoning {with_interval(reasoning.mean_difference, reasoning.ci, signed=True)}"
            in by_topic["Facts versus reasoning"]
        )
        assert "binary facts none in these questions" in by_topic["Facts versus reasoning"]  # the sample has none
        assert by_topic["Membership"] == f"– | {NOT_MEASURED_MEMBERSHIP}"
        assert by_topic["Paraphrase"] == f"– | {NOT_MEASURED_PARAPHRASE}"
        assert reading.verdict.text.startswith("Provisional: the judge gate was not checked for this pass")
        assert reading.evidence.score.figure == clustered  # the verdict cites the clustered figure
    tuned, other = fine_tune_readings(results, analysis, judge_gated=True)
    # tuned: higher by over 4 points with reasoning up, eight documents cap the strength at moderate
    assert tuned.evidence.score.side == "up" and tuned.evidence.reasoning.side == "up"
    assert tuned.verdict.kind == "learned the reasoning" and tuned.verdict.strength == "moderate"
    assert other.evidence.score.side == "down" and other.verdict.kind == "scores lower"


def test_a_pass_without_a_fine_tune_has_no_reading(design_run: tuple[RunResults, RunAnalysis]) -> None:
    results, analysis = design_run
    alone = analysis.model_copy(update={"finetunes": []})
    assert fine_tune_readings(results, alone) == []


def test_without_judge_repeats_the_noise_is_the_answers_spread(design_run: tuple[RunResults, RunAnalysis]) -> None:
    results, analysis = design_run
    tuned = fine_tune_readings(results, analysis)[0]
    for model in ("tuned", "base"):
        scores = results.score_matrix(model)
        assert np.isfinite(scores).all()
        # pooled within-question variance over K answers, per question mean of K, mean of Q questions
        expected = math.sqrt(float(np.var(scores, axis=1, ddof=1).mean()) / REPEATS / scores.shape[0])
        split = tuned.noise[model]
        assert split.se_sampling == pytest.approx(expected)
        assert split.se_judge is None and split.judge_variance is None
    assert not tuned.judge_noise_measured
    noise = lines(tuned)["Noise in the score"]
    assert f"tuned sampling {num(tuned.noise['tuned'].se_sampling)}, judge {NOT_MEASURED_JUDGE}" in noise
    assert "one verdict per answer cannot tell them apart" in noise
    # a (Q, K, 1) split estimates neither part: the spread must be read as (Q, 1, K)
    assert noise_split(results.score_matrix("tuned")[:, :, None]).se_sampling is None
    assert sampling_noise(results.score_matrix("tuned")) == tuned.noise["tuned"]


def test_judge_repeats_split_the_difference_s_noise(design_run: tuple[RunResults, RunAnalysis]) -> None:
    results, analysis = design_run
    rng = np.random.default_rng(3)
    noise: dict[str, NoiseSplit] = {
        model: noise_split(
            results.score_matrix(model)[:, :, None] + rng.normal(0, 0.5 if model == "tuned" else 0.3, (10, REPEATS, 3))
        )
        for model in ("base", "tuned")
    }
    tuned, other = fine_tune_readings(results, analysis, noise=noise)
    assert tuned.judge_noise_measured and not other.judge_noise_measured  # other has no judge repeats
    ft, bs = noise["tuned"], noise["base"]
    assert ft.se_judge is not None and bs.se_judge is not None and ft.se_sampling is not None
    assert bs.se_sampling is not None
    sampling, judge = math.hypot(ft.se_sampling, bs.se_sampling), math.hypot(ft.se_judge, bs.se_judge)
    text = lines(tuned)["Noise in the score"]
    assert f"tuned sampling {num(ft.se_sampling)}, judge {num(ft.se_judge)}" in text
    assert f"of the difference: sampling {num(sampling)}, judge {num(judge)}" in text
    assert f"the judge makes {judge**2 / (sampling**2 + judge**2):.0%} of the difference's measurement variance" in text
    assert f"base sampling {num(bs.se_sampling)}, judge {num(bs.se_judge)}" in lines(other)["Noise in the score"]
    assert (
        f"other sampling {num(other.noise['other'].se_sampling)}, judge {NOT_MEASURED_JUDGE}"
        in lines(other)["Noise in the score"]
    )


def _membership(reference: AucResult, base_loss: AucResult) -> dict[str, object]:
    def auc(signal: str, name: str, result: AucResult) -> SignalAuc:
        return SignalAuc.model_validate(
            {
                "signal": signal,
                "name": name,
                "member_side": "low",
                "result": result,
                "reading": auc_reading(name, result),
            }
        )

    report = MembershipReport(
        k=0.2,
        n_members=30,
        n_held_out=30,
        member_documents=[f"m{i}" for i in range(6)],
        held_out_documents=[f"h{i}" for i in range(6)],
        base="base",
        models=[
            ModelMembership(label="base", is_base=True, aucs=[auc("loss", "Loss", base_loss)], passages=[]),
            ModelMembership(
                label="tuned",
                is_base=False,
                aucs=[auc("loss", "Loss", base_loss), auc("reference", "Reference ratio", reference)],
                passages=[],
            ),
        ],
        readings=[],
    )
    return {"membership": report.model_dump(mode="json")}


def test_a_membership_auc_above_one_half_is_memorisation(design_run: tuple[RunResults, RunAnalysis]) -> None:
    results, analysis = design_run
    separating = AucResult(auc=0.8, ci=Interval(low=0.7, high=0.9), n_members=30, n_non_members=30, n_missing=0)
    chance = AucResult(auc=0.5, ci=Interval(low=0.4, high=0.6), n_members=30, n_non_members=30, n_missing=0)
    probed = results.model_copy(update={"probes": _membership(separating, chance)})
    tuned, other = fine_tune_readings(probed, analysis, judge_gated=True)
    membership = lines(tuned)["Membership"]
    assert (
        "reference ratio AUC 0.80 [0.70, 0.90] (the signal the verdict reads); also Loss 0.50 [0.40, 0.60]"
        in membership
    )
    assert "30 / 30 passages of 6 / 6 documents (trained on / held out)" in membership
    assert "Reference ratio separates training from held-out documents" in membership
    assert tuned.evidence.membership is not None and tuned.evidence.membership.side == "up"
    assert tuned.evidence.membership.strength == "moderate"  # six documents a side
    assert tuned.verdict.kind == "mixed"  # reasoning rose too: learned and memorised both supported
    assert lines(other)["Membership"] == f"– | {NOT_MEASURED_MEMBERSHIP}"  # not among the tested models

    confounded = results.model_copy(update={"probes": _membership(chance, separating)})
    tuned = fine_tune_readings(confounded, analysis, judge_gated=True)[0]
    assert "the base separates the split too, so only the reference ratio counts" in lines(tuned)["Membership"]
    assert tuned.evidence.membership is not None and tuned.evidence.membership.side == "none"
    assert tuned.verdict.kind == "learned the reasoning"  # a loss-type AUC alone proves nothing


def test_a_paraphrase_drop_beyond_the_base_s_is_memorised_wording(design_run: tuple[RunResults, RunAnalysis]) -> None:
    results, analysis = design_run
    drop = ParaphraseInput(finetune_drop=1.5, base_drop=0.3, difference=1.2, ci=Interval(low=0.6, high=1.8), n_pairs=10)
    tuned = fine_tune_readings(results, analysis, paraphrase={"tuned": drop}, judge_gated=True)[0]
    assert (
        "drop under paraphrase: tuned +1.50, base +0.30; extra drop +1.20 [0.60, 1.80] over 10 pairs"
        in lines(tuned)["Paraphrase"]
    )
    assert "loses more than base under paraphrase" in lines(tuned)["Paraphrase"]
    assert tuned.verdict.kind == "memorised" and tuned.verdict.strength == "strong"

    kept = drop.model_copy(update={"difference": 0.1, "ci": Interval(low=-0.4, high=0.6)})
    tuned = fine_tune_readings(results, analysis, paraphrase={"tuned": kept}, judge_gated=True)[0]
    assert tuned.verdict.kind == "learned the reasoning" and "a paraphrase does not take the gain away" in (
        tuned.verdict.claim
    )
    few = drop.model_copy(update={"n_pairs": 3})
    tuned = fine_tune_readings(results, analysis, paraphrase={"tuned": few}, judge_gated=True)[0]
    assert "too few paraphrased pairs to read (3; 5 needed)" in lines(tuned)["Paraphrase"]
    assert tuned.verdict.kind == "learned the reasoning" and tuned.verdict.strength == "moderate"


def test_the_judge_gate_decides_whether_the_scores_are_read(design_run: tuple[RunResults, RunAnalysis]) -> None:
    results, analysis = design_run
    gated = fine_tune_readings(results, analysis, judge_gated=True, judge_line="Judge gated: all reproduced.")[0]
    assert not gated.verdict.provisional and gated.verdict.text == gated.verdict.claim
    assert gated.verdict.kind == "learned the reasoning"
    assert lines(gated)["Judge"] == "Judge gated: all reproduced. | gated: its figures count"
    for judge_gated, judge_line in (
        (False, "Judge NOT gated: fixtures missed: A1 (1 of 4 fixtures reproduced)."),
        (None, ""),
    ):
        ungated = fine_tune_readings(results, analysis, judge_gated=judge_gated, judge_line=judge_line)[0]
        # the same figures, but a judge that may be noise: no claim rests on them
        assert ungated.verdict.kind == "cannot tell" and ungated.verdict.provisional
        assert ungated.verdict.text == f"{ungated.verdict.caveat} {ungated.verdict.claim}"
        assert "so none of them is read" in ungated.verdict.claim
        by_topic = {line.topic: line for line in ungated.lines}
        for topic in ("Score change", "Facts versus reasoning"):
            shown = {line.topic: line for line in gated.lines}[topic]
            assert by_topic[topic].figures == shown.figures  # the figures are still shown
            assert by_topic[topic].reading == f"not read (no gated judge); as measured: {shown.reading}"
        assert by_topic["Judge"].reading.endswith("no judged figure here is read, only the membership test")
