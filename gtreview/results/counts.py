"""How a run's samples stand, each count named once.

A sample is one of a model's K answers to a question. Every output that counts samples
(the CSV export as ``n_`` + the name, ``results --json`` per question likewise and per
model by the name itself, the PDF's summary table under the heading, the results view
and the CLI's text) takes its names, headings and meanings from ``COUNT_NAMES``, so a
reader of any of them draws the same conclusion:

- **scored**: a verdict within the judge's contract, or an expert's settled score;
- **errors**: the generation failed after its retries: counted as 0 (a failure is a result);
- **unscored**: the judge broke its contract after its re-asks: left out, never 0;
- **unjudged**: an answer is stored, no verdict yet (judging not run or not finished);
- **missing**: never generated (the pass stopped before it);
- **settled**: of the above, the samples whose score an expert settled.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from pydantic import BaseModel

from gtreview.core.wording import plural
from gtreview.results.loader import SampleResult, SampleStatus


class CountName(NamedTuple):
    key: str  # the field of SampleCounts and of results --json's models[]; "n_" + key per question
    heading: str  # a table's column
    meaning: str  # what it counts, in a caption or a tooltip


COUNT_NAMES = (
    CountName("scored", "Scored", "a verdict (or an expert's settled score) counts"),
    CountName("errors", "Errors", "the generation failed after its retries: counted as 0"),
    CountName("unscored", "Unscored", "the judge broke its contract: left out"),
    CountName("unjudged", "Unjudged", "an answer is stored, no verdict yet: left out"),
    CountName("missing", "Missing", "never generated (the pass stopped before it): left out"),
    CountName("settled", "Settled", "an expert settled the score (the figures use it)"),
)

_BY_STATUS = {
    SampleStatus.SCORED: "scored",
    SampleStatus.ERROR: "errors",
    SampleStatus.UNSCORED: "unscored",
    SampleStatus.UNJUDGED: "unjudged",
    SampleStatus.MISSING: "missing",
}


class SampleCounts(BaseModel):
    """The samples of a model (or of one question and model), counted by ``COUNT_NAMES``."""

    scored: int = 0
    errors: int = 0
    unscored: int = 0
    unjudged: int = 0
    missing: int = 0
    settled: int = 0  # counted among the others too

    def planned(self) -> int:
        """Every planned sample."""
        return self.scored + self.errors + self.unscored + self.unjudged + self.missing


def sample_counts(samples: Iterable[SampleResult]) -> SampleCounts:
    counts = SampleCounts()
    for sample in samples:
        name = _BY_STATUS[sample.status]
        setattr(counts, name, getattr(counts, name) + 1)
        counts.settled += sample.adjudicated
    return counts


def counts_text(counts: SampleCounts) -> str:
    """``6 scored, 2 errors``: the counts that are not 0, in the one order and by the one name
    (``error`` takes its plural as any noun does; the others are adjectives)."""
    parts = []
    for name in COUNT_NAMES:
        value = int(getattr(counts, name.key))
        if value:
            parts.append(plural(value, "error") if name.key == "errors" else f"{value} {name.key}")
    return ", ".join(parts) or "no samples"


__all__ = ["COUNT_NAMES", "CountName", "SampleCounts", "counts_text", "sample_counts"]
