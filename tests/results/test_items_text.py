"""Cronbach's alpha is printed only where the set can carry it."""

from __future__ import annotations

import numpy as np

from gtreview.core.stats import item_analysis
from gtreview.report.run_report import build_report
from gtreview.results.analysis import analyse
from gtreview.results.items_text import alpha_words
from gtreview.results.loader import load_run_results
from tests.results.test_one_source import SEEDLESS, config, project, run

__all__ = ["project"]


def test_alpha_over_two_questions_reads_too_few_in_the_report(project) -> None:  # type: ignore[no-untyped-def]
    opened, set_id = project
    results = load_run_results(opened.engine, run(opened.engine, set_id, config()))
    analysis = analyse(results, **SEEDLESS)
    assert analysis.items.n_items == 1  # A2 and A3 have unscored samples: left out
    document = build_report(results, analysis)
    (paragraph,) = [b.text for b in document.blocks if getattr(b, "text", "").startswith("Cronbach's alpha")]
    assert "too few to measure over 1 question and 6 answer sets" in paragraph and "[" not in paragraph
    assert "2 questions with unscored samples left out" in paragraph  # by the counts' names, only those there are


def test_alpha_over_two_questions_is_too_few_not_a_number() -> None:
    # two questions, four answer sets: alpha comes out far below 0 and every resample agrees
    matrix = np.array([[0.0, 10.0, 0.0, 10.0], [10.0, 0.0, 9.0, 1.0]])
    items = item_analysis(matrix, n_boot=200, seed=0)
    assert items.n_items == 2 and items.alpha is not None and items.alpha < -1
    text = alpha_words(items)
    assert text.startswith("Cronbach's alpha: too few to measure over 2 questions and 4 answer sets")
    assert f"{items.alpha:.2f}" not in text and "[" not in text


def test_alpha_with_enough_questions_is_printed_with_its_interval() -> None:
    rng = np.random.default_rng(3)
    ability = rng.normal(5, 2, size=12)
    matrix = np.clip(ability[None, :] + rng.normal(0, 1, size=(6, 12)), 0, 10)
    items = item_analysis(matrix, n_boot=300, seed=0)
    assert items.alpha is not None and items.alpha_ci is not None
    text = alpha_words(items)
    assert text.startswith("Cronbach's alpha over 6 questions and 12 answer sets: ")
    assert f"{items.alpha:.2f} [{items.alpha_ci.low:.2f}, {items.alpha_ci.high:.2f}]" in text
