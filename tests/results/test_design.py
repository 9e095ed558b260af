"""The design-respecting figures of a pass, on a scripted pass over the sample project.

Three models answer the sample set (10 questions citing 8 corpus documents first) four
times each. The fine-tune's answers are longer on average, and the pairwise judge prefers
an answer the more the longer it is (logistic in the log length ratio), so the length
effect is real and known in sign; the pointwise judge passes the gate on a question-dependent share of answers, so some
questions are flaky. Every figure is checked against the loader's samples counted by
hand or against the core function called on the same inputs.
"""

from __future__ import annotations

import json
import math
import random
import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from gtreview.app.sample_project import ensure_sample_project
from gtreview.core.rubric import Evidence, Question
from gtreview.core.stats import clustered_paired_difference, majority_pass
from gtreview.inference.backend import CompletionRequest, CompletionResult, Sampling
from gtreview.results.analysis import RunAnalysis, analyse
from gtreview.results.design import WIN_SHARE, answer_words
from gtreview.results.design_text import design_readings, design_tables
from gtreview.results.documents import cluster_labels, question_documents
from gtreview.results.loader import RunResults, load_run_results
from gtreview.runs.plan import ModelEntry, PassConfig
from gtreview.store import sets
from gtreview.store.db import reading, unit_of_work
from tests.judging.scripted import ScriptedBackend, answer_of, verdict_json
from tests.projects import scripted_pass

REPEATS = 4
_BETWEEN = re.compile(r"ANSWER A:\n<<<\n(.*)\n>>>\n\nANSWER B:\n<<<\n(.*)\n>>>", re.S)
FIRST_DOCUMENTS = {  # the sample set's primary evidence, read from its rubric file
    "A1": "reports/1868_mining_surveyor_wirrim_division.txt",
    "B4": "tables/crushing_returns.csv",
    "C8": "reports/1868_mining_surveyor_wirrim_division.txt",
    "D10": "tables/assays.csv",
}


def open_backend(questions: dict[str, Question]):  # type: ignore[no-untyped-def]
    def judge(request: CompletionRequest) -> str:
        content = request.messages[1].content
        pair = _BETWEEN.search(content)
        if pair is not None:
            first, second = pair.group(1), pair.group(2)
            # the same preference in both orders: drawn for the two answers in a fixed order
            one, two = sorted((first, second))
            ratio = math.log(len(one.split()) / len(two.split()))
            one_wins = random.Random(f"{one}|{two}").random() < 1 / (1 + math.exp(-3 * ratio))  # longer wins more often
            first_wins = one_wins if first == one else not one_wins
            return json.dumps({"reason": "r", "verdict": "[[A>B]]" if first_wins else "[[B>A]]"})
        question = next(q for qid, q in questions.items() if f"QUESTION {qid}:" in content)
        answer = answer_of(request)
        rng = random.Random(answer)
        points = {c.id: int(c.points) for c in question.components if not c.is_gate}
        gate_share = 0.9 if answer.startswith("tuned") else 0.5
        awards = {cid: rng.randint(p // 2 if answer.startswith("tuned") else 0, p) for cid, p in points.items()}
        return verdict_json(question, rng.random() < gate_share, awards)

    def model(spec: str):  # type: ignore[no-untyped-def]
        name = next((n for n in ("tuned", "other", "base") if n in spec), spec)  # a label or an openai: spec

        def answer(request: CompletionRequest) -> CompletionResult:
            rng = random.Random(f"{name}{request.sampling.seed}{request.messages[1].content}")
            words = rng.randint(8, 30) if name == "tuned" else rng.randint(4, 26)
            return CompletionResult(text=f"{name} answer " + " ".join(["reef"] * words))

        return answer

    return lambda spec: ScriptedBackend(judge if "judge" in spec else model(spec), spec=spec)


@pytest.fixture(scope="module")
def design_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RunResults, RunAnalysis]]:
    project = ensure_sample_project(tmp_path_factory.mktemp("design") / "sample")
    with reading(project.engine) as session:
        rubric = sets.export_rubric(session, 1)
    config = PassConfig(
        name="design",
        models=[ModelEntry(label=label, spec=label) for label in ("base", "tuned", "other")],
        judge="judge",
        repeats=REPEATS,
        sampling=Sampling(seed=3, temperature=0.7, max_tokens=64),
        drift_every=0,
    )
    run_id = scripted_pass(project, config, open_backend({q.id: q for q in rubric.questions}))
    results = load_run_results(project.engine, run_id)
    yield results, analyse(results, n_boot=400, n_perm=500)
    project.close()


