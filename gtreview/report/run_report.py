"""The PDF report of a pass: cover, finding, summary tables, charts, breakdowns, the
per-question table, failures and unscored items, and the full configuration."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from gtreview import __version__
from gtreview.core.numbering import difficulty_rank, natural_key, sample_number
from gtreview.core.redaction import redact
from gtreview.report.charts_section import add_charts_section
from gtreview.report.configuration_section import add_configuration_section
from gtreview.report.design_section import add_design_section
from gtreview.report.document import (
    Heading,
    PageBreak,
    Paragraph,
    ReportDocument,
    Table,
)
from gtreview.report.gate_section import add_gate_section
from gtreview.report.membership_section import add_membership_section
from gtreview.report.noise_section import add_noise_section
from gtreview.report.paraphrase_section import add_paraphrase_section
from gtreview.report.pdf import render_pdf
from gtreview.report.reading_section import add_reading_section
from gtreview.report.summary_section import add_summary_section
from gtreview.results.analysis import KIND_NAMES, RunAnalysis, fmt, fmt_ci
from gtreview.results.items_text import LEFT_OUT, alpha_words
from gtreview.results.loader import RunResults, SampleResult, SampleStatus
from gtreview.results.reading import FineTuneReading, fine_tune_readings


def _paraphrased(results: RunResults) -> str:
    count = len(results.paraphrases)
    return f" (and {count} paraphrased variant{'' if count == 1 else 's'}, apart)" if count else ""


def build_report(
    results: RunResults,
    analysis: RunAnalysis,
    *,
    set_name: str = "",
    signoff: str = "",
    agreement: Any = None,
    gate_line: str = "",
    gated: bool = False,
    readings: list[FineTuneReading] | None = None,
    gate_details: Sequence[str] = (),
) -> ReportDocument:
    """``gate_line`` is the judge gate's sentence (gtreview.app.judge_gate), printed on the
    cover as it is in the results view: quietly when ``gated``, as an alarm when not;
    ``gate_details`` its per-criterion lines, given a section of their own.
    ``readings`` are the fine-tunes' readings as the view shows them; without them they are
    read from the figures and the gate (not checked when there is no ``gate_line``)."""
    if readings is None:
        readings = fine_tune_readings(results, analysis, judge_gated=gated if gate_line else None, judge_line=gate_line)
    doc = ReportDocument(
        cover_notice=Paragraph(text=gate_line, style="finding" if gated else "alarm") if gate_line else None,
        title=f"Benchmark report: {results.name}",
        subtitle=set_name or "",
        cover_lines=[
            ("Benchmark set", set_name or "none in this project (questions from a rubric file)"),
            ("Set version (rubric sha256)", results.rubric_hash[:16] + "…" if results.rubric_hash else "–"),
            ("Sign-off", signoff or "not signed off"),
            ("Run", f"{results.run_id} ({results.shown_status})"),
            ("Models", ", ".join(f"{m.label} = {m.spec}" for m in results.config.models)),
            ("Judge", results.config.judge),
            ("Questions × repeats", f"{len(results.questions)} × {results.repeats}" + _paraphrased(results)),
            ("Generated", f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC by gtreview {__version__}"),
        ],
    )
    doc.add(Heading(text="Finding"), Paragraph(text=analysis.finding, style="finding"))
    add_summary_section(doc, results, analysis)
    add_reading_section(doc, readings)
    add_design_section(doc, analysis.design)
    add_paraphrase_section(doc, analysis.paraphrase)
    add_noise_section(doc, analysis.noise)
    add_charts_section(doc, results, analysis)
    _breakdowns(doc, results, analysis)
    _per_question(doc, results, analysis)
    _failures(doc, results)
    if results.probes:
        if results.familiarity_probes:
            _probes(doc, results, analysis, judged=gated and bool(gate_line))
        _probes_by_section(doc, results)
        add_membership_section(doc, results)
    add_gate_section(doc, gate_line, gate_details)
    if agreement is not None and agreement.n_graded:
        _agreement(doc, agreement)
    add_configuration_section(doc, results)
    return doc


def _probes(doc: ReportDocument, results: RunResults, analysis: RunAnalysis, *, judged: bool) -> None:
    """Learned or recited? Memorisation probes beside the component-kind score changes;
    ``judged``: the judge is gated, so its reasoning points may decide the reading."""
    from gtreview.runs.probe_reading import reading, told_apart_of
    from gtreview.runs.probes import FamiliarityReport, RecallReport

    assert results.probes is not None
    familiarity = FamiliarityReport.model_validate(results.probes["familiarity"])
    recall = RecallReport.model_validate(results.probes["recall"])
    kinds = {f.label: f.kind_differences for f in analysis.finetunes}
    told = told_apart_of(results.probes)
    readings = {r.label: r for r in reading(familiarity, recall, kinds if judged else None, told)}
    doc.add(Heading(text="Learned or recited?"))
    doc.add(
        Paragraph(
            text=(
                f"Memorisation probes on {familiarity.n_passages} corpus passages ({familiarity.control_kind} controls): the change in "
                "per-token log-likelihood and in verbatim recall (4-gram overlap of greedy continuations), beside the change in gate, "
                "binary-fact and reasoning points. Intervals are paired 95% bootstrap intervals."
            )
        )
    )
    recall_by = {c.label: c for c in recall.comparisons}
    rows = []
    for comparison in familiarity.comparisons:
        label = comparison.label
        kind = kinds.get(label, {})
        memo = recall_by.get(label)
        rows.append(
            [
                label,
                f"{fmt(comparison.passages.mean_difference, 3)} {fmt_ci(comparison.passages, 3)}",
                f"{fmt(comparison.excess.mean_difference, 3)} {fmt_ci(comparison.excess, 3)}"
                if comparison.excess
                else "–",
                f"{fmt(memo.ngram_overlap.mean_difference, 3)} {fmt_ci(memo.ngram_overlap, 3)}" if memo else "–",
                *[
                    f"{fmt(kind[k].mean_difference)} {fmt_ci(kind[k])}" if k in kind else "–"
                    for k in ("gate", "binary", "reasoning")
                ],
                readings[label].text if label in readings else "–",
            ]
        )
    doc.add(
        Table(
            header=[
                "Fine-tune",
                "Log-lik. change",
                "Beyond control",
                "Recall change",
                "Gate",
                "Binary facts",
                "Reasoning",
                "Reading",
            ],
            rows=rows,
            widths=[1.1, 1.5, 1.5, 1.5, 1.2, 1.2, 1.2, 1.6],
        )
    )


PROBE_SECTION_HEADER = ["Section", "Fine-tune", "Passages", "Log-lik. change", "Recall change", "Score change /10"]


def probe_section_rows(results: RunResults) -> list[list[str]]:
    """Per benchmark section: memorisation signals on the sources the section cites, beside
    the section's score change (fine-tune minus base, paired over its questions)."""
    from gtreview.core.stats import paired_difference
    from gtreview.runs.probes import FamiliarityReport, RecallReport

    sections = (results.probes or {}).get("sections") or {}
    rows = []
    for section, stored in sorted(sections.items()):
        familiarity = FamiliarityReport.model_validate(stored["familiarity"])
        recall = {c.label: c for c in RecallReport.model_validate(stored["recall"]).comparisons}
        question_rows = [i for i, q in enumerate(results.questions) if (q.section or "(none)") == section]
        for comparison in familiarity.comparisons:
            label = comparison.label
            scores = paired_difference(
                results.score_matrix(label)[question_rows],
                results.score_matrix(results.base)[question_rows],
                n_boot=500,
                n_perm=2000,
            )
            memo = recall.get(label)
            rows.append(
                [
                    section,
                    label,
                    str(familiarity.n_passages),
                    f"{fmt(comparison.passages.mean_difference, 3)} {fmt_ci(comparison.passages, 3)}",
                    f"{fmt(memo.ngram_overlap.mean_difference, 3)} {fmt_ci(memo.ngram_overlap, 3)}" if memo else "–",
                    f"{fmt(scores.mean_difference)} {fmt_ci(scores)}",
                ]
            )
    return rows


