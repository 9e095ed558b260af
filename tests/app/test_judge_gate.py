"""The judge gate on a scripted pass over the sample project.

One pass (two models, two repeats, the scripted judge "judge") is made once and copied
for each test, which then calibrates, edits and grades as its case needs: no calibration,
calibrations by another judge, with another prompt, of another version, fixtures missed,
all reproduced with no expert sample, and blind grades that agree or disagree with the
judge against the project threshold.
"""

from __future__ import annotations

import random
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from pypdf import PdfReader

from gtreview.app import adjudication as adj
from gtreview.app.gate_criteria import MIN_ANSWERS, CriterionState, criteria_details
from gtreview.app.judge_gate import FixtureState, JudgeGate, judge_gate
from gtreview.app.project_settings import (
    GateSettingError,
    set_judge_gate_measure,
    set_judge_gate_threshold,
)
from gtreview.app.question_calibration import calibrate_questions
from gtreview.app.reports import write_report
from gtreview.app.sample_project import ensure_sample_project
from gtreview.core.grading import ComponentKind
from gtreview.core.rubric import Question
from gtreview.core.stats import total_agreement, wilson_interval
from gtreview.inference.backend import CompletionRequest, CompletionResult, Sampling
from gtreview.judging.prompts import POINTWISE, load_template
from gtreview.report.run_report import build_report
from gtreview.results.analysis import analyse
from gtreview.results.loader import load_run_results
from gtreview.runs.execute import run_pass
from gtreview.runs.plan import ModelEntry, PassConfig
from gtreview.store import adjudication_repo, sets
from gtreview.store.db import reading, unit_of_work
from gtreview.store.project import Project, open_project
from tests.judging.scripted import ScriptedBackend, answer_of, fixture_reply, verdict_json

SET_ID = 1


def judge_reply(questions: dict[str, Question], *, miss: str = ""):  # type: ignore[no-untyped-def]
    """Fixtures scored as the rubric expects them (except every fixture of ``miss``, scored
    0 with the gate failed); answers scored by a seeded draw."""

    def reply(request: CompletionRequest) -> str:
        content = request.messages[1].content
        question = next(q for qid, q in questions.items() if f"QUESTION {qid}:" in content)
        answer = answer_of(request)
        fixture = next((f for f in question.calibration if f.response_text == answer), None)
        if fixture is not None:
            return verdict_json(question, False, {}) if question.id == miss else fixture_reply(question, fixture)
        rng = random.Random(answer + question.id)
        points = {c.id: int(c.points) for c in question.components if not c.is_gate}
        return verdict_json(question, rng.random() < 0.6, {cid: rng.randint(0, p) for cid, p in points.items()})

    return reply


def _questions(engine) -> dict[str, Question]:  # type: ignore[no-untyped-def]
    with reading(engine) as session:
        return {q.id: q for q in sets.export_rubric(session, SET_ID).questions}


def _pass(project: Project, name: str = "gate") -> int:
    questions = _questions(project.engine)

    def open_backend(spec: str) -> ScriptedBackend:
        if spec == "judge":
            return ScriptedBackend(judge_reply(questions), spec=spec)
        return ScriptedBackend(lambda r: CompletionResult(text=f"{spec} answer {r.sampling.seed % 100}"), spec=spec)

    config = PassConfig(
        name=name,
        models=[ModelEntry(label="base", spec="base"), ModelEntry(label="tuned", spec="tuned")],
        judge="judge",
        repeats=2,
        sampling=Sampling(seed=3, temperature=0.7, max_tokens=32),
        drift_every=0,
    )
    return run_pass(
        project.engine, config, list(questions.values()), rubric_hash="h", open_backend=open_backend, set_id=SET_ID
    ).run_id


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("gate") / "sample"
    project = ensure_sample_project(folder)
    patch = pytest.MonkeyPatch()
    patch.setattr("gtreview.runs.execute.spec_identity", lambda spec: {"spec": spec})
    try:
        assert _pass(project) == 1
    finally:
        patch.undo()
        project.close()
    return folder


@pytest.fixture()
def project(made: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Project]:
    monkeypatch.setattr("gtreview.runs.execute.spec_identity", lambda spec: {"spec": spec})
    copy = tmp_path / "sample"
    shutil.copytree(made, copy)
    opened = open_project(copy)
    yield opened
    opened.close()


