"""The Groundtruth rubric sidecar, schema 2.0, in both element shapes.

Two shapes exist in the wild (see the interop README): the authoring-skill shape
(plain-string variants, ``{term, variants[], note}`` global variants,
``{rank, class, notes}`` authorities) and the shipped-sample shape
(``{canonical, accepted_variants, note}`` variants, ``{rank, source_class, detail,
note}`` authorities). One model per element covers both shapes with optional fields;
because dumping only writes keys that were read, each element keeps its own shape.
"""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Any

from pydantic import Field

from gtreview.core.jsonformat import dumps_harness_json
from gtreview.core.jsonlayout import detect_layout, dumps_in_layout
from gtreview.core.jsonmodel import JsonModel, canonical_json

SCHEMA_VERSION = "2.0"
TOTAL_POINTS = 10
GATE_ID = "C1"

Number = int | float


class ElementShape(StrEnum):
    SKILL = "authoring-skill"
    SAMPLE = "shipped-sample"
    UNKNOWN = "unknown"


class AccessMode(StrEnum):
    OPEN_CORPUS = "OPEN_CORPUS"
    RETRIEVAL_ASSISTED = "RETRIEVAL_ASSISTED"
    CLOSED_CORPUS = "CLOSED_CORPUS"


class Benchmark(JsonModel):
    name: str | None = None
    region_or_dataset: str | None = None
    domain_scope: str | None = None
    question_count: int | None = None
    corpus_root: str | None = None
    source_markdown: str | None = None
    description: str | None = None


class ScoringModel(JsonModel):
    total_points: Number | None = None
    integer_scores_only: bool | None = None
    gate_failure_score: Number | None = None
    positive_marking_after_gate: bool | None = None
    holistic_bands: bool | None = None


class SourceAuthority(JsonModel):
    """A rank in the source-authority contract, in either shape."""

    rank: int | None = None
    source_class: str | None = None
    detail: str | None = None
    note: str | None = None
    class_: str | None = Field(default=None, alias="class")
    notes: str | None = None

    @property
    def label(self) -> str:
        return self.source_class or self.class_ or ""

    @property
    def description(self) -> str:
        return " ".join(part for part in (self.detail, self.note, self.notes) if part)


class VariantRule(JsonModel):
    """A canonical term and its accepted variants, in either object shape.

    In the sample shape ``accepted_variants`` is one comma-separated string. It is
    kept as written: a variant may itself contain a comma.
    """

    canonical: str | None = None
    accepted_variants: str | None = None
    term: str | None = None
    variants: list[str] | None = None
    note: str | None = None

    @property
    def canonical_term(self) -> str:
        return self.canonical or self.term or ""

    @property
    def variant_text(self) -> str:
        if self.accepted_variants is not None:
            return self.accepted_variants
        return ", ".join(self.variants or [])

    @property
    def shape(self) -> ElementShape:
        if self.canonical is not None or self.accepted_variants is not None:
            return ElementShape.SAMPLE
        if self.term is not None or self.variants is not None:
            return ElementShape.SKILL
        return ElementShape.UNKNOWN


def variant_rule_text(rule: str | VariantRule) -> str:
    """One line for a variant rule in either shape (``canonical: variant, variant``)."""
    return rule if isinstance(rule, str) else f"{rule.canonical_term}: {rule.variant_text}"


class Gate(JsonModel):
    component_id: str | None = None
    points: Number | None = None
    pass_condition: str | None = None
    fail_examples: list[str] = Field(default_factory=list)


class Component(JsonModel):
    id: str
    points: Number
    is_gate: bool = False
    credit_if: str | None = None


class Evidence(JsonModel):
    claim: str | None = None
    source: str | None = None
    locator: str | None = None
    authority: str | None = None
    confidence: str | None = None
    notes: str | None = None


class ComponentAward(JsonModel):
    id: str
    awarded: Number


class CalibrationFixture(JsonModel):
    fixture_id: str
    response_text: str | None = None
    expected_gate_passed: bool
    expected_component_awards: list[ComponentAward] = Field(default_factory=list)
    expected_total: Number
    rationale: str | None = None


class Question(JsonModel):
    id: str
    section: str | None = None
    title: str | None = None
    question: str | None = None
    type: str | None = None
    mode: str | None = None
    difficulty: str | None = None
    model_answer: str | None = None
    principle: str | None = None
    gate: Gate | None = None
    components: list[Component] = Field(default_factory=list)
    required_concepts: list[str] = Field(default_factory=list)
    accepted_variants: list[str | VariantRule] = Field(default_factory=list)
    indicative_terms: list[str] = Field(default_factory=list)
    do_not_credit: list[str] = Field(default_factory=list)
    evidence: list[Evidence] = Field(default_factory=list)
    calibration: list[CalibrationFixture] = Field(default_factory=list)
    # A paraphrased variant names the question it rewords: same rubric and principle,
    # other wording. Absent on ordinary questions, so files without it round-trip as read.
    paraphrase_of: str | None = None

    def component(self, component_id: str) -> Component | None:
        for component in self.components:
            if component.id == component_id:
                return component
        return None

    @property
    def gate_component(self) -> Component | None:
        gates = [c for c in self.components if c.is_gate]
        return gates[0] if len(gates) == 1 else None


class Rubric(JsonModel):
    schema_version: str
    benchmark: Benchmark = Field(default_factory=Benchmark)
    candidate_access_mode: str | None = None
    scoring_model: ScoringModel | None = None
    source_authority: list[SourceAuthority] = Field(default_factory=list)
    global_variants: list[VariantRule] = Field(default_factory=list)
    questions: list[Question] = Field(default_factory=list)

    @property
    def element_shape(self) -> ElementShape:
        """The shape the file was written in, judged from its variant and authority items."""
        shapes: set[ElementShape] = {v.shape for v in self.global_variants}
        for authority in self.source_authority:
            if authority.source_class is not None:
                shapes.add(ElementShape.SAMPLE)
            elif authority.class_ is not None:
                shapes.add(ElementShape.SKILL)
        for question in self.questions:
            for variant in question.accepted_variants:
                shapes.add(ElementShape.SKILL if isinstance(variant, str) else variant.shape)
        shapes.discard(ElementShape.UNKNOWN)
        return shapes.pop() if len(shapes) == 1 else ElementShape.UNKNOWN

    def question_by_id(self, question_id: str) -> Question | None:
        for question in self.questions:
            if question.id == question_id:
                return question
        return None

    def header_dict(self) -> dict[str, Any]:
        """Everything but the questions, in file order (``questions`` kept as a placeholder)."""
        data = self.to_json_dict()
        data["questions"] = None
        return data


def rubric_from_json_text(text: str) -> Rubric:
    """Parse an already-read rubric; raises pydantic ValidationError on wrong types."""
    return Rubric.model_validate(json.loads(text))


def rubric_to_json_text(rubric: Rubric, *, like: str | None = None) -> str:
    """Serialise in the harness's own layout, so a round trip diffs cleanly.

    ``like`` is the text of the file the rubric was read from: an unchanged rubric is
    that text byte for byte, whatever its layout; an edited one is written in its layout.
    """
    data = rubric.to_json_dict()
    if like is None:
        return dumps_harness_json(data)
    try:
        original = json.loads(like.removeprefix("\ufeff"))
        layout = detect_layout(like)
    except ValueError:  # not JSON after all: the harness's layout
        return dumps_harness_json(data)
    if canonical_json(original) == canonical_json(data):
        return like
    return dumps_in_layout(data, layout)
