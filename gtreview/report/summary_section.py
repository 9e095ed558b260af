"""The report's summary: each model's mean with the questions it covers and its samples
counted by the names every output uses (``results.counts``), each fine-tune's paired
difference with the questions it covers, and the pairwise outcomes (or why there are none)."""

from __future__ import annotations

from gtreview.report.document import Heading, Paragraph, ReportDocument, Table
from gtreview.results.analysis import RunAnalysis, fmt, fmt_ci
from gtreview.results.counts import COUNT_NAMES
from gtreview.results.figures import pairwise_absent
from gtreview.results.loader import RunResults

SUMMARY_HEADING = "Summary"


def add_summary_section(doc: ReportDocument, results: RunResults, analysis: RunAnalysis) -> None:
    doc.add(Heading(text=SUMMARY_HEADING))
    meanings = "; ".join(f"{name.key}: {name.meaning}" for name in COUNT_NAMES)
    doc.add(
        Table(
            header=["Model", "Mean /10", "95% CI", "SD across repeats", "Gate pass rate", "Questions"]
            + [name.heading for name in COUNT_NAMES],
            rows=[
                [
                    m.label,
                    fmt(m.summary.mean),
                    fmt_ci(m.summary),
                    fmt(m.summary.sd),
                    fmt(m.gate.rate),
                    f"{m.summary.n_questions} of {len(results.questions)}",
                    *[str(getattr(m.counts, name.key)) for name in COUNT_NAMES],
                ]
                for m in analysis.models
            ],
            widths=[1.6, 0.8, 1.3, 1.0, 0.9, 0.9] + [0.8] * len(COUNT_NAMES),
            caption="Means over the questions with a counted sample (Questions) of per-question means. Samples: "
            + meanings
            + ".",
        )
    )
    if not analysis.finetunes:
        return
    doc.add(
        Table(
            header=[
                "Fine-tune − base",
                "Questions (both)",
                "Base",
                "Fine-tune",
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
                    str(f.difference.n_questions),
                    fmt(f.difference.mean_base),
                    fmt(f.difference.mean_finetune),
                    fmt(f.difference.mean_difference),
                    fmt_ci(f.difference),
                    fmt(f.difference.p_value, 3),
                    fmt(f.difference.cohens_dz),
                    f.difference.verdict,
                    f.reading,
                ]
                for f in analysis.finetunes
            ],
            widths=[1.3, 0.9, 0.7, 0.8, 0.9, 1.2, 1.0, 0.9, 1.1, 1.6],
            caption="Paired by question over the questions both models have a counted answer for: Base and "
            "Fine-tune are the means over those questions, so they subtract to the difference.",
        )
    )
    judged = [f for f in analysis.finetunes if f.pairwise is not None]
    if not judged:  # say why there is no table rather than print one without rows
        doc.add(Paragraph(text=f"Pairwise comparison: {pairwise_absent(results)}."))
        return
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
                for f in judged
                if f.pairwise is not None
            ],
            caption="Each pair judged in both answer orders and reconciled by averaging; unknown pairs are never ties. "
            "Order-inconsistent: pairs whose two orders disagreed (a property of the pair, already counted among the "
            "wins, ties and losses).",
        )
    )