def _probes_by_section(doc: ReportDocument, results: RunResults) -> None:
    rows = probe_section_rows(results)
    if rows:
        doc.add(Heading(text="By section", level=2))
        doc.add(
            Table(
                header=PROBE_SECTION_HEADER,
                rows=rows,
                widths=[0.8, 1.2, 0.8, 1.8, 1.8, 1.8],
                caption="Passages are those of the documents the section's questions cite.",
            )
        )


def _agreement(doc: ReportDocument, agreement: Any) -> None:
    """Judge against the expert on the hand-graded sample (and experts among themselves)."""
    doc.add(Heading(text="Judge against expert"))
    totals, gate = agreement.totals, agreement.gate
    rows = [
        ["Hand-graded answers", str(agreement.n_graded)],
        ["Graders", ", ".join(agreement.graders)],
        ["Gate agreement (Cohen's kappa)", fmt(gate.kappa if gate else None)],
        ["Totals: weighted kappa (quadratic)", fmt(totals.kappa.kappa if totals else None)],
        ["Totals: Krippendorff's alpha (interval)", fmt(totals.alpha.alpha if totals else None)],
        ["Mean absolute difference", fmt(totals.mad if totals else None)],
        ["Judge minus expert (leniency)", fmt(totals.mean_signed_difference if totals else None)],
    ]
    doc.add(Table(header=["Measure", "Value"], rows=rows, widths=[2, 1]))
    if agreement.components:
        doc.add(
            Table(
                header=["Component", "Answers", "Exact agreement", "Mean abs. difference", "Judge − expert"],
                rows=[
                    [cid, str(c.n), fmt(c.exact_rate), fmt(c.mad), fmt(c.mean_signed_difference)]
                    for cid, c in agreement.components.items()
                ],
            )
        )
    if agreement.most_disagreeing:
        doc.add(Heading(text="Questions where judge and expert disagree most", level=2))
        doc.add(
            Table(
                header=["Question", "Answers", "Mean abs. difference", "Judge − expert"],
                rows=[
                    [q.question_id, str(q.n), fmt(q.mad), fmt(q.mean_signed_difference)]
                    for q in agreement.most_disagreeing
                ],
            )
        )
    if agreement.inter_rater is not None:
        doc.add(
            Paragraph(
                text=f"Between experts: Krippendorff's alpha on totals {fmt(agreement.inter_rater.total_alpha.alpha)}."
            )
        )