def test_questions_cluster_by_the_document_their_primary_evidence_cites(design_run) -> None:  # type: ignore[no-untyped-def]
    results, analysis = design_run
    for qid, document in FIRST_DOCUMENTS.items():
        assert results.documents[qid] == document
    assert len(results.documents) == 10 and len(set(results.documents.values())) == 8
    assert analysis.design is not None
    tuned = analysis.design.finetunes[0]
    assert tuned.label == "tuned" and tuned.clustered.n_clusters == 8 and tuned.clustered.n_questions == 10
    labels = [results.documents[q.id] for q in results.questions]
    expected = clustered_paired_difference(
        results.score_matrix("tuned"), results.score_matrix("base"), labels, n_boot=400, seed=0
    )
    assert tuned.clustered == expected
    assert "Clustered by 8 source documents:" in tuned.readings[0] and "(95% interval)" in tuned.readings[0]


def test_question_citing_no_corpus_document_is_its_own_cluster() -> None:
    def question(qid: str, *evidence: Evidence) -> Question:
        return Question(id=qid, evidence=list(evidence))

    names = ["reports/a.txt", "reports/b.txt"]
    questions = [
        question("Q1", Evidence(source="a.txt", locator="page=1, lines=1-2"), Evidence(source="reports/b.txt")),
        question("Q2", Evidence(source="missing.txt"), Evidence(source="reports/a.txt")),  # the first one counts
        question("Q3", Evidence(source="", locator="book=b.txt, page=2, lines=3-4")),  # the locator's book
        question("Q4"),
    ]
    documents = question_documents(questions, names)
    assert documents == {"Q1": "reports/a.txt", "Q3": "reports/b.txt"}
    assert cluster_labels(["Q1", "Q2", "Q3", "Q4"], documents) == [
        ("document", "reports/a.txt"),
        ("question", "Q2"),
        ("document", "reports/b.txt"),
        ("question", "Q4"),
    ]


def test_mcnemar_counts_each_questions_majority_gate(design_run) -> None:  # type: ignore[no-untyped-def]
    results, analysis = design_run
    assert analysis.design is not None
    mcnemar = analysis.design.finetunes[0].mcnemar

    def majority(model: str, qid: str) -> bool | None:
        gates = [s.gate_passed for s in results.samples if (s.model, s.qid) == (model, qid)]
        passed = sum(bool(g) for g in gates)
        return None if passed * 2 == len(gates) else passed * 2 > len(gates)

    outcomes = [(majority("tuned", q.id), majority("base", q.id)) for q in results.questions]
    assert mcnemar.finetune_only == sum(1 for t, b in outcomes if t and b is False)
    assert mcnemar.base_only == sum(1 for t, b in outcomes if t is False and b)
    assert mcnemar.n_pairs + mcnemar.n_excluded == 10
    assert mcnemar.finetune_only + mcnemar.base_only > 0 and mcnemar.p_value is not None
    assert f"McNemar exact p = {mcnemar.p_value:.3f}" in analysis.design.finetunes[0].readings[1]
    assert np.array_equal(majority_pass(results.gate_matrix("base")) == 1, [b is True for _, b in outcomes])


def test_flakiness_and_pass_hat_k_per_model(design_run) -> None:  # type: ignore[no-untyped-def]
    results, analysis = design_run
    assert analysis.design is not None
    reliability = {m.label: m for m in analysis.design.reliability}
    assert list(reliability) == ["base", "tuned", "other"]
    for label, figures in reliability.items():
        assert [p.k for p in figures.gate.by_k] == list(range(1, REPEATS + 1))
        gates = results.gate_matrix(label)
        assert figures.gate.by_k[0].pass_hat_k == pytest.approx(float(np.nanmean(gates.mean(axis=1))))
        every = float(np.mean(gates.min(axis=1)))  # pass^K of K answers: all of them passed
        assert figures.gate.by_k[-1].pass_hat_k == pytest.approx(every)
        flaky = sum(0 < row.sum() < REPEATS for row in gates)
        assert f"gate flaky on {flaky} of 10 questions" in figures.reading
        assert figures.gate.by_k[-1].pass_hat_k_ci is not None and figures.gate.by_k[-1].pass_hat_k_ci.level == 0.95


def test_bradley_terry_ranks_all_three_models(design_run) -> None:  # type: ignore[no-untyped-def]
    _, analysis = design_run
    assert analysis.design is not None
    strengths = analysis.design.strengths
    assert strengths is not None and strengths.estimable
    by_model = {s.model: s for s in strengths.strengths}
    assert set(by_model) == {"base", "tuned", "other"}
    assert by_model["tuned"].log_strength is not None and by_model["base"].log_strength is not None
    assert by_model["tuned"].log_strength > by_model["base"].log_strength  # its longer answers win
    assert strengths.n_comparisons == 2 * 10 * REPEATS
    assert "strongest tuned" in analysis.design.strengths_reading


