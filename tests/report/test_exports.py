"""Run exports, checked by hand against a scripted pass whose every score is known.

The pass: questions A1..A3, K=3 samples, models ``base`` and ``tuned``. Gate C1 is 3
points, C2 3, C3 4. The judge gives:

- tuned: gate passed, C2 2, C3 1/2/1 by sample -> totals 6, 7, 6 (A1, A2); its A2
  sample 2 and all of A3 get replies that break the contract -> unscored;
  A1 sample 1 asks for adjudication;
- base: gate passed, C2 1, C3 0 -> 4; A3 sample 1 fails the gate -> 0; every A2
  generation is empty -> an error (0, gate failed);
- pairwise: tuned preferred in both orders (A>B), except A1 sample 2 (A=B) and A3
  (no verdict -> unknown); empty base answers lose without a judge call (A>>B).
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

from gtreview.app.exports import ExportError, leaderboard_export
from gtreview.core.rubric import Rubric
from gtreview.inference.backend import CompletionRequest, CompletionResult, Sampling
from gtreview.report.exports import CSV_COLUMNS, write_leaderboard, write_results_csv
from gtreview.results.loader import load_run_results
from gtreview.results.rows import question_figures
from gtreview.runs.execute import run_pass
from gtreview.runs.plan import ModelEntry, PassConfig
from gtreview.runs.record import RunRecordError
from gtreview.store import sets
from gtreview.store.db import unit_of_work
from gtreview.store.project import create_project
from tests.judging.scripted import ScriptedBackend, answer_of, verdict_json
from tests.rubric_factory import rubric

C3_BY_SEED = {1234: 1, 1235: 2, 1236: 1}
_SEED = re.compile(r"\(seed (\d+)\)")


def make_rubric() -> Rubric:
    data = rubric(3)
    for q in data["questions"]:
        q["question"] = f"{q['id']}: {q['question']}"
    return Rubric.model_validate(data)


RUBRIC = make_rubric()


def judge_reply(request: CompletionRequest) -> str:
    content = request.messages[1].content
    question = next(q for q in RUBRIC.questions if f"QUESTION {q.id}:" in content)
    if "ANSWER A:" in content:
        seed = int(_SEED.findall(content)[0])
        if question.id == "A3":
            return "I cannot decide."
        if question.id == "A1" and seed == 1236:
            return '{"reason": "r", "verdict": "[[A=B]]"}'
        first = content.split("ANSWER A:")[1].split("ANSWER B:")[0]
        return '{"reason": "r", "verdict": "%s"}' % ("[[A>B]]" if "Tuned" in first else "[[B>A]]")
    answer = answer_of(request)
    seed = int(_SEED.findall(answer)[0])
    if answer.startswith("Tuned"):
        if question.id == "A3" or (question.id == "A2" and seed == 1236):
            return "not JSON at all"
        return verdict_json(
            question,
            True,
            {"C2": 2, "C3": C3_BY_SEED.get(seed, 3)},
            adjudication_required=(question.id, seed) == ("A1", 1235),
        )
    return verdict_json(question, not (question.id == "A3" and seed == 1235), {"C2": 1})


def open_backend(spec: str) -> ScriptedBackend:
    if spec.startswith("judge"):
        return ScriptedBackend(judge_reply, spec=spec)
    tuned = spec.endswith("tuned")

    def generate(request: CompletionRequest) -> CompletionResult:
        text = request.messages[1].content
        if not tuned and text.startswith("A2:"):
            return CompletionResult(text="")
        name = "Tuned" if tuned else "Base"
        return CompletionResult(text=f"{name} answer (seed {request.sampling.seed}) to {text[:2]}.")

    return ScriptedBackend(generate, spec=spec)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Engine, int, Path]]:
    folder = tmp_path_factory.mktemp("exports") / "project"
    project = create_project(folder)
    monkeypatch = pytest.MonkeyPatch()
    monkeypatch.setattr("gtreview.runs.execute.spec_identity", lambda spec: {"spec": spec})
    with unit_of_work(project.engine) as tx:
        set_id = sets.import_rubric(tx, RUBRIC, source_name="Tiny_grading_key.json", source_sha256="s", actor="t")
    config = PassConfig(
        name="tiny",
        models=[ModelEntry(label="base", spec="openai:base"), ModelEntry(label="tuned", spec="openai:tuned")],
        judge="judge:x",
        repeats=3,
        sampling=Sampling(temperature=0.7, seed=1234, max_tokens=64),
        drift_every=0,
    )
    result = run_pass(
        project.engine, config, RUBRIC.questions, rubric_hash="r", open_backend=open_backend, set_id=set_id
    )
    monkeypatch.undo()
    assert (result.generation_errors, result.unscored) == (3, 4)
    yield project.engine, result.run_id, folder
    project.close()


def components(awards: dict[str, int], reason: str = "r") -> list[dict[str, object]]:
    maxima = {"C1": 3, "C2": 3, "C3": 4}
    return [{"id": c, "awarded": awards[c], "maximum": maxima[c], "reason": reason} for c in maxima]


def test_leaderboard_of_the_fine_tune(run: tuple[Engine, int, Path], tmp_path: Path) -> None:
    engine, run_id, _ = run
    export = leaderboard_export(engine, run_id, "tuned", contact="https://example.org/geo")
    paths = write_leaderboard(export, tmp_path / "board")
    scores = json.loads(paths[0].read_text(encoding="utf-8"))
    assert [p.name for p in paths] == ["scores.json", "meta.json"]
    assert sorted(p.name for p in (tmp_path / "board").iterdir()) == ["meta.json", "scores.json"]
    # A mean of differing totals is no one grader record: no component list contradicts it.
    assert [list(entry) for entry in scores] == [
        ["id", "question", "score_b", "score_b_gate_passed", "score_b_adjudication_required"]
    ] * 2
    a1, a2 = scores
    assert (a1["id"], a1["score_b"], a1["score_b_gate_passed"], a1["score_b_adjudication_required"]) == (
        "A1",
        6.33,  # mean of 6, 7, 6
        True,
        True,  # sample 1 asked for adjudication
    )
    assert a1["question"] == RUBRIC.questions[0].question
    assert (a2["id"], a2["score_b"], a2["score_b_adjudication_required"]) == ("A2", 6.5, False)  # 6 and 7; one unscored
    assert any("no component list for A1, A2" in w for w in export.warnings)
    assert export.unscored == ["A3"]  # every sample unscored: left out, and listed
    meta = json.loads(paths[1].read_text(encoding="utf-8"))
    assert meta == {
        "rubric_key": "Tiny_grading_key",
        "candidate_model_id": "tuned",
        "contact_or_repo": "https://example.org/geo",
    }


def test_leaderboard_of_the_base_counts_errors_as_zero(run: tuple[Engine, int, Path]) -> None:
    engine, run_id, _ = run
    export = leaderboard_export(engine, run_id, "base", rubric_key="K", candidate_model_id="org/base-7b")
    by_id = {entry.id: entry for entry in export.scores}
    assert (by_id["A1"].score_b, by_id["A2"].score_b, by_id["A3"].score_b) == (4, 0, 2.67)
    assert isinstance(by_id["A1"].score_b, int)
    assert by_id["A2"].score_b_gate_passed is False
    assert [(c["id"], c["awarded"], c["maximum"]) for c in by_id["A2"].score_b_components] == [
        ("C1", 0, 3),
        ("C2", 0, 3),
        ("C3", 0, 4),
    ]
    assert str(by_id["A2"].score_b_components[0]["reason"]).startswith("generation failed: empty")
    assert by_id["A1"].score_b_components == components({"C1": 3, "C2": 1, "C3": 0})  # 4, 4, 4: one record
    assert by_id["A3"].score_b_gate_passed is True  # samples 0 and 2 passed (4); sample 1 failed the gate (0)
    assert by_id["A3"].score_b_components is None  # 2.67 is no record's total
    assert export.unscored == [] and export.meta["rubric_key"] == "K"
    assert export.meta["candidate_model_id"] == "org/base-7b"
    with pytest.raises(ExportError, match="no model 'nope' \\(it has base, tuned\\)"):
        leaderboard_export(engine, run_id, "nope")
    with pytest.raises(RunRecordError, match="no run 99"):
        leaderboard_export(engine, 99, "base")


def test_csv_per_question_and_model(run: tuple[Engine, int, Path], tmp_path: Path) -> None:
    engine, run_id, _ = run
    path = write_results_csv(question_figures(load_run_results(engine, run_id)), tmp_path / "out" / "results.csv")
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))
    assert tuple(rows[0]) == CSV_COLUMNS
    table = {(r[0], r[1]): r[2:] for r in rows[1:]}
    assert [(r[0], r[1]) for r in rows[1:]] == [(q, m) for q in ("A1", "A2", "A3") for m in ("base", "tuned")]
    # base, samples, scored, errors, unscored, unjudged, missing, settled, mean, sd, gate rate, wins, ties, losses, unknown
    assert table[("A1", "base")] == ["base", "3", "3", "0", "0", "0", "0", "0", "4.0", "0.0", "1.0", "", "", "", ""]
    assert table[("A1", "tuned")] == [
        "base",
        "3",
        "3",
        "0",
        "0",
        "0",
        "0",
        "0",
        "6.3333",
        "0.5774",
        "1.0",
        "2",
        "1",
        "0",
        "0",
    ]
    assert table[("A2", "base")] == ["base", "3", "0", "3", "0", "0", "0", "0", "0.0", "0.0", "0.0", "", "", "", ""]
    assert table[("A2", "tuned")] == [
        "base",
        "3",
        "2",
        "0",
        "1",
        "0",
        "0",
        "0",
        "6.5",
        "0.7071",
        "1.0",
        "3",
        "0",
        "0",
        "0",
    ]
    assert table[("A3", "base")] == [
        "base",
        "3",
        "3",
        "0",
        "0",
        "0",
        "0",
        "0",
        "2.6667",
        "2.3094",
        "0.6667",
        "",
        "",
        "",
        "",
    ]
    assert table[("A3", "tuned")] == ["base", "3", "0", "0", "3", "0", "0", "0", "", "", "", "0", "0", "0", "3"]


def test_a_harness_import_exports_from_the_file_records(tmp_path: Path) -> None:
    """Imported runs keep the harness's own component lists; side A is the base."""
    from gtreview.app.harness_import import import_harness_files

    def side(awards: dict[str, int], gate: bool, flag: bool = False) -> dict[str, object]:
        return {
            "components": [
                {"id": c, "awarded": a, "maximum": m} for (c, a), m in zip(awards.items(), (3, 3, 4), strict=True)
            ],
            "gate": gate,
            "total": sum(awards.values()) if gate else 0,
            "flag": flag,
        }

    entries = []
    for qid, a, b, verdicts in (
        ("1", side({"C1": 3, "C2": 1, "C3": 0}, True), side({"C1": 3, "C2": 3, "C3": 2}, True, True), ("A>B", "B>A")),
        ("2", side({"C1": 0, "C2": 0, "C3": 0}, False), side({"C1": 3, "C2": 0, "C3": 0}, True), ("B>A", "A>B")),
    ):
        entry: dict[str, object] = {
            "id": qid,
            "verdict_normal": f"[[{verdicts[0]}]]",
            "verdict_swapped": f"[[{verdicts[1]}]]",
        }
        for name, record in (("a", a), ("b", b)):
            entry[f"score_{name}"] = record["total"]
            entry[f"score_{name}_gate_passed"] = record["gate"]
            entry[f"score_{name}_components"] = record["components"]
            entry[f"score_{name}_adjudication_required"] = record["flag"]
        entries.append(entry)
    scores = tmp_path / "scores.json"
    scores.write_text(json.dumps(entries), encoding="utf-8")
    project = create_project(tmp_path / "p")
    try:
        report = import_harness_files(project.engine, RUBRIC, scores=scores, labels=("base", "cand"))
        assert report.run_id is not None and not report.disagreements
        export = leaderboard_export(project.engine, report.run_id, "cand", rubric=RUBRIC, rubric_key="Tiny")
        first, second = export.scores
        assert (first.id, first.score_b, first.score_b_adjudication_required) == ("A1", 8, True)
        assert [c["awarded"] for c in first.score_b_components] == [3, 3, 2]
        assert (second.id, second.score_b, second.score_b_gate_passed) == ("A2", 3, True)
        assert first.question == RUBRIC.questions[0].question
        rows = {(r.question_id, r.model): r for r in question_figures(load_run_results(project.engine, report.run_id))}
        a1, a2 = rows[("A1", "cand")].pairs, rows[("A2", "cand")].pairs
        assert a1 is not None and a2 is not None and rows[("A1", "cand")].base == "base"
        assert (a1.wins, a1.losses, a2.wins, a2.losses) == (0, 1, 1, 0)  # the pair is base-vs-cand
    finally:
        project.close()