def _breakdowns(doc: ReportDocument, results: RunResults, analysis: RunAnalysis) -> None:
    doc.add(PageBreak(), Heading(text="Breakdowns"))
    for title, attribute in (("By section", "by_section"), ("By difficulty", "by_difficulty")):
        rank = difficulty_rank if attribute == "by_difficulty" else (lambda _group: 0)
        groups = sorted(getattr(analysis.models[0], attribute), key=lambda g: (rank(g), natural_key(g)))
        doc.add(Heading(text=title, level=2))
        doc.add(
            Table(
                header=["Group", *[f"{m.label} mean [CI]" for m in analysis.models], "Questions"],
                rows=[
                    [
                        g,
                        *[
                            f"{fmt(getattr(m, attribute)[g].mean)} {fmt_ci(getattr(m, attribute)[g])}"
                            for m in analysis.models
                        ],
                        str(getattr(analysis.models[0], attribute)[g].n_questions),
                    ]
                    for g in groups
                ],
            )
        )
    doc.add(Heading(text="By component kind (share of points)", level=2))
    doc.add(
        Table(
            header=["Kind", *[f"{m.label} [CI]" for m in analysis.models]],
            rows=[
                [KIND_NAMES[k], *[f"{fmt(m.kinds[k].mean)} {fmt_ci(m.kinds[k])}" for m in analysis.models]]
                for k in ("gate", "binary", "reasoning")
            ],
            caption="A fine-tune that gains on binary facts but not on reasoning has learned to recite, not to reason.",
        )
    )
    items = analysis.items
    doc.add(Heading(text="Item analysis and reliability", level=2))
    left_out = [kind for kind in LEFT_OUT if any(s.status.value == kind for s in results.samples)]
    doc.add(Paragraph(text=alpha_words(items, left_out)))


