"""The judge's gate read as a diagnostic test of the expert's: sensitivity and specificity.

With the expert as truth, sensitivity is the share of answers the expert passed that the
judge passed too, and specificity the share the expert failed that the judge failed too.
A judge that passes everything has sensitivity 1 and specificity 0, which a single
agreement rate or kappa would hide behind a high base rate.

Intervals are Wilson score intervals (Wilson 1927; recommended over the Wald interval by
Brown, Cai and DasGupta 2001), which stay inside [0, 1] and behave at rates of 0 or 1 and
at the small samples an expert grades by hand.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from gtreview.core.stats.base import LEVEL, Interval, StatInputError, StatModel

assert LEVEL == 0.95  # _Z below is the 95% quantile

_Z = 1.959963984540054  # the standard normal quantile for a two-sided 95% interval


class Proportion(StatModel):
    """``successes`` of ``n``, with its Wilson interval (None over no cases)."""

    successes: int
    n: int
    rate: float | None
    ci: Interval | None


class GateDiagnostic(StatModel):
    """The judge's gate against the expert's (truth) on the same answers."""

    n: int
    true_pass: int  # both passed
    false_pass: int  # the judge passed what the expert failed
    true_fail: int  # both failed
    false_fail: int  # the judge failed what the expert passed
    sensitivity: Proportion  # of the expert's passes, the share the judge passed
    specificity: Proportion  # of the expert's fails, the share the judge failed


def wilson_interval(successes: int, n: int) -> Interval | None:
    """The 95% Wilson score interval of ``successes / n``; None when ``n`` is 0."""
    if n < 0 or not 0 <= successes <= n:
        raise StatInputError(f"a proportion needs 0 <= successes <= n, got {successes} of {n}")
    if n == 0:
        return None
    p = successes / n
    z2 = _Z * _Z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = _Z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return Interval(low=max(0.0, centre - half), high=min(1.0, centre + half))


def proportion(successes: int, n: int) -> Proportion:
    return Proportion(successes=successes, n=n, rate=successes / n if n else None, ci=wilson_interval(successes, n))


def gate_diagnostic(judge: Sequence[bool], expert: Sequence[bool]) -> GateDiagnostic:
    """Sensitivity and specificity of the judge's gate verdicts, the expert's as truth."""
    if len(judge) != len(expert):
        raise StatInputError(f"judge and expert gates differ in length ({len(judge)} and {len(expert)})")
    pairs = list(zip(judge, expert, strict=True))
    true_pass = sum(1 for j, e in pairs if j and e)
    false_fail = sum(1 for j, e in pairs if not j and e)
    true_fail = sum(1 for j, e in pairs if not j and not e)
    false_pass = sum(1 for j, e in pairs if j and not e)
    return GateDiagnostic(
        n=len(pairs),
        true_pass=true_pass,
        false_pass=false_pass,
        true_fail=true_fail,
        false_fail=false_fail,
        sensitivity=proportion(true_pass, true_pass + false_fail),
        specificity=proportion(true_fail, true_fail + false_pass),
    )
