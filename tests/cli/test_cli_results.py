"""``gtreview results``, ``gtreview adjudicate`` and ``gtreview export`` drive what the app does,
and print the one loader's figures."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from gtreview.app.judge_gate import judge_gate
from gtreview.app.results import run_figures_of, run_readings_of
from gtreview.cli.main import main
from gtreview.results.loader import load_run_results
from gtreview.store import sets
from gtreview.store.db import unit_of_work
from gtreview.store.project import create_project, open_project
from tests.report.test_exports import RUBRIC
from tests.results.test_one_source import config, run


@pytest.fixture
def finished(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, int]:
    monkeypatch.setattr("gtreview.runs.execute.spec_identity", lambda spec: {"spec": spec})
    folder = tmp_path / "project"
    project = create_project(folder)
    try:
        with unit_of_work(project.engine) as tx:
            set_id = sets.import_rubric(tx, RUBRIC, source_name="Tiny_grading_key.json", source_sha256="s", actor="t")
        run_id = run(project.engine, set_id, config())
    finally:
        project.close()
    return folder, run_id


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_results_json_is_the_loaders_figures(finished, capsys) -> None:  # type: ignore[no-untyped-def]
    folder, run_id = finished
    status, out, _ = cli(capsys, "results", "--run", str(run_id), "--project", str(folder), "--json")
    assert status == 0
    printed = json.loads(out)
    project = open_project(folder)
    try:
        expected = run_figures_of(project.engine, run_id).model_dump(mode="json")
        gate = judge_gate(project.engine, run_id)
        readings = run_readings_of(project.engine, run_id).readings
    finally:
        project.close()
    assert printed == {
        "ok": True,
        **expected,
        "judge_gate": gate.model_dump(mode="json"),
        "readings": [reading.model_dump(mode="json") for reading in readings],
        "membership": None,  # no membership test kept with this pass
    }
    (reading,) = printed["readings"]  # one per fine-tune, none for the base
    assert reading["label"] == "tuned" and reading["verdict"]["kind"] == "cannot tell"  # three questions
    assert reading["verdict"]["text"].startswith("Provisional: the judge is not gated")
    assert printed["judge_gate"]["line"].startswith("Judge NOT gated: never calibrated: A1, A2, A3")
    assert [m["label"] for m in printed["models"]] == ["base", "tuned"]
    assert {(q["question_id"], q["model"]) for q in printed["questions"]} == {
        (q, m) for q in ("A1", "A2", "A3") for m in ("base", "tuned")
    }
    (difference,) = printed["differences"]
    assert difference["finetune"] == "tuned" and difference["verdict"] in (
        "within noise",
        "fine-tune better",
        "base better",
    )
    (pairwise,) = printed["pairwise"]
    assert pairwise["finetune"] == "tuned" and pairwise["counts"]["unknown"] == 3 and pairwise["judged"] is True
    status, out, _ = cli(capsys, "results", "--run", str(run_id), "--project", str(folder))
    assert status == 0 and "tuned vs base" in out and "95% interval" in out and "tuned - base:" in out
    assert "(95% interval, resampling questions)" in out  # the difference's interval says what it is
    assert f"tuned vs base: {pairwise['counts']['wins']} won," in out and "pairwise not run" not in out
    assert f"  {gate.line}\n" in out
    assert f"  Reading: tuned against base: {reading['verdict']['text']}\n" in out


def test_adjudicate_by_key_moves_every_figure(finished, capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    folder, run_id = finished
    where = ["--run", str(run_id), "--project", str(folder)]
    status, out, _ = cli(capsys, "adjudicate", "list", *where, "--json")
    assert status == 0
    items = json.loads(out)["items"]
    unscored = next(i for i in items if i["reason"] == "unscored" and i["qid"] == "A3" and i["sample_index"] == 0)
    assert not unscored["settled"]

    status, out, _ = cli(
        capsys,
        "adjudicate",
        "override",
        *where,
        "--item",
        unscored["key"],
        "--gate",
        "pass",
        "--award",
        "C2=3",
        "--award",
        "C3=2",
        "--reason",
        "the answer names the mechanism",
        "--actor",
        "geologist",
        "--json",
    )
    assert status == 0
    decision = json.loads(out)
    assert (decision["action"], decision["qid"], decision["model"]) == ("override", "A3", "tuned")

    status, out, _ = cli(capsys, "results", *where, "--json")
    figures = json.loads(out)
    tuned = next(m for m in figures["models"] if m["label"] == "tuned")
    assert tuned["settled"] == 1 and tuned["unscored"] == 3  # 4 unscored before, one now settled
    a3 = next(q for q in figures["questions"] if (q["question_id"], q["model"]) == ("A3", "tuned"))
    assert a3["mean"] == 8.0 and a3["n_settled"] == 1  # 3 (gate) + 3 + 2

    status, _, _ = cli(capsys, "export", "csv", *where, "-o", str(tmp_path / "r.csv"))
    assert status == 0
    with (tmp_path / "r.csv").open(encoding="utf-8", newline="") as handle:
        rows = {(r["question_id"], r["model"]): r for r in csv.DictReader(handle)}
    assert float(rows[("A3", "tuned")]["mean"]) == 8.0 and rows[("A3", "tuned")]["n_settled"] == "1"

    status, out, _ = cli(capsys, "adjudicate", "list", *where, "--json")
    assert next(i for i in json.loads(out)["items"] if i["key"] == unscored["key"])["settled"]

    status, out, _ = cli(
        capsys, "adjudicate", "revert", *where, "--item", unscored["key"], "--reason", "misread", "--json"
    )
    assert status == 0 and json.loads(out)["action"] == "revert"
    project = open_project(folder)
    try:
        results = load_run_results(project.engine, run_id)
    finally:
        project.close()
    assert not any(s.adjudicated for s in results.samples)

    flagged = next(i for i in items if i["reason"] == "flagged by the judge")
    status, out, _ = cli(capsys, "adjudicate", "confirm", *where, "--item", flagged["key"])
    assert status == 0 and out.startswith("decision ") and "confirm on A1 (tuned)" in out


def test_adjudicate_refuses_bad_input_in_one_line(finished, capsys) -> None:  # type: ignore[no-untyped-def]
    folder, run_id = finished
    where = ["--run", str(run_id), "--project", str(folder)]
    status, _, err = cli(capsys, "adjudicate", "override", *where, "--item", "nope", "--gate", "pass", "--reason", "r")
    assert status == 2 and err.count("\n") == 1 and "has no judgement or pair nope" in err
    status, out, _ = cli(capsys, "adjudicate", "list", *where, "--json")
    items = json.loads(out)["items"]
    answer = next(i for i in items if i["target"] == "judgement")
    pair = next(i for i in items if i["target"] == "pair")
    status, _, err = cli(
        capsys, "adjudicate", "override", *where, "--item", answer["key"], "--label", "A>B", "--reason", "r"
    )
    assert status == 2 and "say whether the gate passed" in err
    status, _, err = cli(
        capsys, "adjudicate", "override", *where, "--item", pair["key"], "--gate", "pass", "--reason", "r"
    )
    assert status == 2 and "is a pair" in err
    status, _, err = cli(
        capsys,
        "adjudicate",
        "override",
        *where,
        "--item",
        answer["key"],
        "--gate",
        "pass",
        "--award",
        "C9=1",
        "--reason",
        "r",
    )
    assert status == 2 and "no component C9" in err
    status, _, err = cli(capsys, "adjudicate", "revert", *where, "--item", answer["key"], "--reason", "r")
    assert status == 2 and "no decision in force" in err
    status, _, err = cli(capsys, "results", "--run", "42", "--project", str(folder))
    assert status == 2 and "no run 42" in err


def test_cli_exports(finished, capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    folder, run_id = finished
    project = ["--project", str(folder)]
    board = ["export", "leaderboard", "--run", str(run_id), "--model", "tuned", "-o", str(tmp_path / "b")]
    status, out, _ = cli(capsys, *board, "--contact", "me@example.org", "--json", *project)
    assert status == 0
    printed = json.loads(out)
    assert printed["questions"] == 2 and printed["unscored"] == ["A3"]
    assert printed["meta"] == {
        "rubric_key": "Tiny_grading_key",
        "candidate_model_id": "tuned",
        "contact_or_repo": "me@example.org",
    }
    assert json.loads((tmp_path / "b" / "scores.json").read_text(encoding="utf-8"))[0]["score_b"] == 6.33
    status, out, _ = cli(capsys, "export", "csv", "--run", str(run_id), "-o", str(tmp_path / "r.csv"), *project)
    assert status == 0 and "6 rows" in out and (tmp_path / "r.csv").is_file()
    status, _, err = cli(capsys, "export", "csv", "--run", "42", "-o", str(tmp_path / "x.csv"), *project)
    assert status == 2 and "no run 42" in err


def test_named_awards_that_contradict_the_gate_are_refused(finished, capsys) -> None:  # type: ignore[no-untyped-def]
    folder, run_id = finished
    where = ["--run", str(run_id), "--project", str(folder)]
    _, out, _ = cli(capsys, "adjudicate", "list", *where, "--json")
    answer = next(i for i in json.loads(out)["items"] if i["target"] == "judgement")
    base = ["adjudicate", "override", *where, "--item", answer["key"], "--reason", "r"]
    status, _, err = cli(capsys, *base, "--gate", "fail", "--award", "C2=2")
    assert status == 2 and "the gate failed, so every component scores 0; remove C2=2" in err
    status, _, err = cli(capsys, *base, "--gate", "pass", "--award", "C1=1")
    assert status == 2 and "C1 is the gate: it earns all 3 points" in err
    status, _, _ = cli(capsys, *base, "--gate", "pass", "--award", "C1=3", "--award", "C2=1")
    assert status == 0
    _, out, _ = cli(capsys, "adjudicate", "list", *where, "--json")
    assert sum(i["settled"] for i in json.loads(out)["items"]) == 1  # only the consistent one was recorded


def test_an_unwritable_output_and_a_closed_pipe_are_one_line(finished, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import subprocess
    import sys

    folder, run_id = finished
    blocked = tmp_path / "file"
    blocked.write_text("x", encoding="utf-8")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "gtreview.cli",
            "export",
            "csv",
            "--run",
            str(run_id),
            "--project",
            str(folder),
            "-o",
            str(blocked / "r.csv"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert f"cannot write {blocked / 'r.csv'}" in done.stderr and ".partial" not in done.stderr
    command = f"{sys.executable} -m gtreview.cli results --run {run_id} --project {folder} --json | head -c 10"
    piped = subprocess.run(command, shell=True, capture_output=True, text=True, timeout=120)
    assert "Traceback" not in piped.stderr and "BrokenPipe" not in piped.stderr
