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
from gtreview.report.configuration_section import add_configuration_section
from gtreview.report.design_section import add_design_section
from gtreview.report.document import (
    BarChart,
    BarSeries,
    Heading,
    PageBreak,
    Paragraph,
    ReportDocument,
    ScatterChart,
    ScatterPoint,
    Table,
)
from gtreview.report.gate_section import add_gate_section
from gtreview.report.membership_section import add_membership_section
from gtreview.report.noise_section import add_noise_section
from gtreview.report.paraphrase_section import add_paraphrase_section
from gtreview.report.pdf import render_pdf
from gtreview.report.reading_section import add_reading_section
from gtreview.results.analysis import KIND_NAMES, RunAnalysis, fmt, fmt_ci
from gtreview.results.loader import RunResults, SampleResult, SampleStatus
from gtreview.results.reading import FineTuneReading, fine_tune_readings

PAIRWISE_NOT_RUN = "Pairwise comparison: not run in this pass."


def _interval(summary: object) -> tuple[float, float] | None:
    ci = getattr(summary, "ci", None)
    return (ci.low, ci.high) if ci is not None else None


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
    _summary(doc, results, analysis)
    add_reading_section(doc, readings)
    add_design_section(doc, analysis.design)
    add_paraphrase_section(doc, analysis.paraphrase)
    add_noise_section(doc, analysis.noise)
    _charts(doc, results, analysis)
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
    from gtreview.runs.probes import FamiliarityReport, RecallReport, reading

    assert results.probes is not None
    familiarity = FamiliarityReport.model_validate(results.probes["familiarity"])
    recall = RecallReport.model_validate(results.probes["recall"])
    kinds = {f.label: f.kind_differences for f in analysis.finetunes}
    readings = {r.label: r for r in reading(familiarity, recall, kinds if judged else None)}
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
    from gtreview.core.statistics import paired_difference
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


def _summary(doc: ReportDocument, results: RunResults, analysis: RunAnalysis) -> None:
    doc.add(Heading(text="Summary"))
    doc.add(
        Table(
            header=[
                "Model",
                "Mean /10",
                "95% CI",
                "SD across repeats",
                "Gate pass rate",
                "Scored",
                "Errors",
                "Unscored",
                "Adjudicated",
            ],
            rows=[
                [
                    m.label,
                    fmt(m.summary.mean),
                    fmt_ci(m.summary),
                    fmt(m.summary.sd),
                    fmt(m.gate.rate),
                    str(m.counts.get(SampleStatus.SCORED, 0)),
                    str(m.counts.get(SampleStatus.ERROR, 0)),
                    str(m.counts.get(SampleStatus.UNSCORED, 0)),
                    str(m.counts.get("adjudicated", 0)),
                ]
                for m in analysis.models
            ],
            widths=[2, 1, 1.5, 1.3, 1.2, 0.9, 0.9, 0.9, 1.1],
            caption="Means over questions of per-question means; errors count as 0; unscored judgements are left out; "
            "adjudicated: samples whose score an expert settled (figures use the settled score).",
        )
    )
    if analysis.finetunes:
        doc.add(
            Table(
                header=[
                    "Fine-tune − base",
                    "Difference",
                    "95% CI (paired)",
                    "p (permutation)",
                    "Cohen's dz",
                    "Verdict",
                    "Reading",
                ],
                rows=[
                    [
                        f.label,
                        fmt(f.difference.mean_difference),
                        fmt_ci(f.difference),
                        fmt(f.difference.p_value, 3),
                        fmt(f.difference.cohens_dz),
                        f.difference.verdict,
                        f.reading,
                    ]
                    for f in analysis.finetunes
                ],
                widths=[1.5, 1, 1.4, 1.1, 1, 1.2, 1.8],
            )
        )
        if any(f.pairwise is not None for f in analysis.finetunes):
            doc.add(
                Table(
                    header=[
                        "Pairwise vs base",
                        "Wins",
                        "Ties",
                        "Losses",
                        "Unknown",
                        "Order-inconsistent",
                        "Win rate",
                        "Position bias",
                        "Agreement with pointwise",
                    ],
                    rows=[
                        [
                            f.label,
                            str(f.pairwise.wins),
                            str(f.pairwise.ties),
                            str(f.pairwise.losses),
                            str(f.pairwise.unknown),
                            str(f.pairwise.n_inconsistent),
                            fmt(f.pairwise.win_rate),
                            fmt(f.pairwise.position_bias_rate),
                            fmt(f.agreement.rate) if f.agreement is not None else "–",
                        ]
                        for f in analysis.finetunes
                        if f.pairwise is not None
                    ],
                    caption="Each pair judged in both answer orders and reconciled by averaging; unknown pairs are never ties. "
                    "Order-inconsistent: pairs whose two orders disagreed (a property of the pair, already counted among the wins, ties and losses).",
                )
            )
        else:  # a pass run with --no-pairwise: say so, rather than print a table without rows
            doc.add(Paragraph(text=PAIRWISE_NOT_RUN))


