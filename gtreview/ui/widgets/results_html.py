"""The results view's text: a sample in full, an answer beside the others, a pair's verdict,
and the leaderboard's rows (what each shows, apart from how the view lays it out)."""

from __future__ import annotations

from html import escape

from gtreview.results.analysis import RunAnalysis, fmt, fmt_ci
from gtreview.results.counts import counts_text
from gtreview.results.loader import PairResult, RunResults, SampleResult, SampleStatus
from gtreview.ui.models.sample_table import gate_text, sample_number, score_text, status_text
from gtreview.ui.widgets.html import style


def pair_note(pair: PairResult) -> str:
    order = " <span class='warn'>◇ the two orders disagree</span>" if pair.inconsistent else ""
    settled = " (settled by an expert)" if pair.adjudicated else ""
    return (
        f"{escape(pair.finetune)} vs {escape(pair.base)}: <b>{escape(pair.label or 'not judged')}</b>{settled}{order} "
        f"{escape(pair.reason_normal)}"
    )


def sample_detail_html(results: RunResults, sample: SampleResult) -> str:
    question = next((q for q in results.every_question() if q.id == sample.qid), None)
    points = {c.id: c.points for c in question.components} if question is not None else {}
    rows = "".join(
        f"<tr><th>{escape(cid)}</th><td>{value}{'/' + escape(str(points[cid])) if cid in points else ''}</td>"
        f"<td>{escape(sample.reasons.get(cid, ''))}</td></tr>"
        for cid, value in sample.awards.items()
    )
    settled = (
        f" <span class='meta'>(settled by an expert; the judge gave {fmt(sample.judge_total, 0)})</span>"
        if sample.adjudicated
        else ""
    )
    problem = escape(sample.error or sample.unscored_reason)
    gate_reason = f"<p><b>Gate:</b> {escape(sample.gate_reason)}</p>" if sample.gate_reason else ""
    adjustments = (
        "<p class='meta'>Adjustments: " + escape("; ".join(sample.adjustments)) + "</p>" if sample.adjustments else ""
    )
    pairs = [
        pair_note(p)
        for p in results.every_pair()
        if p.qid == sample.qid and p.sample_index == sample.sample_index and sample.model in (p.finetune, p.base)
    ]
    return "".join(
        [
            style(),
            f"<h3>{escape(sample.qid)} · {escape(question.title or '') if question else ''}</h3>",
            f"<p class='meta'>{escape(question.question or '') if question else ''}</p>",
            f"<h4>{escape(sample.model)} — sample {sample_number(sample)} — {escape(status_text(sample))}</h4>",
            f"<p>Score <b>{escape(score_text(sample))}</b> / 10 · gate <b>{escape(gate_text(sample))}</b>{settled}</p>",
            f"<p class='err'>{problem}</p>" if problem else "",
            gate_reason,
            f"<h3>Verdicts</h3><table><tr><th>Component</th><th>Awarded</th><th>The judge's reason</th></tr>{rows}</table>"
            if rows
            else "",
            adjustments,
            "<h3>Pairwise</h3><p>" + "<br>".join(pairs) + "</p>" if pairs else "",
            "<h3>Answer</h3>",
            f"<p style='white-space: pre-wrap'>{escape(sample.answer_clean or sample.answer_raw) or '<i>no answer</i>'}</p>",
        ]
    )


def sample_html(model: str, sample: SampleResult | None) -> str:
    if sample is None:
        return f"<b>{escape(model)}</b><br><i>no answer</i>"
    head = f"<b>{escape(model)}</b> — {sample.status.value}"
    if sample.status is SampleStatus.SCORED:
        head += f", total <b>{fmt(sample.total, 0)}</b>, gate {'passed' if sample.gate_passed else 'failed'}"
    awards = "".join(
        f"<li>{escape(cid)}: {value} — {escape(sample.reasons.get(cid, ''))}</li>"
        for cid, value in sample.awards.items()
    )
    problem = escape(sample.error or sample.unscored_reason)
    shown = f"<span class='err'>{problem}</span><br>" if problem else ""
    return f"{head}<br>{shown}<p>{escape(sample.answer_clean or sample.answer_raw)[:3000]}</p><ul>{awards}</ul>"


def leaderboard_rows(entries: list[tuple[RunResults, RunAnalysis]]) -> list[list[str]]:
    rows = []
    for results, analysis in entries:
        differences = {f.label: f for f in analysis.finetunes}
        for model in analysis.models:
            versus = differences.get(model.label)
            rows.append(
                [
                    f"{results.run_id}: {results.name}",
                    model.label,
                    f"{fmt(model.summary.mean)} {fmt_ci(model.summary)}",
                    "base"
                    if versus is None
                    else f"{fmt(versus.difference.mean_difference)} {fmt_ci(versus.difference)} {versus.difference.verdict}",
                    counts_text(model.counts),  # by the names the CSV, JSON and PDF use
                ]
            )
    return sorted(rows, key=lambda row: -float(row[2].split()[0]) if row[2].split()[0] not in ("–",) else 0.0)
