"""Why there is nothing to show: no scored answer at all (a chart says so in its place), or
no difference of a kind of component (gate, binary facts, reasoning) to read.

"None in these questions" is true only when no question has such a component; when the
questions have them but no answer of both models is scored, the reader must hear why: not
judged yet (answers unjudged or never generated), or judged but none scored on both sides.
"""

from __future__ import annotations

import numpy as np

from gtreview.core.grading import component_kind
from gtreview.results.loader import RunResults, SampleStatus

NO_COMPONENTS = "none in these questions"
NOT_JUDGED_YET = "not judged yet"
NONE_SCORED = "no answer scored for both models"
EMPTY = (NO_COMPONENTS, NOT_JUDGED_YET, NONE_SCORED)
NO_SCORES_YET = "no scored answers yet"  # what a chart without a single score shows instead


def any_scored(results: RunResults) -> bool:
    """Whether any model has a counted total (a score, or an error counted as 0)."""
    return any(bool(np.isfinite(results.score_matrix(model)).any()) for model in results.models)


def why_no_difference(results: RunResults, models: tuple[str, str], kind: str) -> str:
    """The words for an empty difference of ``kind`` between ``models`` (fine-tune, base)."""
    if not any(component_kind(q, c).value == kind for q in results.questions for c in q.components):
        return NO_COMPONENTS
    waiting = (SampleStatus.UNJUDGED, SampleStatus.MISSING)
    if any(s.model in models and s.status in waiting for s in results.samples):
        return NOT_JUDGED_YET
    return NONE_SCORED