def _calibrate(project: Project, *, spec: str = "judge", miss: str = "", qids: list[str] | None = None) -> None:
    questions = _questions(project.engine)
    backend = ScriptedBackend(judge_reply(questions, miss=miss), spec=spec)
    calibrate_questions(project.engine, backend, SET_ID, qids or list(questions))


def _states(gate: JudgeGate) -> dict[str, FixtureState]:
    return {q.qid: q.state for q in gate.questions}


def test_no_calibration_is_not_gated_and_names_the_questions(project: Project) -> None:
    gate = judge_gate(project.engine, 1)
    assert not gate.gated and not gate.fixtures_passed and gate.expert is None
    assert set(_states(gate).values()) == {FixtureState.NOT_CALIBRATED}
    qids = [q.qid for q in gate.questions]
    assert len(qids) == 10
    assert gate.line == f"Judge NOT gated: never calibrated: {', '.join(qids[:5])} and 5 more."


def test_all_reproduced_is_gated_on_fixtures_alone(project: Project) -> None:
    _calibrate(project)
    gate = judge_gate(project.engine, 1)
    assert gate.gated and gate.fixtures_passed and gate.reasons == []
    assert gate.prompt_sha256 == load_template(POINTWISE).sha256 and gate.judge == "judge"
    assert all(q.detail.endswith("fixtures reproduced") for q in gate.questions)
    assert gate.line == (
        "Judge gated: all 10 questions' calibration fixtures reproduced by this judge and prompt; "
        "no expert sample graded, so the gate rests on the fixtures alone."
    )


def test_another_judge_or_prompt_does_not_gate(project: Project) -> None:
    _calibrate(project, spec="llama:other-judge.gguf")
    gate = judge_gate(project.engine, 1)
    assert not gate.gated and set(_states(gate).values()) == {FixtureState.OTHER_JUDGE}
    assert gate.questions[0].detail == "llama:other-judge.gguf"
    assert gate.line.startswith("Judge NOT gated: calibrated only by another judge: A1, ")

    first = gate.questions[0].qid
    with reading(project.engine) as session:
        version = sets.list_questions(session, SET_ID)[0].current_version
    with unit_of_work(project.engine) as tx:
        sets.add_calibration_run(  # the same judge, but an older prompt template
            tx, SET_ID, first, version, judge="judge", prompt_sha256="0" * 64, reproduced=True, report_json="{}"
        )
    assert _states(judge_gate(project.engine, 1))[first] is FixtureState.OTHER_PROMPT
    with unit_of_work(project.engine) as tx:
        sets.add_calibration_run(  # a damaged record of the right judge and prompt proves nothing
            tx,
            SET_ID,
            first,
            version,
            judge="judge",
            prompt_sha256=gate.prompt_sha256,
            reproduced=True,
            report_json="{}",
        )
    damaged = judge_gate(project.engine, 1)
    assert (damaged.questions[0].state, damaged.questions[0].detail) == (
        FixtureState.MISSED,
        "its stored calibration cannot be read",
    )


def test_a_missed_fixture_names_its_question(project: Project) -> None:
    _calibrate(project, miss="B4")
    gate = judge_gate(project.engine, 1)
    assert not gate.gated
    assert {qid for qid, state in _states(gate).items() if state is not FixtureState.REPRODUCED} == {"B4"}
    (missed,) = [q for q in gate.questions if q.qid == "B4"]
    assert missed.state is FixtureState.MISSED and missed.detail == "1 of 3 fixtures reproduced"
    assert gate.line == "Judge NOT gated: fixtures missed: B4 (1 of 3 fixtures reproduced)."
    _calibrate(project, qids=["B4"])  # the newest calibration decides
    assert judge_gate(project.engine, 1).gated


def test_an_edited_question_needs_the_gate_again(project: Project) -> None:
    _calibrate(project)
    edited = _questions(project.engine)["A1"].model_copy(update={"question": "A reworded question about the reef?"})
    with unit_of_work(project.engine) as tx:
        sets.save_question(tx, SET_ID, edited, author="geo")
    assert judge_gate(project.engine, 1).gated  # the pass ran the version that was calibrated

    second = _pass(project, name="after the edit")
    gate = judge_gate(project.engine, second)
    assert not gate.gated and _states(gate)["A1"] is FixtureState.OTHER_VERSION
    assert gate.line == "Judge NOT gated: calibrated only in another version: A1."
    _calibrate(project, qids=["A1"])
    assert judge_gate(project.engine, second).gated


