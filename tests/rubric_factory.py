"""Builders of valid rubric JSON for tests, in either element shape, to mutate into bad input."""

from __future__ import annotations

import copy
from typing import Any


def question(qid: str = "A1", gate_points: int = 3) -> dict[str, Any]:
    rest = 10 - gate_points
    c2, c3 = rest // 2, rest - rest // 2
    points = {"C1": gate_points, "C2": c2, "C3": c3}

    def fixture(suffix: str, gate: bool, awards: dict[str, int]) -> dict[str, Any]:
        return {
            "fixture_id": f"{qid}-{suffix}",
            "response_text": f"Response {suffix} to {qid}.",
            "expected_gate_passed": gate,
            "expected_component_awards": [{"id": cid, "awarded": awards.get(cid, 0)} for cid in points],
            "expected_total": sum(awards.values()),
            "rationale": "Because.",
        }

    return {
        "id": qid,
        "section": qid[0],
        "title": f"Question {qid}",
        "question": "Why does gold grade fall below the water level in the Prince Alfred shaft?",
        "type": "Mechanism explanation",
        "mode": "Graduated",
        "difficulty": "Moderate",
        "model_answer": "Oxidised ore above water level is free-milling; below it gold is locked in sulphides.",
        "principle": "Supergene oxidation liberates gold from sulphides; primary ore is refractory.",
        "gate": {
            "component_id": "C1",
            "points": gate_points,
            "pass_condition": "Names the change from oxidised to sulphide ore at water level.",
            "fail_examples": ["Blames the battery manager."],
        },
        "components": [
            {"id": "C1", "points": gate_points, "is_gate": True, "credit_if": "Oxidised vs sulphide ore."},
            {"id": "C2", "points": c2, "is_gate": False, "credit_if": "Gold locked in pyrite."},
            {"id": "C3", "points": c3, "is_gate": False, "credit_if": "Assay vs battery yield."},
        ],
        "required_concepts": ["oxidation", "refractory sulphide ore"],
        "accepted_variants": [{"canonical": "pyrite", "accepted_variants": "mundic, iron pyrites"}],
        "indicative_terms": ["free-milling"],
        "do_not_credit": ["Claims the reef pinched out."],
        "evidence": [
            {
                "claim": "Yield fell from 1 oz to 6 dwt at the 180 ft level.",
                "source": "reports/x.txt",
                "locator": "page=2, lines=4-6",
                "authority": "primary",
                "confidence": "HIGH",
            }
        ],
        "calibration": [
            fixture("F1", False, {}),
            fixture("F2", True, {"C1": gate_points}),
            fixture("F3", True, dict(points)),
        ],
    }


def rubric(n_questions: int = 2) -> dict[str, Any]:
    """A valid sample-shape rubric of ``n_questions`` questions (ids A1, A2, ...)."""
    return {
        "schema_version": "2.0",
        "benchmark": {"name": "Test set", "question_count": n_questions},
        "candidate_access_mode": "OPEN_CORPUS",
        "scoring_model": {"total_points": 10, "integer_scores_only": True},
        "source_authority": [{"rank": 1, "source_class": "Primary reports", "detail": "d", "note": "n"}],
        "global_variants": [{"canonical": "reef", "accepted_variants": "lode, line of reef", "note": "n"}],
        "questions": [question(f"A{i + 1}") for i in range(n_questions)],
    }


def skill_shape_rubric() -> dict[str, Any]:
    """The same content in the authoring-skill element shape, with an unknown key or two."""
    data = rubric(2)
    data["source_authority"] = [{"rank": 1, "class": "Primary reports", "notes": "verbatim text"}]
    data["global_variants"] = [{"term": "reef", "variants": ["lode", "line of reef, old style"], "note": "n"}]
    data["x_authoring_run"] = {"model": "claude", "stage": 3}
    for q in data["questions"]:
        q["accepted_variants"] = ["pyrite: mundic, iron pyrites"]
        q["x_reviewer_note"] = "kept verbatim"
    return data


def mutated(data: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """A deep copy of ``data`` with the dotted ``path`` (list indexes as numbers) set to ``value``."""
    result = copy.deepcopy(data)
    target: Any = result
    parts = path.split(".")
    for part in parts[:-1]:
        target = target[int(part)] if isinstance(target, list) else target[part]
    last = parts[-1]
    if isinstance(target, list):
        target[int(last)] = value
    else:
        target[last] = value
    return result
