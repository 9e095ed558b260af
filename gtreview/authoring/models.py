"""What each drafting stage must reply, as pydantic models the program validates against.

The JSON schemas sent with each request (``schemas.py``) say the same thing to the
model; these models are the program's own check, because no backend can be trusted
to honour a schema (a tool-use reply may omit a key; a grammar-constrained local
model honours shape but not meaning). Models are strict (``"3"`` is not 3) and ignore
extra keys, which are harmless here because the program builds its own records from
the validated fields.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from gtreview.authoring.authority import ConflictResolution, ConflictValue

Difficulty = Literal["Easy", "Moderate", "Hard", "Expert"]
Confidence = Literal["HIGH", "MEDIUM", "LOW"]
Support = Literal["supported", "partly_supported", "unsupported"]

#: The Groundtruth admission rules a drafted question is held to (stage b). The keys
#: are the reply's self-check keys; the prompt template states each rule in full.
ADMISSION_RULES: dict[str, str] = {
    "answerable_under_access_mode": "answerable under the declared candidate access mode",
    "one_construct": "tests one coherent construct (linked subparts allowed)",
    "explicit_subparts": "states every requested part explicitly",
    "exact_source_scope": "uses the exact source semantics and spatial, temporal and stratigraphic scope",
    "counting_rules": "defines counting, deduplication and units wherever a number could otherwise vary",
    "no_hidden_retrieval": "has no retrieval requirement that would appear only in the rubric",
    "no_give_away_context": "does not give the answer away through its context",
}


class _Reply(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore")


# -- stage a: evidence cards ---------------------------------------------------------


class Claim(_Reply):
    claim: str = Field(min_length=1)
    source: str = Field(min_length=1)
    locator: str = Field(min_length=1)
    authority: str = Field(min_length=1)


class CardConflict(_Reply):
    subject: str = Field(min_length=1)
    values: list[ConflictValue] = Field(min_length=2)


class CardReply(_Reply):
    topic: str = Field(min_length=1)
    principle: str = Field(min_length=1)
    claims: list[Claim] = Field(min_length=1)
    conflicts: list[CardConflict] = Field(default_factory=list)


class EvidenceCard(BaseModel):
    """A checked card: every claim's locator resolved inside the passages shown."""

    card_id: str
    topic: str
    principle: str
    claims: list[Claim]
    conflicts: list[ConflictResolution] = Field(default_factory=list)
    focus: list[str] = Field(default_factory=list)  # the passage labels the card was asked to draw on


# -- stage b: questions only -----------------------------------------------------------


class RuleCheck(_Reply):
    passed: bool
    note: str


class QuestionReply(_Reply):
    title: str = Field(min_length=1)
    question: str = Field(min_length=1)
    type: str = Field(min_length=1)
    difficulty: Difficulty
    subparts: list[str] = Field(default_factory=list)
    source_scope: str = Field(min_length=1)
    self_check: dict[str, RuleCheck]


# -- stage c: answer and rubric ----------------------------------------------------------


class GateReply(_Reply):
    points: int
    pass_condition: str
    fail_examples: list[str]


class ComponentReply(_Reply):
    id: str
    points: int
    credit_if: str


class VariantReply(_Reply):
    canonical: str
    accepted_variants: str
    note: str = ""


class EvidenceReply(_Reply):
    claim: str
    source: str
    locator: str
    authority: str
    confidence: Confidence
    notes: str = ""


class AwardReply(_Reply):
    id: str
    awarded: int


class FixtureReply(_Reply):
    response_text: str
    expected_gate_passed: bool
    expected_component_awards: list[AwardReply]
    expected_total: int
    rationale: str


class RubricReply(_Reply):
    model_answer: str
    principle: str
    gate: GateReply
    components: list[ComponentReply]
    required_concepts: list[str]
    accepted_variants: list[VariantReply] = Field(default_factory=list)
    indicative_terms: list[str] = Field(default_factory=list)
    do_not_credit: list[str]
    evidence: list[EvidenceReply]
    calibration: list[FixtureReply]


# -- stage d: verifier critique ----------------------------------------------------------


class EvidenceVerdict(_Reply):
    index: int
    verdict: Support
    note: str


class CritiqueReply(_Reply):
    evidence: list[EvidenceVerdict]
    answer_faithful: bool
    problems: list[str] = Field(default_factory=list)
