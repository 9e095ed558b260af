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
#: how the approval's comment starts when it records why unresolved locators were approved over
#: ("locator(s)" in approvals recorded before the wording was settled: they start the same)
WAIVER_PREFIX = "Approved with unresolved"

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


def waiver_note(covered: str, reason: str) -> str:
    """The approval comment's first line: the locators approved over and why."""
    return f"{WAIVER_PREFIX} evidence: {covered}: {reason}"


def waived(findings: Sequence[Finding], approved_by: str, approved_on: str, comment: str) -> list[Finding]:
    """``findings`` with each unresolved locator shown as waived by the current approval that
    recorded why (``comment``): a warning that names who, when and the reason, no longer an
    error; other findings unchanged. A comment that records no waiver waives nothing."""
    note = comment.splitlines()[0] if comment else ""
    if not note.startswith(WAIVER_PREFIX):
        return list(findings)
    said = f" — waived at approval by {approved_by} on {approved_on}: {note}"
    return [
        f.model_copy(update={"severity": Severity.WARNING, "message": f.message + said}) if is_unresolved(f) else f
        for f in findings
    ]
