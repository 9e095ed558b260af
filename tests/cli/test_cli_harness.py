"""Importing harness answer and score files: stored as a run, recomputed, disagreements listed."""

import json
from pathlib import Path

from gtreview.store import runs_repo
from gtreview.store.project import open_project
from tests.cli.test_cli_rubric import gtreview


def components(awards: dict[str, int], maxima: dict[str, int]) -> list[dict[str, object]]:
    return [{"id": cid, "awarded": v, "maximum": maxima[cid]} for cid, v in awards.items()]


def test_import_recomputes_and_lists_disagreements(tmp_path: Path, interop_dir: Path) -> None:
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
            "score_a_components": components({"C1": 3, "C2": 3, "C3": 0}, m),
            "score_b_components": components({"C1": 3, "C2": 0, "C3": 0}, m),
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
            "score_a_components": components({"C1": 0, "C2": 0, "C3": 4}, m),
            "score_b_components": components({"C1": 3, "C2": 3, "C3": 4}, m),
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
            "score_a_components": components({"C1": 4, "C2": 0, "C3": 0}, {"C1": 4, "C2": 3, "C3": 3}),
            "score_b_components": components({"C1": 4, "C2": 0, "C3": 0}, {"C1": 4, "C2": 3, "C3": 3}),
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
    project = tmp_path / "project"
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
    assert (report["answers"], report["failures"], report["judgements"], report["pairs"]) == (2, 1, 6, 3)

    opened = open_project(project, create=False)
    try:
        (run,) = runs_repo.list_runs(opened.engine)
        assert (run.source, run.generations, run.judgements, run.pairs) == ("harness-import", 3, 6, 3)
        generations = runs_repo.run_generations(opened.engine, run.id)
        assert [(g.qid, g.status, g.clean_text) for g in generations] == [
            ("A1", "ok", "The host."),
            ("B2", "ok", "Older format answer."),
            ("C3", "error", ""),
        ]
        totals = {(j.qid, j.model_label): j.total for j in runs_repo.run_judgements(opened.engine, run.id)}
        assert totals[("B2", "base")] == 0 and totals[("A1", "base")] == 6
        labels = [p.label for p in runs_repo.run_pairs(opened.engine, run.id)]
        assert labels == ["A>B", "A>B", "unknown"]
    finally:
        opened.close()
