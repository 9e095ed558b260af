"""The human-readable Markdown grading key, in the layout of the harness's own keys.

Each question is a self-contained marking block (question, model answer, gate with
fail examples, components, concepts, do-not-credit), so a grader can mark from one
block without reading the rest; the JSON sidecar stays the source of truth.
"""

from __future__ import annotations

from itertools import groupby

from gtreview.core.rubric import GATE_ID, Question, Rubric, variant_rule_text

_HOW_TO_USE = """## §0 · How to use this marking scheme

Every question produces one whole-number score **out of 10 (hard cap)**.

**1 — Mandatory gate.** Each question names one gate, component **C1**, worth 2–4 points. **If the gate fails the score is 0**: no component or concept credit leaks through. Passing the gate always earns C1's points. Every gate carries concrete **fail examples**: plausible answers that must still score zero.

**2 — Graduated components.** Above the gate, award each component's points against its stated credit condition. Components are non-overlapping, use whole points, and total exactly 10.

**3 — Positive marking.** After the gate passes, credit what the response demonstrates. Do not deduct for omissions or style; simply do not award that component. A statement that directly contradicts a component's required claim means the component is not demonstrated.

**4 — Reasoning ≠ vocabulary.** Required concepts summarise what a component tests; exact wording is never required. Indicative terms carry no marks on their own.

**5 — Grade meaning, not form.** Accept paraphrases and the variants listed in Appendix B.
"""


def render_question(question: Question) -> str:
    """One marking block."""
    lines = [f"### {question.id} · {question.title or 'Untitled'}"]
    lines.append(f"**Q.** {question.question or ''}")
    facts = [
        f"**Paraphrase of:** {question.paraphrase_of} (its marking scheme)" if question.paraphrase_of else "",
        f"**Type:** {question.type}" if question.type else "",
        f"**Difficulty:** {question.difficulty}" if question.difficulty else "",
    ]
    total = sum(c.points for c in question.components)
    lines.append(" · ".join([f for f in facts if f] + [f"**Total: {total}**"]))
    lines.append("")
    if question.model_answer:
        lines += [f"**Model answer.** {question.model_answer}", ""]
    if question.principle:
        lines += [f"**Principle.** {question.principle}", ""]
    gate = question.gate
    if gate is not None:
        lines.append(f"**Gate — {gate.component_id or GATE_ID} ({gate.points} points).** {gate.pass_condition or ''}")
        if gate.fail_examples:
            lines.append("**Gate-fail examples:** " + "; ".join(e.rstrip(".") for e in gate.fail_examples) + ".")
        lines += [f"**If {gate.component_id or GATE_ID} fails: total = 0.**", ""]
    lines.append("**Scored components.**")
    for component in question.components:
        flag = " (GATE)" if component.is_gate else ""
        lines.append(f"- **{component.id} [{component.points}]{flag}** — {component.credit_if or ''}")
    lines.append("")
    if question.required_concepts:
        lines.append("**Required concepts.** " + " · ".join(question.required_concepts) + ".")
    variants = [variant_rule_text(v) for v in question.accepted_variants]
    if variants:
        lines.append("**Accepted variants.** " + " · ".join(variants) + ".")
    if question.indicative_terms:
        lines.append("**Indicative (non-scoring).** " + " · ".join(question.indicative_terms) + ".")
    if question.do_not_credit:
        lines.append("**Do not credit.** " + " ".join(_sentence(item) for item in question.do_not_credit))
    return "\n".join(lines).rstrip() + "\n"


def _sentence(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "!", "?")) else text + "."


def render_grading_guide(rubric: Rubric) -> str:
    """The whole Markdown key: header, how-to, questions grouped by section, variants."""
    benchmark = rubric.benchmark
    name = benchmark.name or "Benchmark"
    parts = [f"# {name} — Graded Answer Key & Marking Scheme", ""]
    if benchmark.corpus_root:
        parts.append(
            f"**Corpus:** `{benchmark.corpus_root}`"
            + (f" — {benchmark.region_or_dataset}" if benchmark.region_or_dataset else "")
        )
    if benchmark.domain_scope:
        parts.append(f"**Scope:** {benchmark.domain_scope}")
    if rubric.candidate_access_mode:
        parts.append(f"**Candidate access mode:** `{rubric.candidate_access_mode}`")
    parts += [
        "",
        f"{len(rubric.questions)} questions. The JSON sidecar (schema {rubric.schema_version}) is the source of truth.",
        "",
        "---",
        "",
        _HOW_TO_USE,
    ]
    for section, questions in groupby(rubric.questions, key=lambda q: q.section or ""):
        parts += ["---", "", f"## Section {section}" if section else "## Questions", ""]
        parts += [render_question(question) for question in questions]
    if rubric.global_variants:
        parts += ["---", "", "## Appendix B · Accepted variants", "", "| Canonical | Accepted variants |", "|---|---|"]
        for rule in rubric.global_variants:
            parts.append(f"| {_cell(rule.canonical_term)} | {_cell(rule.variant_text)} |")
        parts += ["", "Graders must treat the variants as equivalent."]
    return "\n".join(parts).rstrip() + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