def _grade(project: Project, *, agree: bool, size: int = 24) -> list[tuple[bool, bool, int, int, str]]:
    """Blind grades of ``size`` answers: the judge's own verdict (agree) or an independent
    draw (disagree); returns (judge gate, expert gate, judge total, expert total, qid)."""
    results = load_run_results(project.engine, 1)
    samples = {s.generation_key: s for s in results.samples}
    rng = random.Random(7)
    graded = []
    for item in adj.grading_sample(project.engine, 1, grader="geo", size=size, seed=1):
        sample = samples[item.generation_key]
        assert sample.gate_passed is not None and sample.total is not None
        if agree:
            gate, awards = sample.gate_passed, dict(sample.awards)
        else:
            gate = rng.random() < 0.5
            awards = {c.id: rng.randint(0, int(c.points)) for c in item.question.components if not c.is_gate}
        adj.save_grade(project.engine, 1, item, grader="geo", gate_passed=gate, awards=awards)
        with reading(project.engine) as session:
            expert_total = next(g.total for g in reversed(adjudication_repo.grades(session, 1)))
        graded.append((sample.gate_passed, gate, int(sample.total), expert_total, sample.qid))
    return graded


def test_blind_grades_that_agree_gate_the_judge(project: Project) -> None:
    _calibrate(project)
    graded = _grade(project, agree=True)
    gate = judge_gate(project.engine, 1)
    assert gate.gated and gate.expert is not None
    expert = gate.expert
    assert expert.n_graded == 24 and expert.measure == "weighted_kappa" and expert.threshold == 0.6
    assert expert.kappa.kappa == 1.0 and expert.lower_bound == 1.0 and expert.passed
    # by hand: every verdict agrees, so sensitivity and specificity are 1 over the expert's passes and fails
    passes = sum(1 for j, e, *_ in graded if e)
    assert (expert.gate.sensitivity.successes, expert.gate.sensitivity.n) == (passes, passes)
    assert (expert.gate.specificity.successes, expert.gate.specificity.n) == (24 - passes, 24 - passes)
    assert 0 < passes < 24
    assert "against the expert on 24 blind-graded answers, weighted kappa on totals 1.00 [1.00, 1.00]" in gate.line
    assert gate.line.startswith("Judge gated: all 10 questions'")
    # criterion by criterion (the sample set has a gate and reasoning criteria, no binary ones)
    gate_c, binary, reasoning = expert.criteria
    assert gate_c.kind is ComponentKind.GATE and gate_c.n_answers == 24 and gate_c.lower_bound == 1.0
    assert binary.state is CriterionState.NONE and reasoning.state is CriterionState.CLEARS
    assert reasoning.n_answers == sum(1 for j, e, *_ in graded if j and e) >= MIN_ANSWERS
    assert gate.line.endswith(
        "; per criterion (gate, reasoning criteria) every lower bound at or above the project's 0.60."
    )
    assert gate.details == criteria_details(expert.criteria) and len(gate.details) == 4


