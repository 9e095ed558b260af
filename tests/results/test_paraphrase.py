"""Paraphrase invariance, on scripted passes over the sample project.

Two passes of the same three models in one project: one over the sample set's ten
questions, one over those and paraphrases of six of them (two of one, one each of five).
The scripted judge marks the fine-tune ``tuned`` down on a paraphrase and nobody else, so
its drop is real and known in sign, the base's is noise. Every figure of the originals
must be the same in both passes; the drops are checked against numpy on the samples.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest

from gtreview.app.sample_project import ensure_sample_project
from gtreview.core.grading import ComponentKind, component_kind
from gtreview.core.paraphrases import new_paraphrase
from gtreview.core.rubric import Component, Question
from gtreview.core.stats import Interval, clustered_paired_difference
from gtreview.inference.backend import CompletionRequest, CompletionResult, Sampling
from gtreview.report.document import Table
from gtreview.report.run_report import build_report
from gtreview.results.analysis import RunAnalysis, analyse
from gtreview.results.documents import cluster_labels
from gtreview.results.figures import run_figures
from gtreview.results.loader import RunResults, SampleStatus, load_run_results
from gtreview.results.paraphrase import ModelParaphrase, PairedDrop, ParaphraseReport, paraphrase_report
from gtreview.results.paraphrase_text import NOT_MEASURED, paraphrase_readings, paraphrase_summary
from gtreview.runs.plan import ModelEntry, PassConfig
from gtreview.store import runs_repo, sets
from gtreview.store.db import reading
from gtreview.store.project import Project
from tests.judging.scripted import ScriptedBackend, answer_of, verdict_json
from tests.projects import scripted_pass

stats = pytest.importorskip("scipy.stats")  # a test-only dependency (the ``test`` extra)

REPEATS = 3
REWORDED = {"A1": 2, "A2": 1, "A3": 1, "B4": 1, "B5": 1, "C8": 1}  # original -> how many paraphrases
FLAGGED = "A1-p1"  # the base's answers to this paraphrase are flagged for an expert
_QUESTION = re.compile(r"QUESTION (\S+):")


def with_a_fact(question: Question) -> Question:
    """The question with its second component made a binary fact, so every kind has a drop."""
    components = [
        Component.model_validate({**c.model_dump(), "binary": True}) if c.id == "C2" else c for c in question.components
    ]
    return question.model_copy(update={"components": components})


def paraphrases_of(questions: list[Question]) -> list[Question]:
    by_id = {q.id: q for q in questions}
    return [  # as the app makes them: the original's rubric, fixtures renamed, another wording
        Question.model_validate(
            new_paraphrase(by_id[qid].to_json_dict(), f"{qid}-p{n}", f"Put another way ({n}): {by_id[qid].question}")
        )
        for qid, count in REWORDED.items()
        for n in range(1, count + 1)
    ]


def open_backend(questions: dict[str, Question]):  # type: ignore[no-untyped-def]
    def judge(request: CompletionRequest) -> str:
        content = request.messages[1].content
        qid = next(m.group(1) for m in _QUESTION.finditer(content) if m.group(1) in questions)
        question = questions[qid]
        answer = answer_of(request)
        rng = random.Random(answer)
        tuned, reworded = answer.startswith("tuned"), question.paraphrase_of is not None
        share = 0.3 if tuned and reworded else (0.9 if tuned else 0.6)
        awards = {}
        for c in question.components:
            if component_kind(question, c) is ComponentKind.BINARY:  # all or nothing
                awards[c.id] = int(c.points) if rng.random() < share else 0
            elif not c.is_gate:  # reworded, the fine-tune that recited the source's wording loses it
                low, high = (
                    (0, int(c.points) // 2)
                    if tuned and reworded
                    else (int(c.points) // 2 if tuned else 0, int(c.points))
                )
                awards[c.id] = rng.randint(low, high)
        unsure = qid == FLAGGED and answer.startswith("base")  # the judge asks an expert about these
        return verdict_json(
            question,
            rng.random() < share,
            awards,
            adjudication_required=unsure,
            adjudication_note="reworded: unsure" if unsure else "",
        )

    def model(spec: str):  # type: ignore[no-untyped-def]
        def answer(request: CompletionRequest) -> CompletionResult:
            rng = random.Random(f"{spec}{request.sampling.seed}{request.messages[1].content}")
            return CompletionResult(text=f"{spec} answer " + " ".join(["reef"] * rng.randint(4, 20)))

        return answer

    return lambda spec: ScriptedBackend(judge if "judge" in spec else model(spec), spec=spec)


Passes = tuple[RunResults, RunAnalysis, RunResults, RunAnalysis]


@contextmanager
def paraphrase_project(folder: Path) -> Iterator[tuple[Project, Passes]]:
    """The sample project with both passes run, and their results and analyses."""
    project = ensure_sample_project(folder / "sample")
    with reading(project.engine) as session:
        rubric = sets.export_rubric(session, 1)
    rubric.questions = [with_a_fact(q) for q in rubric.questions]
    variants = paraphrases_of(rubric.questions)
    everything = {q.id: q for q in [*rubric.questions, *variants]}
    loaded: list[tuple[RunResults, RunAnalysis]] = []
    for name, questions in (("originals", rubric.questions), ("with paraphrases", [*rubric.questions, *variants])):
        config = PassConfig(
            name=name,
            models=[ModelEntry(label=label, spec=label) for label in ("base", "tuned", "other")],
            judge="judge",
            repeats=REPEATS,
            sampling=Sampling(seed=3, temperature=0.7, max_tokens=64),
            drift_every=0,
        )
        results = load_run_results(project.engine, scripted_pass(project, config, open_backend(everything), questions))
        loaded.append((results, analyse(results, n_boot=400, n_perm=500)))
    (plain, plain_analysis), (with_variants, analysis) = loaded
    with reading(project.engine) as session:
        listed = {r.id: r.generations for r in runs_repo.list_runs(session)}
    # the Runs view's count (the link table) still agrees with the loader's, paraphrases included
    assert listed[with_variants.run_id] == with_variants.record_counts()["generations"]
    try:
        yield project, (plain, plain_analysis, with_variants, analysis)
    finally:
        project.close()


@pytest.fixture(scope="module")
def passes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Passes]:
    with paraphrase_project(tmp_path_factory.mktemp("paraphrase")) as (_project, loaded):
        yield loaded


def _per_question_table(results: RunResults, analysis: RunAnalysis) -> list[list[str]]:
    blocks = build_report(results, analysis).blocks
    heading = next(i for i, b in enumerate(blocks) if getattr(b, "text", "") == "Per question")
    return next(b.rows for b in blocks[heading:] if isinstance(b, Table))


def test_paraphrases_leave_every_figure_of_the_originals_unchanged(passes: Passes) -> None:
    plain, plain_analysis, with_variants, analysis = passes
    assert [q.id for q in with_variants.questions] == [q.id for q in plain.questions]
    assert len(with_variants.paraphrases) == sum(REWORDED.values()) and not plain.paraphrases
    assert len(with_variants.paraphrase_samples) == sum(REWORDED.values()) * 3 * REPEATS
    assert with_variants.samples == plain.samples and with_variants.pairs == plain.pairs
    assert {s.qid for s in with_variants.paraphrase_pairs} == {q.id for q in with_variants.paraphrases}
    apart = {"run_id", "name", "paraphrase"}
    assert analysis.model_dump(exclude=apart) == plain_analysis.model_dump(exclude=apart)  # the design figures too
    figures, plain_figures = run_figures(with_variants, analysis), run_figures(plain, plain_analysis)
    assert figures.model_dump(exclude=apart) == plain_figures.model_dump(exclude=apart)  # results --json
    assert _per_question_table(with_variants, analysis) == _per_question_table(plain, plain_analysis)
    assert with_variants.record_counts()["generations"] == plain.record_counts()["generations"] + len(
        with_variants.paraphrase_samples
    )


def _by_hand(results: RunResults, model: str, value: str = "total") -> dict[str, float]:
    """Per original with a scored paraphrase: its answers' mean less its paraphrases' answers' mean."""

    def number(sample) -> float | None:  # type: ignore[no-untyped-def]
        if sample.status is SampleStatus.ERROR:
            return 0.0
        if sample.status is not SampleStatus.SCORED:
            return None
        return float(sample.total) if value == "total" else float(bool(sample.gate_passed))

    def answers(samples, qids) -> list[float]:  # type: ignore[no-untyped-def]
        found = (number(s) for s in samples if s.model == model and s.qid in qids)
        return [v for v in found if v is not None]

    drops = {}
    for original in REWORDED:
        variants = {q.id for q in results.paraphrases if q.paraphrase_of == original}
        mine, theirs = answers(results.samples, {original}), answers(results.paraphrase_samples, variants)
        if mine and theirs:
            drops[original] = float(np.mean(mine) - np.mean(theirs))
    return drops


