"""The verifier's findings on a drafted question: the program's checks and the model's critique.

The program's checks are the ones that must never be left to a model: every rubric
rule (:func:`validate_question`) and every evidence locator resolved against the
corpus. An unresolved locator is an error finding that flags the draft; it is never
silently admitted. The model's critique (faithfulness of each claim to the text its
locator points to) adds findings of its own, and a critique that could not be had is
itself a finding, so a draft that skipped review looks different from one that
passed it.

The critique request itself is stage d of the pipeline; it runs in the same shared
context as the other stages (see ``stages.py``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from gtreview.authoring.models import CritiqueReply
from gtreview.authoring.passages import SourcePassage, shown_in
from gtreview.authoring.runner import ItemOutcome, ReplyRejected, StageItem
from gtreview.authoring.schemas import critique_schema
from gtreview.authoring.stages import VERIFY, Check, DraftContext, StageProgress
from gtreview.core.corpus import LocatorResolution
from gtreview.core.findings import Finding, Severity
from gtreview.core.validation import validate_question
from gtreview.corpus.locators import CorpusIndex

E, W = Severity.ERROR, Severity.WARNING

#: Codes the verifier adds to the validator's (stable; keyed on by the UI and scripts).
VERIFIER_RULES: dict[str, tuple[Severity, str]] = {
    "evidence-unresolved": (E, "every evidence locator resolves in the project corpus"),
    "evidence-not-shown": (W, "evidence cites text the drafting model was shown"),
    "critique-unsupported": (E, "the verifier finds the cited text supports the claim"),
    "critique-partly-supported": (W, "the verifier finds the cited text supports all of the claim"),
    "critique-answer": (W, "the verifier finds the reference answer faithful to the evidence"),
    "critique-problem": (W, "the verifier raised no other problem"),
    "critique-missing": (W, "the verifier model gave a usable critique"),
}


def _finding(code: str, qid: str, path: str, message: str) -> Finding:
    return Finding(code=code, severity=VERIFIER_RULES[code][0], question_id=qid, path=path, message=message)


def resolve_evidence_items(index: CorpusIndex, content: dict[str, Any]) -> list[LocatorResolution]:
    """One resolution per evidence item, in order (a malformed item resolves to nothing)."""
    resolutions = []
    for item in content.get("evidence") or []:
        item = item if isinstance(item, dict) else {}
        resolutions.append(index.resolve(str(item.get("source") or ""), str(item.get("locator") or "")))
    return resolutions


def program_findings(
    content: dict[str, Any], resolutions: Sequence[LocatorResolution], passages: Sequence[SourcePassage]
) -> list[Finding]:
    """Rubric-rule findings plus one finding per evidence locator that fails to resolve."""
    qid = str(content.get("id") or "")
    findings = validate_question(content)
    for i, resolution in enumerate(resolutions):
        where = f"{resolution.source} | {resolution.locator}"
        if not resolution.resolved:
            findings.append(
                _finding("evidence-unresolved", qid, f"$.evidence[{i}].locator", f"{where}: {resolution.reason}")
            )
        elif not shown_in(passages, resolution):
            message = f"{where} resolves, but lies outside the passages the drafting model was shown; check it by hand."
            findings.append(_finding("evidence-not-shown", qid, f"$.evidence[{i}].locator", message))
    return findings


def critique_findings(qid: str, critique: CritiqueReply | None, failure: str | None = None) -> list[Finding]:
    if critique is None:
        reason = failure or "no critique was requested"
        return [_finding("critique-missing", qid, "$", f"The verifier model gave no usable critique: {reason}")]
    findings = []
    for verdict in sorted(critique.evidence, key=lambda v: v.index):
        path = f"$.evidence[{verdict.index}].claim"
        note = verdict.note or "no note"
        if verdict.verdict == "unsupported":
            findings.append(
                _finding("critique-unsupported", qid, path, f"The cited text does not support the claim: {note}")
            )
        elif verdict.verdict == "partly_supported":
            message = f"The cited text supports only part of the claim: {note}"
            findings.append(_finding("critique-partly-supported", qid, path, message))
    if not critique.answer_faithful:
        message = "The reference answer asserts something the cited evidence does not support."
        findings.append(_finding("critique-answer", qid, "$.model_answer", message))
    findings += [_finding("critique-problem", qid, "$", problem) for problem in critique.problems if problem.strip()]
    return findings


def origin(finding: Finding) -> str:
    """Which check raised a finding: the rubric validator, the locator resolver or the critique."""
    if finding.code.startswith("critique-"):
        return "critique"
    if finding.code in ("evidence-unresolved", "evidence-not-shown"):
        return "locator"
    return "validator"


def flag_entries(findings: Sequence[Finding]) -> list[dict[str, Any]]:
    """The ``x_flags`` list stored on a drafted question, errors first."""
    ordered = sorted(findings, key=lambda f: (not f.is_error, f.path))
    return [
        {"code": f.code, "severity": f.severity.value, "origin": origin(f), "path": f.path, "message": f.message}
        for f in ordered
    ]


# -- the critique request (stage d) -----------------------------------------------------


def cited_text(resolution: LocatorResolution) -> str:
    if not resolution.resolved:
        return f"(the locator did not resolve: {resolution.reason})"
    spans = [s.text for s in resolution.spans]
    cells = [", ".join(f"{c}={v}" for c, v in zip(cell.columns, cell.values, strict=True)) for cell in resolution.cells]
    return "\n".join(spans + cells)


def _check_critique(count: int) -> Check:
    def check(data: dict[str, Any]) -> CritiqueReply:
        reply = CritiqueReply.model_validate(data)
        indices = sorted(v.index for v in reply.evidence)
        if indices != list(range(count)):
            raise ReplyRejected(f"give exactly one verdict for each evidence index 0 to {count - 1} (got {indices})")
        return reply

    return check


def critique_drafts(
    ctx: DraftContext,
    drafts: list[tuple[str, dict[str, Any], list[LocatorResolution]]],
    progress: StageProgress | None = None,
) -> list[ItemOutcome[CritiqueReply]]:
    items: list[StageItem[Any]] = []
    for qid, content, resolutions in drafts:
        shown = {k: v for k, v in content.items() if k not in ("evidence", "calibration") and not k.startswith("x_")}
        cited = [
            f"[{i}] claim: {e.get('claim')}\n    source: {e.get('source')} | locator: {e.get('locator')}\n"
            f"    cited text:\n{cited_text(r)}"
            for i, (e, r) in enumerate(zip(content.get("evidence") or [], resolutions, strict=True))
        ]
        task = (
            f"DRAFTED QUESTION {qid}\n{json.dumps(shown, ensure_ascii=False, indent=1)}\n\n"
            f"EVIDENCE ITEMS AND THE TEXT EACH LOCATOR POINTS TO\n{chr(10).join(cited) or '(none)'}\n\n"
            "TASK: review this draft against its cited text."
        )
        schema = critique_schema(len(resolutions), ctx.settings.limits)
        items.append(StageItem(qid, ctx.messages(VERIFY, task), schema, _check_critique(len(resolutions))))
    return ctx.run(VERIFY, items, progress)
