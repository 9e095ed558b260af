"""A tiny corpus and a stage-aware scripted drafting model, for authoring tests only.

``DraftScript`` answers each stage with a valid reply built from the request (the
evidence count of a critique comes from the request's schema), and lets a test
replace the reply for one stage item, e.g. a malformed card or a rubric whose
evidence cites a page that does not exist.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from gtreview.authoring.models import ADMISSION_RULES
from gtreview.authoring.passages import SourcePassage, select_passages
from gtreview.core.corpus import ParsedDocument
from gtreview.corpus.readers import parse_bytes
from gtreview.inference.backend import CompletionRequest, CompletionResult

REPORT = "reports/1891_inspector.txt"
TABLE = "tables/assays.csv"
REPORT_TEXT = """=== Page 1 ===
ANNUAL REPORT OF THE INSPECTOR OF MINES, 1891.

The Garibaldi shaft reached water at 186 feet.
Below water the stone carried mundic and the battery
returns fell from one ounce to six pennyweights.

The reef is an anticlinal saddle on the crown of the spur.
=== Page 2 ===
The 1935 prospectus puts the water level at 180 feet.
Assays of the sulphide stone show gold locked in pyrite.
"""
TABLE_TEXT = "SAMPLE_NO,LEVEL_FT,ASSAY_OZ_PER_TON\r\nS01,100,1.05\r\nS02,200,0.98\r\n"
REASK = "That reply cannot be accepted"
PRINCIPLE = (
    "Supergene oxidation above the water table frees gold from sulphides, so oxidised ore is free-milling; "
    "below the water table gold stays locked in pyrite and amalgamation recovers little of it."
)


def corpus() -> list[ParsedDocument]:
    return [parse_bytes(REPORT_TEXT.encode(), REPORT), parse_bytes(TABLE_TEXT.encode(), TABLE)]


def passages(documents: list[ParsedDocument]) -> list[SourcePassage]:
    return select_passages(documents, max_chars=10_000)


def card_reply() -> dict[str, Any]:
    return {
        "topic": "Why battery returns fell below the water level",
        "principle": PRINCIPLE,
        "claims": [
            {
                "claim": "Below water the stone carried mundic and battery returns fell from 1 oz to 6 dwt.",
                "source": REPORT,
                "locator": "page=1, lines=3-5",
                "authority": "primary_text",
            },
            {
                "claim": "Sample S01 at 100 ft assayed 1.05 oz per ton.",
                "source": TABLE,
                "locator": "SAMPLE_NO=S01, ASSAY_OZ_PER_TON",
                "authority": "primary_tables",
            },
        ],
        "conflicts": [
            {
                "subject": "depth of the water level in the Garibaldi shaft",
                "values": [
                    {"value": "186 feet", "source": REPORT, "locator": "page=1, lines=3", "authority": "primary_text"},
                    {"value": "180 feet", "source": REPORT, "locator": "page=2, lines=1", "authority": "human_summary"},
                ],
            }
        ],
    }


def question_reply() -> dict[str, Any]:
    return {
        "title": "Gold recovery across the water level",
        "question": (
            "The 1891 inspector records that battery returns at the Garibaldi shaft fell once the workings passed "
            "water. Explain what change in the ore accounts for the fall, and say what the assays add."
        ),
        "type": "Mechanism explanation",
        "difficulty": "Moderate",
        "subparts": ["the change in the ore", "what the assays add"],
        "source_scope": "reports/1891_inspector.txt pages 1-2 and tables/assays.csv",
        "self_check": {key: {"passed": True, "note": "met"} for key in ADMISSION_RULES},
    }


def _fixture(gate: bool, awards: list[int], text: str) -> dict[str, Any]:
    return {
        "response_text": text,
        "expected_gate_passed": gate,
        "expected_component_awards": [{"id": f"C{i}", "awarded": a} for i, a in enumerate(awards, start=1)],
        "expected_total": sum(awards),
        "rationale": "Because.",
    }


def rubric_reply(locator: str = "page=1, lines=3-5") -> dict[str, Any]:
    return {
        "model_answer": "Above water the ore was oxidised and free-milling; below it gold is locked in pyrite.",
        "principle": PRINCIPLE,
        "gate": {
            "points": 3,
            "pass_condition": "Names the change from oxidised to sulphide ore at the water level.",
            "fail_examples": ["Blames the battery manager."],
        },
        "components": [
            {"id": "C1", "points": 3, "credit_if": "Oxidised versus sulphide ore at the water level."},
            {"id": "C2", "points": 3, "credit_if": "Gold locked in pyrite resists amalgamation."},
            {"id": "C3", "points": 4, "credit_if": "Assays show the gold is still there (2 + 2)."},
        ],
        "required_concepts": ["supergene oxidation", "refractory sulphide ore"],
        "accepted_variants": [{"canonical": "pyrite", "accepted_variants": "mundic, iron pyrites"}],
        "indicative_terms": ["free-milling"],
        "do_not_credit": ["Claims the reef pinched out; fails C1."],
        "evidence": [
            {
                "claim": "Below water the stone carried mundic and returns fell.",
                "source": REPORT,
                "locator": locator,
                "authority": "primary_text",
                "confidence": "HIGH",
            },
            {
                "claim": "S01 assayed 1.05 oz per ton.",
                "source": TABLE,
                "locator": "SAMPLE_NO=S01, ASSAY_OZ_PER_TON",
                "authority": "primary_tables",
                "confidence": "HIGH",
                "notes": "1912 test parcel.",
            },
        ],
        "calibration": [
            _fixture(False, [0, 0, 0], "The shaft reached water at 186 feet."),
            _fixture(True, [3, 0, 0], "Below water the ore is sulphide rather than oxidised."),
            _fixture(True, [3, 3, 4], "Oxidised above, sulphide below; gold locked in pyrite; assays show it."),
        ],
    }


def critique_reply(count: int) -> dict[str, Any]:
    return {
        "evidence": [{"index": i, "verdict": "supported", "note": ""} for i in range(count)],
        "answer_faithful": True,
        "problems": [],
    }


def item_of(request: CompletionRequest) -> str:
    """The stage item a request is for: K1.. for cards and questions, D1.. for rubrics and critiques."""
    task = request.messages[3].content
    for pattern, prefix in (
        (r"^DRAFTED QUESTION D(\d+)", "D"),
        (r"^QUESTION D(\d+)$", "D"),
        (r"evidence card (\d+) of", "K"),
        (r"^EVIDENCE CARD K(\d+)", "K"),
    ):
        match = re.search(pattern, task, re.M)
        if match:
            return f"{prefix}{match.group(1)}"
    raise AssertionError(f"no item in {task[:80]!r}")


def attempt_of(request: CompletionRequest) -> int:
    """0 for a first ask; 1 or more for a re-ask (which appends the reason)."""
    return 1 if REASK in request.messages[-1].content else 0


Override = Callable[[CompletionRequest], str | CompletionResult]


class DraftScript:
    """A responder for ``ScriptedBackend``: valid replies per stage, overridable per (stage, item)."""

    def __init__(self) -> None:
        self.overrides: dict[tuple[str, str], Override] = {}
        self.seen: list[tuple[str, str, int]] = []

    def __call__(self, request: CompletionRequest) -> str | CompletionResult:
        stage, item = request.schema_name, item_of(request)
        self.seen.append((stage, item, attempt_of(request)))
        if (stage, item) in self.overrides:
            return self.overrides[(stage, item)](request)
        return json.dumps(self.valid(request))

    @staticmethod
    def valid(request: CompletionRequest) -> dict[str, Any]:
        stage = request.schema_name
        if stage == "evidence_card":
            return card_reply()
        if stage == "question":
            return question_reply()
        if stage == "marking_block":
            return rubric_reply()
        assert stage == "critique" and request.json_schema is not None
        return critique_reply(request.json_schema["properties"]["evidence"]["minItems"])


REWORDINGS = (
    "Once the Garibaldi workings went under water the stamp battery yielded far less gold. What altered in the "
    "stone to cause that, and what do the assays tell us besides?",
    "Account for the drop in recovered gold after the Garibaldi shaft met water: which property of the ore "
    "changed, and how do the assay figures bear on it?",
    "What happened to the ore of the Garibaldi mine beneath the water level that cut its battery yield, and "
    "what further light do the assays shed?",
)


def paraphrase_reply(request: CompletionRequest) -> str:
    """A valid reply to a paraphrase request: as many rewordings as its schema asks for."""
    assert request.json_schema is not None
    count = request.json_schema["properties"]["paraphrases"]["minItems"]
    return json.dumps(
        {"paraphrases": [{"question": text, "changes": "new verbs; parts reordered"} for text in REWORDINGS[:count]]}
    )