def test_the_drops_match_a_computation_by_hand(passes: Passes) -> None:
    results, report = passes[2], passes[3].paraphrase
    assert report is not None and report.n_paraphrases == 7 and report.n_originals == 6
    hand = {m: _by_hand(results, m) for m in results.models}
    for label in results.models:
        model = report.for_model(label)
        assert model is not None and model.n_pairs == len(hand[label]) == 6
        assert model.drop == pytest.approx(np.mean(list(hand[label].values())))
        gates = _by_hand(results, label, "gate")
        assert model.kinds["gate"].drop == pytest.approx(np.mean(list(gates.values())))
    assert [q.qid for q in report.questions] == list(REWORDED)  # the reworded originals, in set order
    assert report.questions[0].paraphrases == ["A1-p1", "A1-p2"]
    for question in report.questions:
        assert question.drops == pytest.approx({m: hand[m][question.qid] for m in results.models})
    tuned = report.for_model("tuned")
    assert tuned is not None and tuned.versus_base is not None
    paired = [hand["tuned"][q] - hand["base"][q] for q in hand["tuned"]]
    assert tuned.versus_base.difference == pytest.approx(np.mean(paired)) and tuned.versus_base.n_pairs == 6
    assert tuned.drop is not None and tuned.drop > 1  # the scripted judge marks the fine-tune down when reworded
    assert tuned.kinds["binary"].drop is not None and tuned.kinds["binary"].drop > 0
    base = report.for_model("base")
    assert base is not None and base.versus_base is None and base.is_base