def _per_question(doc: ReportDocument, results: RunResults, analysis: RunAnalysis) -> None:
    doc.add(PageBreak(), Heading(text="Per question"))
    finetunes = [f.label for f in analysis.finetunes]
    header = [
        "Id",
        "Title",
        "Sec.",
        "Diff.",
        *[f"{m} mean±sd" for m in results.models],
        *[f"{f} pairwise" for f in finetunes],
        "Item diff.",
        "Discr.",
        "Pointwise ≠ pairwise",
    ]
    rows = [
        [
            q.qid,
            _cut(q.title, 60),
            q.section,
            q.difficulty,
            *[f"{fmt(q.means[m], 1)}±{fmt(q.sds[m], 1)}" for m in results.models],
            *[fmt(q.pairwise_mean.get(f)) for f in finetunes],
            fmt(q.item_difficulty),
            fmt(q.discrimination),
            ", ".join(q.disagrees),
        ]
        for q in analysis.questions
    ]
    widths = [0.6, 3.0, 0.5, 0.6, *[1.1] * len(results.models), *[0.9] * len(finetunes), 0.7, 0.7, 0.9]
    doc.add(Table(header=header, rows=rows, widths=widths))


def _cut(text: str, limit: int) -> str:
    """``text`` within ``limit`` characters, an ellipsis saying where it was cut; redacted
    first, since a key cut in half no longer matches the key."""
    text = redact(text)
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


NO_SCORE = (SampleStatus.ERROR, SampleStatus.UNSCORED, SampleStatus.MISSING, SampleStatus.UNJUDGED)


def _why_no_score(sample: SampleResult) -> str:
    if sample.status is SampleStatus.UNJUDGED:
        return "an answer is stored but no verdict (judging not run, or an import without scores)"
    if sample.status is SampleStatus.MISSING:
        return "no answer stored (the pass stopped before it)"
    return sample.error or sample.unscored_reason


def _failures(doc: ReportDocument, results: RunResults) -> None:
    doc.add(Heading(text="Failures and unscored items"))
    rows = [
        [s.model, s.qid, str(sample_number(s.sample_index)), s.status.value, _cut(_why_no_score(s), 120)]
        for s in results.every_sample()  # a paraphrase's failures are results too
        if s.status in NO_SCORE
    ]
    if rows:
        doc.add(
            Table(
                header=["Model", "Question", "Sample", "Status", "Reason"],
                rows=rows,
                widths=[1, 0.8, 0.6, 0.8, 5],
                caption="Samples are numbered from 1, as in the app.",
            )
        )
    else:
        doc.add(Paragraph(text="Every answer was generated and judged."))


def write_run_report(
    results: RunResults,
    analysis: RunAnalysis,
    out: Path,
    *,
    set_name: str = "",
    signoff: str = "",
    agreement: Any = None,
    gate_line: str = "",
    gated: bool = False,
    readings: list[FineTuneReading] | None = None,
    gate_details: Sequence[str] = (),
) -> Path:
    document = build_report(
        results,
        analysis,
        set_name=set_name,
        signoff=signoff,
        agreement=agreement,
        gate_line=gate_line,
        gated=gated,
        readings=readings,
        gate_details=gate_details,
    )
    return render_pdf(document, out)