def test_blind_grades_that_disagree_do_not_gate_the_judge(project: Project) -> None:
    _calibrate(project)
    graded = _grade(project, agree=False)
    gate = judge_gate(project.engine, 1)
    assert gate.fixtures_passed and not gate.gated and gate.expert is not None
    expert = gate.expert
    # sensitivity and specificity by hand, the expert as truth
    true_pass = sum(1 for j, e, *_ in graded if j and e)
    false_fail = sum(1 for j, e, *_ in graded if not j and e)
    true_fail = sum(1 for j, e, *_ in graded if not j and not e)
    false_pass = sum(1 for j, e, *_ in graded if j and not e)
    assert (expert.gate.true_pass, expert.gate.false_fail, expert.gate.true_fail, expert.gate.false_pass) == (
        true_pass,
        false_fail,
        true_fail,
        false_pass,
    )
    assert expert.gate.sensitivity.rate == pytest.approx(true_pass / (true_pass + false_fail))
    assert expert.gate.specificity.rate == pytest.approx(true_fail / (true_fail + false_pass))
    assert expert.gate.sensitivity.ci == wilson_interval(true_pass, true_pass + false_fail)
    # the kappa and its interval are the existing function's on the same totals, clustered by question
    reference = total_agreement([g[2] for g in graded], [g[3] for g in graded], question_ids=[g[4] for g in graded])
    assert expert.kappa == reference.kappa and expert.alpha == reference.alpha
    assert reference.kappa.ci is not None and expert.lower_bound == reference.kappa.ci.low < 0.6
    assert gate.line.startswith(
        "Judge NOT gated: against the expert on 24 blind-graded answers, weighted kappa on totals "
    )
    assert "lower bound below the project's 0.60 (gate sensitivity " in gate.line

    set_judge_gate_threshold(project.engine, -1.0)  # a project that accepts any agreement on totals...
    few = judge_gate(project.engine, 1)
    assert few.expert is not None and few.expert.totals_passed and not few.gated  # ...still needs every criterion
    assert few.reasons == ["reasoning criteria: too few graded answers (8) for an interval"]
    assert few.line == "Judge NOT gated: reasoning criteria: too few graded answers (8) for an interval."
    graded += _grade(project, agree=False, size=16)  # every answer of the pass graded: enough of them both passed
    assert judge_gate(project.engine, 1).gated
    set_judge_gate_measure(project.engine, "krippendorff_alpha")
    alpha = judge_gate(project.engine, 1)
    assert alpha.expert is not None and alpha.expert.measure == "krippendorff_alpha"
    reference = total_agreement([g[2] for g in graded], [g[3] for g in graded], question_ids=[g[4] for g in graded])
    assert reference.alpha.ci is not None and alpha.expert.lower_bound == reference.alpha.ci.low
    assert "Krippendorff's alpha" in alpha.line


def test_only_blind_grades_count_and_an_override_keeps_the_judges_own_verdict(project: Project) -> None:
    _calibrate(project)
    _grade(project, agree=False, size=12)
    before = judge_gate(project.engine, 1).expert
    assert before is not None and before.n_graded == 12
    results = load_run_results(project.engine, 1)
    remaining = adj.grading_sample(project.engine, 1, grader="geo", size=1, seed=2)
    adj.save_grade(project.engine, 1, remaining[0], grader="geo", gate_passed=True, awards={}, blind=False)
    # the expert settles a graded answer as they graded it: the judge is still judged on its own verdict
    with reading(project.engine) as session:
        graded_keys = {g.generation_key for g in adjudication_repo.grades(session, 1) if g.blind}
    target = next(s for s in results.samples if s.generation_key in graded_keys and s.total != 0)
    with unit_of_work(project.engine) as tx:
        adj.override_judgement(
            tx, results, target.judgement_key, actor="geo", gate_passed=True, awards={}, reason="settled"
        )
    after = judge_gate(project.engine, 1).expert
    assert after is not None and after.n_graded == 12  # the non-blind grade is not counted
    assert (after.gate, after.kappa) == (before.gate, before.kappa)


def test_gate_settings_refuse_nonsense(project: Project) -> None:
    with pytest.raises(GateSettingError, match=r"agreement in -1\.\.1"):
        set_judge_gate_threshold(project.engine, 1.5)
    with pytest.raises(GateSettingError, match="not a judge-gate measure"):
        set_judge_gate_measure(project.engine, "accuracy")


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_the_pdf_cover_prints_the_gate_line(project: Project, tmp_path: Path) -> None:
    ungated = write_report(project.engine, 1, tmp_path / "ungated.pdf")
    cover = _flat(PdfReader(str(ungated.path)).pages[0].extract_text())
    assert not ungated.gate.gated and _flat(ungated.gate.line) in cover
    assert "Judge NOT gated: never calibrated: A1" in cover
    results = load_run_results(project.engine, 1)
    document = build_report(results, analyse(results, n_boot=50, n_perm=50), gate_line=ungated.gate.line)
    assert document.cover_notice is not None and document.cover_notice.style == "alarm"

    _calibrate(project)
    gated = write_report(project.engine, 1, tmp_path / "gated.pdf")
    cover = _flat(PdfReader(str(gated.path)).pages[0].extract_text())
    assert gated.gate.gated and _flat(gated.gate.line) in cover and "NOT gated" not in cover
