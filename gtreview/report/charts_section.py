"""The report's charts: means with their intervals, shares by component kind, the score
distribution, and per fine-tune its differences from the base, pairwise outcomes and the
per-question scatter."""

from __future__ import annotations

from gtreview.report.document import (
    BarChart,
    BarSeries,
    Heading,
    Paragraph,
    ReportDocument,
    ScatterChart,
    ScatterPoint,
)
from gtreview.results.absence import NO_SCORES_YET, any_scored
from gtreview.results.analysis import KIND_NAMES, FinetuneFigures, RunAnalysis
from gtreview.results.loader import RunResults

SHARE_KINDS = ("binary", "reasoning")


def _interval(summary: object) -> tuple[float, float] | None:
    ci = getattr(summary, "ci", None)
    return (ci.low, ci.high) if ci is not None else None


def _difference_charts(doc: ReportDocument, base: str, finetune: FinetuneFigures) -> None:
    """The score difference on its own /10 axis, and the share differences on theirs: a share
    moves within -1..1, invisible beside points out of 10 on one axis."""
    difference = finetune.difference
    if difference.mean_difference is not None:
        low, high = _interval(difference) or (difference.mean_difference, difference.mean_difference)
        doc.add(
            BarChart(
                title=f"{finetune.label} − {base}: score difference (points of 10, paired by question)",
                categories=[f"over {difference.n_questions} questions"],
                series=[BarSeries(name="difference", values=[difference.mean_difference], low=[low], high=[high])],
                value_min=min(low, -0.5),
                value_max=max(high, 0.5),
                reference_line=0.0,
            )
        )
    kinds = [finetune.kind_differences[k] for k in SHARE_KINDS if k in finetune.kind_differences]
    if not any(k.mean_difference is not None for k in kinds):
        return
    lows = [(_interval(k) or (k.mean_difference or 0.0,) * 2)[0] for k in kinds]
    highs = [(_interval(k) or (k.mean_difference or 0.0,) * 2)[1] for k in kinds]
    doc.add(
        BarChart(
            title=f"{finetune.label} − {base}: change in the share of points by component kind (0–1)",
            categories=[KIND_NAMES[k] for k in SHARE_KINDS if k in finetune.kind_differences],
            series=[
                BarSeries(name="difference", values=[k.mean_difference or 0.0 for k in kinds], low=lows, high=highs)
            ],
            value_min=min(-0.1, *lows),
            value_max=max(0.1, *highs),
            reference_line=0.0,
        )
    )


def add_charts_section(doc: ReportDocument, results: RunResults, analysis: RunAnalysis) -> None:
    doc.add(Heading(text="Charts"))
    if not any_scored(results):  # empty charts drew made-up scales (a count axis of 0–0.01)
        doc.add(
            Paragraph(
                text=f"{NO_SCORES_YET[0].upper()}{NO_SCORES_YET[1:]}: the charts are drawn once answers are scored."
            )
        )
        return
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
        _difference_charts(doc, results.base, finetune)
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
