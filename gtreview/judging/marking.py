"""The self-contained marking block a judge sees for one question.

Everything a grader needs and nothing else: the question, the reference answer, the
gate, the components with their maxima, required concepts, accepted variants (the
question's and the set's), indicative terms, and the numbered do-not-credit list
(the numbers are how the judge reports hits). No calibration fixtures.
"""

from __future__ import annotations

from gtreview.core.rubric import Question, VariantRule, variant_rule_text


def marking_block(question: Question, global_variants: list[VariantRule] | None = None) -> str:
    lines = [f"QUESTION {question.id}: {question.question or ''}", ""]
    if question.model_answer:
        lines += ["REFERENCE ANSWER:", question.model_answer, ""]
    if question.principle:
        lines += ["PRINCIPLE:", question.principle, ""]
    gate = question.gate
    if gate is not None:
        lines.append(f"GATE {gate.component_id} ({gate.points} points), pass condition: {gate.pass_condition or ''}")
        lines += [f"  gate fails, for example: {example}" for example in gate.fail_examples]
        lines.append("")
    lines.append("COMPONENTS (award whole points from 0 to the maximum):")
    for component in question.components:
        kind = "gate" if component.is_gate else "scored"
        lines.append(f"  {component.id} [{kind}, max {component.points}]: {component.credit_if or ''}")
    lines.append("")
    if question.required_concepts:
        lines.append("REQUIRED CONCEPTS: " + "; ".join(question.required_concepts))
    variants = [variant_rule_text(v) for v in [*question.accepted_variants, *(global_variants or [])]]
    if variants:
        lines.append("ACCEPTED VARIANTS: " + "; ".join(variants))
    if question.indicative_terms:
        lines.append("INDICATIVE TERMS (no marks on their own): " + "; ".join(question.indicative_terms))
    if question.do_not_credit:
        lines.append("DO NOT CREDIT:")
        lines += [f"  {number}. {item}" for number, item in enumerate(question.do_not_credit)]
    return "\n".join(lines).rstrip() + "\n"