def test_length_effect_from_the_pairwise_verdicts_and_the_answers_words(design_run) -> None:  # type: ignore[no-untyped-def]
    results, analysis = design_run
    assert analysis.design is not None
    length = analysis.design.finetunes[0].length
    assert length is not None and length.n_verdicts == 10 * REPEATS and length.n_units == 10
    index = {(s.model, s.qid, s.sample_index): s for s in results.samples}
    pairs = [p for p in results.pairs_of("tuned") if p.label in WIN_SHARE]
    raw = np.mean([WIN_SHARE[p.label or ""] for p in pairs])
    assert length.raw_win_rate == pytest.approx(raw)
    assert answer_words(index[("tuned", "A1", 0)]) == len(index[("tuned", "A1", 0)].answer_clean.split())
    assert length.slope is not None and length.slope_ci is not None and length.slope_ci.low > 0
    assert length.controlled_win_rate is not None and length.controlled_win_rate < length.raw_win_rate
    reading = analysis.design.finetunes[0].readings[2]
    assert reading.startswith("Length: longer answers win more often (slope +")
    assert f"vs raw {length.raw_win_rate:.2f}" in reading


def test_every_figure_states_its_interval_level(design_run) -> None:  # type: ignore[no-untyped-def]
    _, analysis = design_run
    assert analysis.design is not None
    readings = design_readings(analysis.design)
    assert len(readings) == 2 * 3 + 3 + 1
    assert all("(95% interval" in line for line in readings if "[" in line)
    tables = design_tables(analysis.design)
    assert [t.title for t in tables] == [
        "Fine-tune − base, as the design has it",
        "Gate reliability over repeats",
        "Bradley-Terry strengths",
    ]
    assert all("95%" in " ".join(t.header) for t in tables)


def test_a_run_without_a_corpus_keeps_every_question_apart(tmp_path: Path) -> None:
    from gtreview.results.design import design_figures
    from gtreview.store.project import create_project
    from tests.report.test_exports import RUBRIC
    from tests.results.test_one_source import config, run

    patch = pytest.MonkeyPatch()
    patch.setattr("gtreview.runs.execute.spec_identity", lambda spec: {"spec": spec})
    project = create_project(tmp_path / "p")
    try:
        with unit_of_work(project.engine) as tx:
            set_id = sets.import_rubric(tx, RUBRIC, source_name="t.json", source_sha256="s", actor="t")
        results = load_run_results(project.engine, run(project.engine, set_id, config()))
        design = design_figures(results, n_boot=100)
    finally:
        patch.undo()
        project.close()
    assert results.documents == {}
    tuned = design.finetunes[0]
    assert tuned.clustered.n_clusters == tuned.clustered.n_questions
    assert design.strengths is None  # two models: the win rate says it all


def test_readings_say_plainly_when_a_figure_cannot_be_had() -> None:
    from gtreview.core.stats import length_bias, mcnemar_exact
    from gtreview.results.design_text import clustered_reading, length_reading, mcnemar_reading

    one_document = clustered_paired_difference([[6.0], [7.0]], [[5.0], [5.0]], ["r.txt", "r.txt"], n_boot=50)
    assert clustered_reading(one_document, 0) == (
        "Clustered by 1 source document: +1.50 points; no interval from a single document."
    )
    equal = length_bias([1.0, 0.0, 0.5], [10, 10, 10], [10, 10, 10], n_boot=50)
    assert length_reading(equal).startswith("Length: the answers are equally long, so no length effect; win rate 0.50")
    assert length_reading(None) == "Length: no pairwise verdict to relate to answer length."
    same = mcnemar_exact([1.0, 0.0], [1.0, 0.0])
    assert mcnemar_reading(same, 3).endswith("no question differs, nothing to test.")


def test_the_runs_figures_carry_the_same_design_figures(design_run) -> None:  # type: ignore[no-untyped-def]
    from gtreview.results.figures import run_figures

    results, analysis = design_run
    figures = run_figures(results, analysis)  # what `gtreview results --json` prints
    assert figures.design == analysis.design
    printed = figures.model_dump(mode="json")["design"]
    assert printed["interval_level"] == 0.95 and printed["finetunes"][0]["clustered"]["n_clusters"] == 8


def test_the_clustered_reading_counts_questions_citing_no_document_apart() -> None:
    from gtreview.results.design_text import clustered_reading

    labels = [("document", "a"), ("document", "a"), ("question", "Q3"), ("question", "Q4")]
    clustered = clustered_paired_difference([[6.0], [7.0], [5.0], [6.0]], [[5.0]] * 4, labels, n_boot=50)
    assert clustered.n_clusters == 3
    assert clustered_reading(clustered, 2).startswith("Clustered by 1 source document and 2 questions citing none: +")


def test_a_bound_that_rounds_to_zero_prints_without_a_sign() -> None:
    from gtreview.core.stats import Interval
    from gtreview.results.design_text import num, span

    assert span(Interval(low=-1.29, high=-0.001)) == "[-1.29, 0.00]"
    assert num(-0.004, signed=True) == "+0.00" and num(-1.234) == "-1.23"
