"""Score entries imported before imports kept their grader record: the record rebuilt from the file."""

from __future__ import annotations

from typing import Any

from gtreview.core.grading import settle_awards
from gtreview.core.rubric import Question


def file_contract(payload: dict[str, Any], judgement: Any, question: Question | None = None) -> dict[str, Any]:
    """A grader record from a score entry imported before imports kept one (total and gate as
    recomputed at import; the awards settled by the same rules when the question is known, so
    the total never contradicts them)."""
    stored = payload.get("file")
    file: dict[str, Any] = stored if isinstance(stored, dict) else {}
    components = next((v for k, v in file.items() if k.endswith("_components") and isinstance(v, list)), [])
    written = [c for c in components if isinstance(c, dict) and c.get("id") is not None]
    awards = {str(c.get("id")): c.get("awarded") for c in written}
    reasons = {str(c.get("id")): str(c.get("reason") or "") for c in written}
    if question is not None and question.components:
        whole = {cid: int(v) for cid, v in awards.items() if isinstance(v, int) and not isinstance(v, bool)}
        settled, total = settle_awards(question, bool(judgement.gate_passed), whole)
        return {
            "total": total,
            "gate_passed": bool(judgement.gate_passed),
            "components": [{"id": cid, "awarded": v, "reason": reasons.get(cid, "")} for cid, v in settled.items()],
            "adjudication_required": next(
                (bool(v) for k, v in file.items() if k.endswith("_adjudication_required")), False
            ),
        }
    return {
        "total": judgement.total,
        "gate_passed": bool(judgement.gate_passed),
        "components": [
            {"id": str(c.get("id")), "awarded": int(c.get("awarded") or 0), "reason": str(c.get("reason") or "")}
            for c in written
        ],
        "adjudication_required": next(
            (bool(v) for k, v in file.items() if k.endswith("_adjudication_required")), False
        ),
    }
