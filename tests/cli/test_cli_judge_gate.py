"""``gtreview judge gate``: the gate's settings shown and set (bad values in one line,
changing nothing), a pass's gate with its per-criterion lines, as ``results`` prints them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gtreview.app import adjudication as adj
from gtreview.app.judge_gate import judge_gate
from gtreview.app.project_settings import judge_gate_settings
from gtreview.cli.main import main
from gtreview.results.loader import load_run_results
from gtreview.store.project import open_project
from tests.cli.test_cli_results import cli, finished  # noqa: F401  (the fixture)


def _settings(folder: Path) -> tuple[str, float]:
    project = open_project(folder)
    try:
        settings = judge_gate_settings(project.engine)
    finally:
        project.close()
    return settings.measure, settings.threshold


def test_the_gate_settings_are_shown_and_set(finished, capsys) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    folder, _ = finished
    status, out, _ = cli(capsys, "judge", "gate", "--project", str(folder))
    assert status == 0
    assert (
        out == "judge gate is: weighted kappa on totals, and every criterion, with a 95% lower bound of at least 0.60\n"
    )
    status, out, _ = cli(
        capsys, "judge", "gate", "--project", str(folder), "--threshold", "0.7", "--measure", "krippendorff_alpha"
    )
    assert status == 0 and out.startswith("judge gate set to: Krippendorff's alpha on totals, ")
    assert "at least 0.70" in out
    status, out, _ = cli(capsys, "judge", "gate", "--project", str(folder), "--json")
    assert json.loads(out) == {
        "ok": True,
        "settings": {"measure": "krippendorff_alpha", "threshold": 0.7},
        "changed": [],
        "judge_gate": None,
    }


def test_bad_gate_settings_are_one_line_and_change_nothing(finished, capsys) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    folder, _ = finished
    where = ["judge", "gate", "--project", str(folder)]
    for argv, message in (
        (["--threshold", "1.5"], "a judge-gate threshold is an agreement in -1..1, not 1.5"),
        (["--threshold", "nan"], "agreement in -1..1, not nan"),
        (["--threshold", "0.3", "--measure", "accuracy"], "'accuracy' is not a judge-gate measure"),
    ):
        status, out, err = cli(capsys, *where, *argv)
        assert status != 0 and out == "" and err.count("\n") == 1 and message in err, (argv, err)
    with pytest.raises(SystemExit) as usage:  # argparse's own refusal, one line too
        main([*where, "--threshold", "high"])
    err = capsys.readouterr().err
    assert usage.value.code == 2 and err.count("\n") == 1 and "invalid float value: 'high'" in err
    assert _settings(folder) == ("weighted_kappa", 0.6)  # the threshold of the refused pair was not kept either


def test_a_pass_gate_with_blind_grades_prints_its_criteria(finished, capsys) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    folder, run_id = finished
    project = open_project(folder)
    try:
        samples = {s.generation_key: s for s in load_run_results(project.engine, run_id).samples}
        for item in adj.grading_sample(project.engine, run_id, grader="geo", size=100, seed=1):
            sample = samples[item.generation_key]
            assert sample.gate_passed is not None
            adj.save_grade(
                project.engine, run_id, item, grader="geo", gate_passed=sample.gate_passed, awards=sample.awards
            )
        gate = judge_gate(project.engine, run_id)
    finally:
        project.close()
    assert gate.expert is not None and len(gate.details) == 4  # a heading, then gate, binary and reasoning
    assert gate.details[0].startswith("Per criterion against the expert (criteria pooled by kind; 95% intervals")

    status, out, _ = cli(capsys, "judge", "gate", "--project", str(folder), "--run", str(run_id))
    assert status == 0 and f"run {run_id}: {gate.line}\n" in out
    assert all(f"  {line}\n" in out for line in gate.details)
    status, out, _ = cli(capsys, "results", "--run", str(run_id), "--project", str(folder))
    assert status == 0 and all(f"    {line}\n" in out for line in gate.details)
    status, out, _ = cli(capsys, "results", "--run", str(run_id), "--project", str(folder), "--json")
    printed = json.loads(out)["judge_gate"]
    assert printed["details"] == gate.details
    assert [c["kind"] for c in printed["expert"]["criteria"]] == ["gate", "binary", "reasoning"]

    # the measure changed from the command line is the one the next gate reads
    assert gate.expert.measure == "weighted_kappa"
    cli(capsys, "judge", "gate", "--project", str(folder), "--measure", "krippendorff_alpha")
    status, out, _ = cli(capsys, "judge", "gate", "--project", str(folder), "--run", str(run_id), "--json")
    again = json.loads(out)["judge_gate"]
    assert again["expert"]["measure"] == "krippendorff_alpha"