def test_the_interval_resamples_source_documents(passes: Passes) -> None:
    results, report = passes[2], passes[3].paraphrase
    assert report is not None
    clusters = cluster_labels([q.id for q in results.questions], results.documents)
    assert len({clusters[[q.id for q in results.questions].index(qid)] for qid in REWORDED}) < len(REWORDED)
    drops = np.full(len(results.questions), np.nan)
    hand = _by_hand(results, "tuned")
    for index, question in enumerate(results.questions):
        drops[index] = hand.get(question.id, np.nan)
    # the per-question drops resampled by document: the design's own cluster bootstrap
    expected = clustered_paired_difference(drops, np.zeros_like(drops), clusters, n_boot=400, seed=0)
    tuned = report.for_model("tuned")
    assert tuned is not None and tuned.ci == expected.ci and tuned.n_clusters == expected.n_clusters


def test_with_every_question_its_own_cluster_the_interval_is_scipys_bootstrap(passes: Passes) -> None:
    results = passes[2].model_copy(update={"documents": {}})  # no question cites a document: a cluster each
    report = paraphrase_report(results, n_boot=20000, seed=5)
    drops = list(_by_hand(results, "tuned").values())
    theirs = stats.bootstrap((drops,), np.mean, method="percentile", n_resamples=20000, random_state=5)
    tuned = report.for_model("tuned")
    assert tuned is not None and tuned.ci is not None
    spread = np.ptp(drops)
    assert tuned.ci.low == pytest.approx(theirs.confidence_interval.low, abs=0.03 * spread)
    assert tuned.ci.high == pytest.approx(theirs.confidence_interval.high, abs=0.03 * spread)
    assert tuned.ci.level == 0.95


def test_the_plain_reading_says_what_the_drop_supports(passes: Passes) -> None:
    report = passes[3].paraphrase
    assert report is not None and len(report.readings) == 2  # one per fine-tune
    line = report.readings[0]
    assert line.startswith("tuned loses ") and "points /10 under paraphrase (95% CI " in line
    assert "resampling source documents, 6 questions); the base loses " in line and "the fine-tune's " in line
    assert passes[1].paraphrase is not None and passes[1].paraphrase.readings == [NOT_MEASURED]
    figures = json.loads(run_figures(passes[2], passes[3]).model_dump_json())
    assert figures["paraphrase"]["readings"] == report.readings  # results --json carries the same words


def _report(extra: Interval | None, difference: float = 1.1) -> ParaphraseReport:
    kinds: dict = {}  # type: ignore[type-arg]
    base = ModelParaphrase(
        label="SmolLM", is_base=True, drop=0.1, ci=Interval(low=-0.3, high=0.5), n_pairs=14, n_clusters=6, kinds=kinds
    )
    tuned = ModelParaphrase(
        label="SmolLM-LoRA",
        is_base=False,
        drop=1.2,
        ci=Interval(low=0.4, high=2.0),
        n_pairs=14,
        n_clusters=6,
        kinds=kinds,
        versus_base=PairedDrop(difference=difference, ci=extra, n_pairs=14, n_clusters=6),
    )
    return ParaphraseReport(base="SmolLM", n_paraphrases=14, n_originals=14, models=[base, tuned], readings=[])


