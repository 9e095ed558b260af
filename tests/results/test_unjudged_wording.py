"""A pass stopped before its judge returned a verdict reads "not judged yet", never "none in
these questions" (its questions have facts, reasoning and a gate); the PDF's item analysis
names the samples it left out by the counts' own names (unjudged, not "unscored or missing")."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from gtreview.report.run_report import build_report
from gtreview.results.analysis import analyse
from gtreview.results.loader import load_run_results
from gtreview.results.reading import fine_tune_readings
from gtreview.runs.execute import PassCancelled, PassEvent
from tests.results.test_one_source import SEEDLESS, config, project, run

__all__ = ["project"]  # the fixture, used by name


def test_a_pass_stopped_before_judging_reads_not_judged_yet(project, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    opened, set_id = project
    cancel = threading.Event()

    def stop_at_the_judge(event: PassEvent) -> None:
        if event.phase == "judge":
            cancel.set()

    with pytest.raises(PassCancelled):
        run(opened.engine, set_id, config(), progress=stop_at_the_judge, cancel=cancel)
    results = load_run_results(opened.engine, 1)
    analysis = analyse(results, **SEEDLESS)
    (reading,) = fine_tune_readings(results, analysis)
    line = next(line for line in reading.lines if line.topic == "Facts versus reasoning")
    # the tiny rubric has reasoning components and a gate, but no binary facts
    assert line.reading.endswith("facts: none in these questions; reasoning: not judged yet")
    assert "reasoning not judged yet" in line.figures and "gate not judged yet" in line.figures
    document = build_report(results, analysis)
    alpha = next(b.text for b in document.blocks if getattr(b, "text", "").startswith("Cronbach's alpha"))
    assert "with unjudged samples left out" in alpha
