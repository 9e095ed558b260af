"""Evidence locators that do not resolve in the project corpus, as findings.

The rubric validator cannot see the corpus, so these findings come from the locator
resolutions (``core.corpus.LocatorResolution``) beside it. The code is the one the
drafting verifier uses. An unresolved locator is an error in the counts, but unlike the
validator's errors it can be approved over when the expert records why (the workflow
keeps the reason with the approval).
"""

from __future__ import annotations

from collections.abc import Sequence

from gtreview.core.corpus import LocatorResolution
from gtreview.core.findings import Finding, Severity

UNRESOLVED = "evidence-unresolved"

#: code -> (severity, what the rule asks), as ``validation.RULES``.
LOCATOR_RULES: dict[str, tuple[Severity, str]] = {
    UNRESOLVED: (Severity.ERROR, "every evidence locator resolves in the project corpus"),
}


def unresolved_findings(question_id: str | None, resolutions: Sequence[LocatorResolution]) -> list[Finding]:
    """One finding per evidence item whose locator does not resolve, in order.

    An empty locator is left to the validator (``evidence-field-missing``), so it is
    not said twice.
    """
    return [
        Finding(
            code=UNRESOLVED,
            severity=LOCATOR_RULES[UNRESOLVED][0],
            question_id=question_id or None,
            path=f"$.evidence[{position}].locator",
            message=f"Evidence {position + 1} ({resolution.locator}) does not resolve: {resolution.reason}",
        )
        for position, resolution in enumerate(resolutions)
        if not resolution.resolved and resolution.locator.strip()
    ]


def is_unresolved(finding: Finding) -> bool:
    return finding.code == UNRESOLVED
