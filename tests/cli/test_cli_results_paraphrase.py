"""``gtreview results`` prints the drop under paraphrase in the words the view and the PDF use."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gtreview.app.results import run_figures_of
from gtreview.cli.main import main
from tests.results.test_paraphrase import paraphrase_project


def test_results_prints_the_paraphrase_reading(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with paraphrase_project(tmp_path) as (project, (plain, _plain_analysis, results, _analysis)):
        folder = str(project.folder)
        assert main(["results", "--run", str(results.run_id), "--project", folder, "--json"]) == 0
        printed = json.loads(capsys.readouterr().out)
        report = run_figures_of(project.engine, results.run_id).paraphrase  # as the view shows it
        assert report is not None and printed["paraphrase"] == report.model_dump(mode="json")
        tuned = next(m for m in printed["paraphrase"]["models"] if m["label"] == "tuned")
        assert tuned["n_pairs"] == 6 and tuned["ci"]["level"] == 0.95 and tuned["versus_base"]["n_pairs"] == 6
        assert main(["results", "--run", str(results.run_id), "--project", folder]) == 0
        text = " ".join(capsys.readouterr().out.split())
        assert report.readings and all(line in text for line in report.readings)
        assert main(["results", "--run", str(plain.run_id), "--project", folder]) == 0
        assert "not measured: no paraphrased variants in this pass" in capsys.readouterr().out