def test_the_reading_claims_memorised_wording_only_when_the_interval_clears_zero() -> None:
    [leans] = paraphrase_readings(_report(Interval(low=0.3, high=1.9)))
    assert leans == (
        "SmolLM-LoRA loses 1.20 points /10 under paraphrase (95% CI 0.40 to 2.00, resampling source documents, "
        "14 questions); the base SmolLM loses 0.10 (95% CI -0.30 to 0.50, resampling source documents, 14 "
        "questions); the fine-tune's extra loss 1.10 (95% CI 0.30 to 1.90, resampling source documents, 14 "
        "questions) says its score leans on the source's wording more than the base's does."
    )
    [noise] = paraphrase_readings(_report(Interval(low=-0.2, high=1.9)))
    assert noise.endswith("is within noise: rewording does not tell it apart from the base here.")
    [flat] = paraphrase_readings(_report(Interval(low=0.0, high=0.0), difference=0.0))
    assert flat.endswith(
        "shows no variation: the extra drop is 0 on every pair (as at a floor), so the interval says nothing."
    )
    [better] = paraphrase_readings(_report(Interval(low=-1.5, high=-0.2), difference=-0.8))
    assert "smaller loss 0.80 (95% CI 0.20 to 1.50," in better and better.endswith("better than the base.")


def test_the_extra_drop_is_not_read_from_fewer_questions_than_the_one_page_reading_reads() -> None:
    """The tester saw "says its score leans on the source's wording" over 4 questions beside a
    reading that said 4 pairs were too few: both now apply the reading's minimum."""
    report = _report(Interval(low=0.3, high=1.9))
    tuned = report.models[1]
    assert tuned.versus_base is not None
    few = report.model_copy(
        update={
            "models": [
                report.models[0],
                tuned.model_copy(update={"versus_base": tuned.versus_base.model_copy(update={"n_pairs": 4})}),
            ]
        }
    )
    [line] = paraphrase_readings(few)
    assert "leans on the source's wording" not in line
    assert line.endswith("is too few paraphrased questions to read (4; 5 needed).")


def test_a_base_called_base_is_not_named_twice() -> None:
    report = _report(Interval(low=0.3, high=1.9))
    renamed = report.model_copy(
        update={"base": "base", "models": [report.models[0].model_copy(update={"label": "base"}), report.models[1]]}
    )
    [line] = paraphrase_readings(renamed)
    assert "the base base" not in line and "; the base loses 0.10 (" in line


def test_the_one_page_reading_takes_the_passes_own_paraphrase_figures(passes: Passes) -> None:
    """The reading's paraphrase line is the Paraphrase tab's figures, not a second computation."""
    from gtreview.results.reading import fine_tune_readings

    _, _, results, analysis = passes
    report = analysis.paraphrase
    assert report is not None and report.measured
    (tuned,) = [r for r in fine_tune_readings(results, analysis) if r.label == "tuned"]
    line = next(item for item in tuned.lines if item.topic == "Paraphrase")
    model = report.for_model("tuned")
    assert model is not None and model.versus_base is not None
    assert f"over {model.versus_base.n_pairs} pairs" in line.figures
    assert "not measured" not in line.figures and "loses more than base under paraphrase" in line.reading
    originals, original_analysis = passes[0], passes[1]
    (first,) = [r for r in fine_tune_readings(originals, original_analysis) if r.label == "tuned"]
    assert next(i for i in first.lines if i.topic == "Paraphrase").reading == "not measured: no paraphrased variants"


def test_a_paraphrase_with_a_stale_rubric_is_left_out_and_named(passes: Passes) -> None:
    """Its original edited after it, a paraphrase carries another rubric: a drop would compare
    two rubrics, not two wordings of one question. The tester's approved A1-P1 was one."""
    _, _, results, analysis = passes
    stale = [
        q.model_copy(update={"do_not_credit": [*q.do_not_credit, "an older exclusion"]}) if q.id == "A3-p1" else q
        for q in results.paraphrases
    ]
    edited = paraphrase_report(results.model_copy(update={"paraphrases": stale}), n_boot=200)
    assert analysis.paraphrase is not None
    assert edited.n_paraphrases == analysis.paraphrase.n_paraphrases == len(stale)
    assert [(item.qid, item.reason) for item in edited.left_out] == [
        ("A3-p1", "its rubric differs from A3's (do not credit)")
    ]
    assert edited.n_originals == analysis.paraphrase.n_originals - 1  # A3 has no other paraphrase
    assert "A3" not in {q.qid for q in edited.questions}
    assert "Left out, paired with no original: A3-p1: its rubric differs from A3's (do not credit)." in (
        paraphrase_summary(edited)
    )
    assert analysis.paraphrase.left_out == []  # as the app makes them, every paraphrase pairs
