"""Cronbach's alpha in words: the figure where the set can carry it, "too few" where not.

Alpha over two questions is one covariance against two variances: with a handful of
answer sets it swings to any value (-24 was seen) and every bootstrap resample gives the
same one, an interval of no width that looks like certainty. Below three questions or
three answer sets the report says there are too few instead of printing a number.
"""

from __future__ import annotations

from collections.abc import Sequence

from gtreview.core.stats import ItemAnalysis
from gtreview.core.wording import plural

MIN_QUESTIONS = 3
MIN_ANSWER_SETS = 3


LEFT_OUT = ("unscored", "unjudged", "missing")  # the counts (results.counts) a mean leaves out


def alpha_words(items: ItemAnalysis, left_out: Sequence[str] = LEFT_OUT) -> str:
    """``left_out``: the kinds of sample that kept questions out, in the counts' own names."""
    left_out = left_out or LEFT_OUT
    kinds = left_out[0] if len(left_out) == 1 else f"{', '.join(left_out[:-1])} or {left_out[-1]}"
    dropped = (
        f" ({plural(items.n_items_dropped, 'question')} with {kinds} samples left out)" if items.n_items_dropped else ""
    )
    over = f"over {plural(items.n_items, 'question')} and {plural(items.n_respondents, 'answer set')}{dropped}"
    if items.n_items < MIN_QUESTIONS or items.n_respondents < MIN_ANSWER_SETS:
        return (
            f"Cronbach's alpha: too few to measure {over}; it needs at least {MIN_QUESTIONS} questions "
            f"with every sample counted and {MIN_ANSWER_SETS} answer sets."
        )
    if items.alpha is None:
        return f"Cronbach's alpha {over}: not defined (every answer set has the same total)."
    ci = items.alpha_ci
    interval = (
        f" [{ci.low:.2f}, {ci.high:.2f}]"
        if ci is not None and ci.high > ci.low
        else " (no interval: every resample gives the same value)"
    )
    return f"Cronbach's alpha {over}: {items.alpha:.2f}{interval}."


__all__ = ["MIN_ANSWER_SETS", "MIN_QUESTIONS", "alpha_words"]
