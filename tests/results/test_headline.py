"""The results headline says what each figure covers, so its numbers agree.

In the scripted pass every answer of ``tuned`` to A3 breaks the judge's contract, so
the base's mean covers 3 questions, the fine-tune's 2 and the paired difference the 2
both answered. The headline (the view's and the PDF's finding) and the CLI's difference
line name the questions each figure covers and give the paired means the difference is
made of, in the same words.
"""

from __future__ import annotations

import pytest

from gtreview.cli.main import main
from gtreview.report.run_report import build_report
from gtreview.results.analysis import analyse, fmt, fmt_ci
from gtreview.results.loader import load_run_results
from tests.results.test_one_source import SEEDLESS, config, project, run

__all__ = ["project"]


def test_the_headline_names_what_each_mean_and_the_difference_cover(
    project, capsys: pytest.CaptureFixture[str]
) -> None:  # type: ignore[no-untyped-def]
    opened, set_id = project
    run_id = run(opened.engine, set_id, config())
    results = load_run_results(opened.engine, run_id)
    analysis = analyse(results, **SEEDLESS)
    base, tuned = analysis.models
    (finetune,) = analysis.finetunes
    difference = finetune.difference
    assert (base.summary.n_questions, tuned.summary.n_questions, difference.n_questions) == (3, 2, 2)
    assert difference.mean_base is not None and difference.mean_finetune is not None
    assert fmt(difference.mean_finetune - difference.mean_base) == fmt(difference.mean_difference)

    paired = (
        f"On the 2 questions both answered: base {fmt(difference.mean_base)}, tuned {fmt(difference.mean_finetune)}, "
        f"difference {fmt(difference.mean_difference)} {fmt_ci(difference)}"
    )
    assert paired in analysis.finding
    assert f"'base' scored {fmt(base.summary.mean)} of 10 on all 3 questions" in analysis.finding
    assert f"'tuned' scored {fmt(tuned.summary.mean)} on 2 of the 3 questions" in analysis.finding

    # the PDF prints the same finding; the CLI's difference line the same paired figures
    document = build_report(results, analysis)
    shown = [getattr(b, "text", "") for b in document.blocks]
    assert analysis.finding in shown
    assert main(["results", "--run", str(run_id), "--project", str(opened.folder)]) == 0
    out = capsys.readouterr().out
    line = next(line for line in out.splitlines() if line.strip().startswith("tuned - base:"))
    assert paired.replace("On the", "on the") in line


def test_a_fine_tune_with_no_question_in_common_says_so(project) -> None:  # type: ignore[no-untyped-def]
    from gtreview.results.analysis import finding_text

    opened, set_id = project
    run_id = run(opened.engine, set_id, config())
    results = load_run_results(opened.engine, run_id)
    for sample in results.samples:  # nothing of the fine-tune's counted
        if sample.model == "tuned":
            sample.status, sample.total = type(sample.status).UNSCORED, None
    analysis = analyse(results, **SEEDLESS)
    text = finding_text(results, analysis)
    assert "no question has a counted answer from both" in text.lower()
    assert "difference –" not in text
