"""``gtreview harness import`` with files laid out exactly as the Groundtruth harness writes them.

Every file is written by ``tests.interop.harness_format`` from the README's format facts:
score entries in the harness's key order with bare verdict tokens, the swapped score
already negated and ``avg_score`` a float; errors files with the raw reply and an empty
event stream (api mode); pointwise-only and pairwise-only files; older files with
bracketed tokens, ``answer`` keys and digit-only ids; CRLF line ends.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest

from gtreview.app.results import load_results
from gtreview.cli.main import main
from gtreview.core.rubric import Rubric
from gtreview.results.loader import SampleStatus, load_run_results
from gtreview.store import db, runs_repo
from gtreview.store.project import open_project
from tests.cli.test_cli_rubric import gtreview
from tests.interop.harness_format import (
    UNSCORED,
    answer,
    failure,
    graded,
    legacy_answer,
    score_entry,
    verdicts,
    write,
)
from tests.projects import new_project

API_FAILED = "api failed: empty / thinking-only / leaked control tokens"
REFUSAL = "I'm sorry, I cannot access the deposit records needed to answer this."
THINKING = "<|channel>thought The Wywyana Formation is a carbonate unit...<channel|>"


def cli(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    status = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.fixture
def rubric_path(interop_dir: Path) -> Path:
    return interop_dir / "rubrics" / "Yudnamutana_QA_grading_key.json"


@pytest.fixture
def texts(rubric_path: Path) -> dict[str, str]:
    rubric = Rubric.model_validate_json(rubric_path.read_text(encoding="utf-8"))
    return {q.id: q.question or "" for q in rubric.questions}


def base_and_lora(tmp_path: Path, texts: dict[str, str]) -> dict[str, Path]:
    """A generation round in api mode and its ``--score base lora`` round; nothing to dispute.

    The base failed B2 (a thinking-only reply) and C3 (a refusal): they are in its errors
    file, so the score round gave the judge an empty answer A for them (scored 0, and the
    pair lost by the base in both orders).
    """
    lora = {
        "A1": "The Wywyana Formation hosts the deposits: a carbonate, calc-silicate host.",
        "B2": "Malachite and azurite are supergene, chalcopyrite is hypogene.",
        "C3": "Three deposits, thirty occurrences and one prospect.",
    }
    base = "Copper occurs in the Wywyana Formation near Yudnamutana, hosted by carbonates."
    write(tmp_path / "answers-base.json", [answer("A1", texts["A1"], base)])
    write(
        tmp_path / "answers-base.errors.json",
        [
            failure("B2", texts["B2"], THINKING, "", API_FAILED),
            failure("C3", texts["C3"], REFUSAL, REFUSAL, API_FAILED),
        ],
    )
    write(tmp_path / "answers-lora.json", [answer(q, texts[q], lora[q]) for q in ("A1", "B2", "C3")])
    entries = [
        score_entry(
            "A1",
            texts["A1"],
            a=(base, graded("A1", True, {"C1": 3, "C2": 1, "C3": 0})),
            b=(lora["A1"], graded("A1", True, {"C1": 3, "C2": 3, "C3": 2}, flag=True)),
            pair=verdicts("B>A", "A>B"),  # lora better in both orders
        ),
        score_entry(
            "B2",
            texts["B2"],
            a=("", graded("B2", False, {})),
            b=(lora["B2"], graded("B2", True, {"C1": 3, "C2": 0, "C3": 0})),
            pair=verdicts("B>>A", "A>>B"),
        ),
        score_entry(
            "C3",
            texts["C3"],
            a=("", graded("C3", False, {})),
            b=(lora["C3"], graded("C3", True, {"C1": 4, "C2": 1, "C3": 1})),
            pair=verdicts("B>>A", "A>>B"),
        ),
    ]
    scores = write(tmp_path / "score-base-vs-lora.json", entries)
    return {"scores": scores, "base": tmp_path / "answers-base.json", "lora": tmp_path / "answers-lora.json"}


def importing(rubric: Path, project: Path, *extra: str | Path) -> list[str | Path]:
    new_project(project)  # an import goes into an existing project; this test makes it first
    return [
        "harness",
        "import",
        "--rubric",
        rubric,
        "--label-a",
        "base",
        "--label-b",
        "lora",
        *extra,
        "--project",
        project,
    ]


def test_a_clean_round_imports_with_exit_0_and_keeps_every_answer(
    tmp_path: Path, rubric_path: Path, texts: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    files = base_and_lora(tmp_path, texts)
    project = tmp_path / "project"
    args = importing(rubric_path, project, "--scores", files["scores"], "--answers-a", files["base"])
    status, out, err = cli(capsys, *args, "--answers-b", files["lora"], "--json")
    assert status == 0, out + err
    report = json.loads(out)
    assert report["ok"] and report["disagreements"] == [] and report["unmatched_ids"] == []
    assert (report["answers"], report["failures"], report["judgements"], report["pairs"]) == (4, 2, 6, 3)

    opened = open_project(project)
    try:
        with db.reading(opened.engine) as session:
            (run,) = runs_repo.list_runs(session)
        with db.reading(opened.engine) as session:
            generations = {(g.model_label, g.qid): g for g in runs_repo.run_generations(session, run.id)}
        assert len(generations) == 6
        # the failures keep the raw reply: a thinking-only text and a refusal, with the harness's reason
        assert (generations[("base", "B2")].raw_text, generations[("base", "B2")].status) == (THINKING, "error")
        assert generations[("base", "C3")].raw_text == REFUSAL
        assert generations[("base", "C3")].error == API_FAILED
        results = load_run_results(opened.engine, run.id)
        assert results.models == ["base", "lora"] and results.base == "base"
        totals = {(s.model, s.qid): (s.status, s.total) for s in results.samples}
        assert totals[("lora", "A1")] == (SampleStatus.SCORED, 8.0)
        assert totals[("base", "B2")] == (SampleStatus.ERROR, 0.0)
        pairs = {p.qid: (p.finetune, p.label, p.average) for p in results.pairs}
        assert pairs == {"A1": ("lora", "A>B", 1.0), "B2": ("lora", "A>>B", 2.0), "C3": ("lora", "A>>B", 2.0)}
    finally:
        opened.close()

    csv_path = tmp_path / "results.csv"
    status, _, err = cli(capsys, "export", "csv", "--run", str(run.id), "-o", csv_path, "--project", project)
    assert status == 0, err
    with csv_path.open(encoding="utf-8", newline="") as handle:
        rows = {(r["question_id"], r["model"]): r for r in csv.DictReader(handle)}
    assert [(rows[(q, "lora")]["wins"], rows[(q, "lora")]["ties"], rows[(q, "lora")]["losses"]) for q in texts] == [
        ("1", "0", "0")
    ] * 3

    # the same files again: the same run, nothing written
    status, out, _ = cli(capsys, *args, "--answers-b", files["lora"])
    assert status == 0 and f"already imported as run {run.id}" in out
    opened = open_project(project)
    try:
        with db.reading(opened.engine) as session:
            assert [(r.id, r.generations, r.judgements, r.pairs) for r in runs_repo.list_runs(session)] == [
                (run.id, 6, 6, 3)
            ]
    finally:
        opened.close()


def test_scores_alone_store_both_answers_of_every_entry(
    tmp_path: Path, rubric_path: Path, texts: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    files = base_and_lora(tmp_path, texts)
    project = tmp_path / "project"
    status, out, err = cli(capsys, *importing(rubric_path, project, "--scores", files["scores"]), "--json")
    assert status == 0, out + err
    assert (json.loads(out)["answers"], json.loads(out)["failures"]) == (4, 2)  # the base's two blank answers
    opened = open_project(project)
    try:
        with db.reading(opened.engine) as session:
            (run,) = runs_repo.list_runs(session)
        with db.reading(opened.engine) as session:
            generations = {(g.model_label, g.qid): g for g in runs_repo.run_generations(session, run.id)}
        assert generations[("lora", "B2")].clean_text.startswith("Malachite")
        assert generations[("base", "A1")].raw_text.startswith("Copper occurs")
        assert (generations[("base", "C3")].status, generations[("base", "C3")].error) == ("error", "empty answer")
        assert run.generations == 6
    finally:
        opened.close()


def test_only_real_differences_are_disagreements_each_with_its_rule(
    tmp_path: Path, rubric_path: Path, texts: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    entries = [
        score_entry(  # file A had no answer: the judge was sent an empty one and claimed 3
            "A1",
            texts["A1"],
            a=("", graded("A1", True, {"C1": 3})),
            b=("The Wywyana Formation hosts them.", graded("A1", True, {"C1": 3, "C2": 3})),
            pair=verdicts("A=B", "A=B"),
        ),
        score_entry(  # unscored on both sides and an unknown pair: nothing to dispute
            "B2",
            texts["B2"],
            a=("Supergene malachite.", UNSCORED),
            b=("Supergene malachite and azurite.", UNSCORED),
            pair=verdicts("A>B", None),
        ),
        score_entry(  # a passed gate with C1 below full: the harness took the judge's sum, 8
            "C3",
            texts["C3"],
            a=("Three deposits.", graded("C3", True, {"C1": 4, "C2": 0, "C3": 0})),
            b=("Three deposits, thirty occurrences.", graded("C3", True, {"C1": 2, "C2": 3, "C3": 3})),
            pair=verdicts("B>A", "A>B"),
        ),
    ]
    scores = write(tmp_path / "scores.json", entries)
    project = tmp_path / "project"
    status, out, err = cli(capsys, *importing(rubric_path, project, "--scores", scores), "--json")
    assert status == 1, err
    report = json.loads(out)
    found = {(d["id"], d["field"]): d for d in report["disagreements"]}
    assert set(found) == {("A1", "score_a"), ("A1", "verdict"), ("C3", "score_b")}
    assert (found[("A1", "score_a")]["file_value"], found[("A1", "score_a")]["recomputed"]) == (3, 0)
    assert found[("A1", "score_a")]["rule"].startswith("an empty answer fails the gate")
    assert (found[("A1", "verdict")]["file_value"], found[("A1", "verdict")]["recomputed"]) == ("A=B", "B>>A")
    assert found[("A1", "verdict")]["rule"].startswith("an empty answer loses the pair")
    assert (found[("C3", "score_b")]["file_value"], found[("C3", "score_b")]["recomputed"]) == (8, 10)
    assert "a passed gate earns its full points" in found[("C3", "score_b")]["rule"]
    assert (report["unscored"], report["unknown_pairs"]) == (2, 1)

    status, out, _ = cli(capsys, *importing(rubric_path, tmp_path / "again", "--scores", scores))
    assert status == 1
    assert "entry 2 [C3] score_b: file 8, gtreview 10: a passed gate earns its full points" in out

    opened = open_project(project)
    try:
        with db.reading(opened.engine) as session:
            (run,) = runs_repo.list_runs(session)
        results = load_run_results(opened.engine, run.id)
        samples = {(s.model, s.qid): s for s in results.samples}
        assert (samples[("base", "A1")].status, samples[("base", "A1")].total) == (SampleStatus.ERROR, 0.0)
        assert samples[("base", "B2")].status is SampleStatus.UNSCORED
        assert samples[("lora", "C3")].total == 10 and samples[("lora", "C3")].awards == {"C1": 4, "C2": 3, "C3": 3}
        assert {p.qid: p.label for p in results.pairs}["B2"] == "unknown"
    finally:
        opened.close()

    board = tmp_path / "board"
    status, out, err = cli(
        capsys, "export", "leaderboard", "--run", str(run.id), "--model", "lora", "-o", board,
        "--rubric-key", "yudnamutana", "--project", project,
    )  # fmt: skip
    assert status == 0, err
    for entry in json.loads((board / "scores.json").read_text(encoding="utf-8")):
        awarded = sum(c["awarded"] for c in entry["score_b_components"])
        assert entry["score_b"] == (awarded if entry["score_b_gate_passed"] else 0) == awarded, entry
    by_id = {e["id"]: e for e in json.loads((board / "scores.json").read_text(encoding="utf-8"))}
    assert by_id["C3"]["score_b"] == 10 and [c["awarded"] for c in by_id["C3"]["score_b_components"]] == [4, 3, 3]
    assert "B2" not in by_id  # unscored: left out, and listed


def test_pointwise_only_and_pairwise_only_files(
    tmp_path: Path, rubric_path: Path, texts: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    lora = {q: f"An answer to {q} about the Wywyana Formation." for q in texts}
    pointwise = write(
        tmp_path / "score-lora.json",
        [score_entry(q, texts[q], b=(lora[q], graded(q, True, {"C2": 1}))) for q in texts],
    )
    assert list(json.loads(pointwise.read_text(encoding="utf-8"))[0]) == [
        "id", "question", "answer_b", "answer_b_clean", "source_answer_b", "score_b", "score_b_reason",
        "score_b_gate_passed", "score_b_components", "score_b_adjudication_required", "score_b_adjudication_note",
    ]  # fmt: skip
    status, out, err = cli(capsys, *importing(rubric_path, tmp_path / "p1", "--scores", pointwise), "--json")
    assert status == 0, out + err
    assert (json.loads(out)["judgements"], json.loads(out)["pairs"], json.loads(out)["answers"]) == (3, 0, 3)
    opened = open_project(tmp_path / "p1")
    try:
        with db.reading(opened.engine) as session:
            results = load_run_results(opened.engine, runs_repo.list_runs(session)[0].id)
        assert results.models == ["lora"] and [s.total for s in results.samples] == [4.0, 4.0, 5.0]
    finally:
        opened.close()

    pairwise = write(
        tmp_path / "score-pairwise.json",
        [
            score_entry(q, texts[q], a=("Base says copper.", {}), b=(lora[q], {}), pair=verdicts("B>A", "A>B"))
            for q in texts
        ],
    )
    status, out, err = cli(capsys, *importing(rubric_path, tmp_path / "p2", "--scores", pairwise), "--json")
    assert status == 0, out + err
    assert (json.loads(out)["judgements"], json.loads(out)["pairs"], json.loads(out)["answers"]) == (0, 3, 6)
    for project in (tmp_path / "p1", tmp_path / "p2"):  # the report and the figures work like on any run
        status, _, err = cli(capsys, "report", "--run", "1", "--pdf", tmp_path / "r.pdf", "--project", project)
        assert status == 0 and (tmp_path / "r.pdf").stat().st_size > 0, err
        status, out, err = cli(capsys, "results", "--run", "1", "--json", "--project", project)
        assert status == 0, err
        opened = open_project(project)
        try:  # what the results view loads: the run, its status line and the leaderboard
            shown = load_results(opened.engine, 1, None)
            assert shown.status.startswith("Imported from harness files") and len(shown.leaderboard) == 1
            assert shown.gate.line == (  # scores made outside gtreview are never gated
                "Judge NOT gated: scores imported from harness files, judged outside gtreview with no calibration kept."
            )
            assert json.loads(out)["judge_gate"]["line"] == shown.gate.line
        finally:
            opened.close()
    assert json.loads(out)["models"][1]["label"] == "lora"


def test_older_files_bracketed_tokens_legacy_answers_digit_ids_and_crlf(
    tmp_path: Path, rubric_path: Path, texts: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    qids = {"1": "A1", "2": "B2", "3": "C3"}
    answers = write(
        tmp_path / "old-lora.json", [legacy_answer(d, texts[q], f"Older answer {d}.") for d, q in qids.items()]
    )
    entries: list[dict[str, Any]] = []
    for digits, qid in qids.items():
        entry = score_entry(
            digits,
            texts[qid],
            a=(f"Base {digits} answer.", graded(qid, True, {"C2": 1})),
            b=(f"Older answer {digits}.", graded(qid, True, {"C2": 2})),
            pair=verdicts("B>A", "A>B", brackets=True),
        )
        if digits == "3":  # the judge's whole text in the token field: its FIRST token counts
            entry["verdict_normal"] = "B is closer to the records [[B>A]]; on reflection [[A>B]]"
        entries.append(entry)
    scores = write(tmp_path / "old-scores.json", entries, crlf=True)
    assert b"\r\n" in scores.read_bytes()
    project = tmp_path / "project"
    status, out, err = cli(
        capsys, *importing(rubric_path, project, "--scores", scores, "--answers-b", answers), "--json"
    )
    assert status == 0, out + err
    opened = open_project(project)
    try:
        results = load_run_results(opened.engine, 1)
        assert {s.qid for s in results.samples} == {"A1", "B2", "C3"}
        assert {p.qid: p.label for p in results.pairs} == {"A1": "A>B", "B2": "A>B", "C3": "A>B"}
    finally:
        opened.close()


def nothing_stored(project: Path) -> bool:
    opened = open_project(project)
    try:
        with db.reading(opened.engine) as session:
            return runs_repo.list_runs(session) == []
    finally:
        opened.close()


def test_bad_input_is_one_line_and_changes_nothing(
    tmp_path: Path, rubric_path: Path, texts: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    entry = score_entry("A1", texts["A1"], b=("An answer.", graded("A1", True, {"C2": 1})))
    entry["score_b"] = "4"
    scores = write(tmp_path / "scores.json", [entry])
    project = new_project(tmp_path / "project")
    status, out, err = cli(capsys, *importing(rubric_path, project, "--scores", scores))
    assert status == 2 and out == ""
    assert err.strip().count("\n") == 0 and 'entry 0 (A1): score_b is "4", not a number or null' in err
    assert nothing_stored(project)
    (tmp_path / "broken.json").write_text('[{"id": "A1",', encoding="utf-8")
    status, _, err = cli(capsys, *importing(rubric_path, project, "--scores", tmp_path / "broken.json"))
    assert status == 2 and "not valid JSON" in err and nothing_stored(project)
    twice = write(
        tmp_path / "twice.json", [score_entry("A1", "q", b=("x", UNSCORED)), score_entry("1", "q", b=("y", UNSCORED))]
    )
    status, _, err = cli(capsys, *importing(rubric_path, project, "--scores", twice))
    assert status == 2 and "both answer question A1" in err and nothing_stored(project)


def test_the_rubric_key_comes_from_the_harness_registry(
    tmp_path: Path, rubric_path: Path, texts: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    files = base_and_lora(tmp_path, texts)
    registry = write(
        tmp_path / "rubrics.json",
        [{"key": "yudnamutana", "label": "Yudnamutana", "file": "rubrics/Yudnamutana_QA_grading_key.json"}],
    )
    project = tmp_path / "project"
    args = importing(rubric_path, project, "--scores", files["scores"], "--rubrics-config", registry)
    status, out, err = cli(capsys, *args, "--json")
    assert status == 0 and json.loads(out)["rubric_key"] == "yudnamutana", err
    board = tmp_path / "board"
    status, _, err = cli(
        capsys, "export", "leaderboard", "--run", "1", "--model", "lora", "-o", board, "--model-name", "Geo LoRA",
        "--submitter", "geo-lab", "--date", "2025-05-01", "--project", project,
    )  # fmt: skip
    assert status == 0, err
    meta = json.loads((board / "meta.json").read_text(encoding="utf-8"))
    assert meta == {
        "rubric_key": "yudnamutana",
        "model_name": "Geo LoRA",
        "candidate_model_id": "lora",
        "submitter": "geo-lab",
        "contact_or_repo": "",
        "date": "2025-05-01",
    }
    scores = json.loads((board / "scores.json").read_text(encoding="utf-8"))
    assert [(e["id"], e["score_b"], e["score_b_gate_passed"]) for e in scores] == [
        ("A1", 8, True),
        ("B2", 3, True),
        ("C3", 6, True),
    ]
    assert scores[0]["score_b_adjudication_required"] is True

    # an import that knows no key: the export says how to give one, and writes nothing
    other = tmp_path / "other"
    status, _, _ = cli(capsys, *importing(rubric_path, other, "--scores", files["scores"]))
    assert status == 0
    status, _, err = cli(
        capsys, "export", "leaderboard", "--run", "1", "--model", "lora", "-o", tmp_path / "b2", "--project", other
    )
    assert status == 2 and "--rubric-key" in err and not (tmp_path / "b2").exists()


def maxima_components(awards: dict[str, int], maxima: dict[str, int]) -> list[dict[str, object]]:
    return [{"id": cid, "awarded": v, "maximum": maxima[cid]} for cid, v in awards.items()]


def test_a_file_whose_figures_contradict_themselves(tmp_path: Path, interop_dir: Path) -> None:
    """Hand-made entries (not the harness's key order): a wrong total and mean, an unreadable verdict."""
    rubric = interop_dir / "rubrics" / "Yudnamutana_QA_grading_key.json"
    m = {"C1": 3, "C2": 3, "C3": 4}
    scores = [
        {  # all consistent (harness ids are digits only: "1" is A1)
            "id": "1",
            "question": "q",
            "verdict": "[[A>B]]",
            "verdict_normal": "[[A>B]]",
            "verdict_normal_score": 1,
            "verdict_swapped": "[[B>A]]",
            "verdict_swapped_score": 1,
            "avg_score": 1.0,
            "reason": "r",
            "score_a": 6,
            "score_b": 3,
            "score_a_gate_passed": True,
            "score_b_gate_passed": True,
            "score_a_components": maxima_components({"C1": 3, "C2": 3, "C3": 0}, m),
            "score_b_components": maxima_components({"C1": 3, "C2": 0, "C3": 0}, m),
        },
        {  # the file's total ignores the failed gate, and its average is wrong
            "id": "2",
            "question": "q",
            "verdict": "A>B",
            "verdict_normal": "[[A>>B]]",
            "verdict_normal_score": 2,
            "verdict_swapped": "[[A>B]]",
            "verdict_swapped_score": -1,
            "avg_score": 1.5,
            "score_a": 4,
            "score_b": 10,
            "score_a_gate_passed": False,
            "score_b_gate_passed": True,
            "score_a_components": maxima_components({"C1": 0, "C2": 0, "C3": 4}, m),
            "score_b_components": maxima_components({"C1": 3, "C2": 3, "C3": 4}, m),
        },
        {  # an unparseable verdict must be unknown, not a tie
            "id": "3",
            "question": "q",
            "verdict": "A=B",
            "verdict_normal": "no idea",
            "verdict_swapped": "[[A=B]]",
            "score_a": 4,
            "score_b": 4,
            "score_a_gate_passed": True,
            "score_b_gate_passed": True,
            "score_a_components": maxima_components({"C1": 4, "C2": 0, "C3": 0}, {"C1": 4, "C2": 3, "C3": 3}),
            "score_b_components": maxima_components({"C1": 4, "C2": 0, "C3": 0}, {"C1": 4, "C2": 3, "C3": 3}),
        },
    ]
    scores_path = tmp_path / "scores.json"
    scores_path.write_text(json.dumps(scores), encoding="utf-8")
    answers = tmp_path / "lora_answers.json"
    answers.write_text(
        json.dumps(
            [
                {"id": "1", "question": "q", "answer_b": "<think>x</think>The host.", "answer_b_clean": "The host."},
                {"id": "2", "question": "q", "answer": "Older format answer."},
            ]
        ),
        encoding="utf-8",
    )
    (tmp_path / "lora_answers.json.errors.json").write_text(
        json.dumps(
            [
                {
                    "id": "3",
                    "question": "q",
                    "answer_b": "",
                    "answer_b_clean": "",
                    "error": "empty after 3 retries",
                    "raw_output": "<think>",
                }
            ]
        ),
        encoding="utf-8",
    )
    project = new_project(tmp_path / "project")
    result = gtreview(
        "harness",
        "import",
        "--rubric",
        rubric,
        "--scores",
        scores_path,
        "--answers-b",
        answers,
        "--label-a",
        "base",
        "--label-b",
        "lora",
        "--project",
        project,
        "--json",
    )
    assert result.returncode == 1, result.stderr  # disagreements found
    report = json.loads(result.stdout)
    found = {(d["id"], d["field"]): d for d in report["disagreements"]}
    assert set(found) == {("2", "score_a"), ("2", "avg_score"), ("3", "verdict")}
    assert found[("2", "score_a")]["file_value"] == 4 and found[("2", "score_a")]["recomputed"] == 0
    assert found[("2", "avg_score")]["file_value"] == 1.5 and found[("2", "avg_score")]["recomputed"] == 0.5
    assert found[("3", "verdict")]["recomputed"] == "unknown"
    assert found[("2", "avg_score")]["rule"] == "the pair scores the mean of its two orders"
    assert found[("3", "verdict")]["rule"].startswith("a verdict that cannot be read makes the pair unknown")
    assert (report["answers"], report["failures"], report["judgements"], report["pairs"]) == (2, 1, 6, 3)

    opened = open_project(project)
    try:
        with db.reading(opened.engine) as session:
            (run,) = runs_repo.list_runs(session)
        assert (run.source, run.generations, run.judgements, run.pairs) == ("harness-import", 3, 6, 3)
        with db.reading(opened.engine) as session:
            generations = runs_repo.run_generations(session, run.id)
        assert [(g.qid, g.status, g.clean_text) for g in generations] == [
            ("A1", "ok", "The host."),
            ("B2", "ok", "Older format answer."),
            ("C3", "error", ""),
        ]
        with db.reading(opened.engine) as session:
            totals = {(j.qid, j.model_label): j.total for j in runs_repo.run_judgements(session, run.id)}
        assert totals[("B2", "base")] == 0 and totals[("A1", "base")] == 6
        with db.reading(opened.engine) as session:
            labels = [p.label for p in runs_repo.run_pairs(session, run.id)]
        assert labels == ["A>B", "A>B", "unknown"]
    finally:
        opened.close()