def _charts(doc: ReportDocument, results: RunResults, analysis: RunAnalysis) -> None:
    doc.add(Heading(text="Charts"))
    means = [m.summary.mean or 0.0 for m in analysis.models]
    intervals = [_interval(m.summary) or (v, v) for m, v in zip(analysis.models, means, strict=True)]
    doc.add(
        BarChart(
            title="Mean score with 95% interval",
            categories=[m.label for m in analysis.models],
            series=[
                BarSeries(name="mean /10", values=means, low=[i[0] for i in intervals], high=[i[1] for i in intervals])
            ],
            value_max=10,
        )
    )
    doc.add(
        BarChart(
            title="Share of points by component kind",
            categories=[KIND_NAMES[k] for k in ("gate", "binary", "reasoning")],
            series=[
                BarSeries(
                    name=m.label,
                    values=[m.kinds[k].mean or 0.0 for k in ("gate", "binary", "reasoning")],
                    low=[(_interval(m.kinds[k]) or (0.0, 0.0))[0] for k in ("gate", "binary", "reasoning")],
                    high=[(_interval(m.kinds[k]) or (0.0, 0.0))[1] for k in ("gate", "binary", "reasoning")],
                )
                for m in analysis.models
            ],
            value_max=1.0,
        )
    )
    histogram = []
    for label in results.models:
        matrix = results.score_matrix(label)
        values = matrix[~(matrix != matrix)]  # drop NaN
        histogram.append(
            BarSeries(
                name=label,
                values=[
                    float(((values >= b) & (values < b + 1)).sum()) if b < 10 else float((values == 10).sum())
                    for b in range(11)
                ],
            )
        )
    doc.add(
        BarChart(
            title="Score distribution (samples per total)", categories=[str(b) for b in range(11)], series=histogram
        )
    )
    for finetune in analysis.finetunes:
        difference = finetune.difference
        if difference.mean_difference is not None:
            low, high = _interval(difference) or (difference.mean_difference, difference.mean_difference)
            kinds = [finetune.kind_differences[k] for k in ("binary", "reasoning")]
            doc.add(
                BarChart(
                    title=f"{finetune.label} − {results.base}: score and component-kind share differences",
                    categories=["total /10", "binary facts (share)", "reasoning (share)"],
                    series=[
                        BarSeries(
                            name="difference",
                            values=[difference.mean_difference] + [k.mean_difference or 0.0 for k in kinds],
                            low=[low] + [(_interval(k) or (0.0, 0.0))[0] for k in kinds],
                            high=[high] + [(_interval(k) or (0.0, 0.0))[1] for k in kinds],
                        )
                    ],
                    value_min=min(low, -0.5, *[(_interval(k) or (0.0, 0.0))[0] for k in kinds]),
                    value_max=max(high, 0.5, *[(_interval(k) or (0.0, 0.0))[1] for k in kinds]),
                    reference_line=0.0,
                )
            )
        if finetune.pairwise is not None:
            pw = finetune.pairwise
            doc.add(
                BarChart(
                    title=f"Pairwise outcomes: {finetune.label} against {results.base}",
                    categories=["wins", "ties", "losses", "unknown"],
                    series=[BarSeries(name="pairs", values=[pw.wins, pw.ties, pw.losses, pw.unknown])],
                )
            )
        points = [
            ScatterPoint(
                x=q.means[results.base],
                y=q.means[finetune.label],
                x_err=q.sds[results.base] or 0.0,
                y_err=q.sds[finetune.label] or 0.0,
                label=q.qid,
            )
            for q in analysis.questions
            if q.means.get(results.base) is not None and q.means.get(finetune.label) is not None
        ]
        doc.add(
            ScatterChart(
                title=f"Per question: {results.base} (x) against {finetune.label} (y), ± sd across repeats",
                x_label=results.base,
                y_label=finetune.label,
                points=points,
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
    doc.add(
        Paragraph(
            text=f"Cronbach's alpha over {items.n_items} questions and {items.n_respondents} answer sets: "
            f"{fmt(items.alpha)} {('[' + fmt(items.alpha_ci.low) + ', ' + fmt(items.alpha_ci.high) + ']') if items.alpha_ci else ''}"
            f" ({items.n_items_dropped} question(s) with unscored samples left out)."
        )
    )


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
