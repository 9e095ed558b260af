"""The membership tests kept with a pass (``gtreview probe --run --members --held-out``),
in words and table rows: one text for the results view and the PDF report."""

from __future__ import annotations

from gtreview.results.analysis import fmt
from gtreview.results.loader import RunResults
from gtreview.runs.membership import MembershipReport

MEMBERSHIP_HEADING = "Trained on or held out? Membership tests"
MEMBERSHIP_HEADER = ["Model", "Signal", "AUC [95%]", "Passages (trained on / held out)", "Reading"]


def membership_of(results: RunResults) -> MembershipReport | None:
    """The pass's membership report, if its probes were run with a split."""
    stored = (results.probes or {}).get("membership")
    return MembershipReport.model_validate(stored) if stored else None


def membership_summary(report: MembershipReport) -> str:
    """What was tested, and how to read an AUC."""
    by_documents = all(a.result.resampled == "documents" for m in report.models for a in m.aucs)
    intervals = (
        "Intervals are 95% bootstrap intervals resampling documents within each side (with all their passages), "
        "since passages of one document are not independent; a side with fewer than two documents gets none."
        if by_documents  # a report kept before intervals were clustered says what it did
        else "Intervals are 95% stratified bootstrap intervals over passages, which passages of one document do "
        "not make independent: with few documents they are optimistic."
    )
    return (
        f"{report.n_members} passages of {len(report.member_documents)} documents the fine-tune was trained on and "
        f"{report.n_held_out} of {len(report.held_out_documents)} held out, scored by every model; an AUC is the "
        f"chance that a trained-on passage looks more familiar than a held-out one (0.5: no better than chance; "
        f"Min-K% and Min-K%++ with k = {report.k:.0%}; the reference ratio is the fine-tune's loss less the base's). "
        + intervals
    )


def membership_rows(report: MembershipReport) -> list[list[str]]:
    rows = []
    for model in report.models:
        label = f"{model.label} (base, control)" if model.is_base else model.label
        for signal in model.aucs:
            result = signal.result
            interval = f" [{fmt(result.ci.low, 2)}, {fmt(result.ci.high, 2)}]" if result.ci is not None else ""
            rows.append(
                [
                    label,
                    signal.name,
                    f"{fmt(result.auc, 2)}{interval}" if result.auc is not None else "–",
                    f"{result.n_members} / {result.n_non_members}",
                    signal.reading,
                ]
            )
    return rows


__all__ = ["MEMBERSHIP_HEADER", "MEMBERSHIP_HEADING", "membership_of", "membership_rows", "membership_summary"]
