"""The membership tests kept with a pass (``gtreview probe --run --members --held-out``),
in words, table rows and ROC curves: one text for the results view, the PDF report and
``gtreview results``, so all three print the same figures."""

from __future__ import annotations

from pydantic import BaseModel

from gtreview.core.stats import Signal, TprAtFpr
from gtreview.results.analysis import fmt
from gtreview.results.loader import RunResults
from gtreview.runs.membership import (
    FINETUNE_SIGNALS,
    FPR_TARGETS,
    SIGNAL_NAMES,
    MembershipReport,
    SignalAuc,
    strongest_signal,
)

MEMBERSHIP_HEADING = "Trained on or held out? Membership tests"
TPR_HEADERS = [f"TPR at {target:.0%} FPR" for target in FPR_TARGETS]
MEMBERSHIP_HEADER = [
    "Model",
    "Signal",
    "AUC [95%]",
    *TPR_HEADERS,
    "Passages (trained on / held out)",
    "Reading",
]
# short enough for the left axis of a chart in a 200-pixel tab
ROC_X_LABEL = "FPR: held out flagged"
ROC_Y_LABEL = "TPR: trained on flagged"


class RocSeries(BaseModel):
    """One model's ROC curve of one signal, as the view and the PDF draw it."""

    label: str
    is_base: bool
    points: list[tuple[float, float]]  # (FPR, TPR) corners from (0, 0) to (1, 1)


def membership_of(results: RunResults) -> MembershipReport | None:
    """The pass's membership report, if its probes were run with a split."""
    stored = (results.probes or {}).get("membership")
    return MembershipReport.model_validate(stored) if stored else None


def tpr_cell(result: TprAtFpr | None) -> str:
    """A TPR with the held-out passages its threshold flags: "46.9% (0 of 32 held out flagged)"."""
    if result is None or result.tpr is None:
        return "–"
    return f"{result.tpr:.1%} ({result.non_members_flagged} of {result.n_non_members} held out flagged)"


def tpr_cells(signal: SignalAuc) -> list[str]:
    """One cell per FPR target; "–" for a report kept before TPRs were (or a target it lacks)."""
    by_target = {round(t.max_fpr, 6): t for t in signal.tpr_at_fpr}
    return [tpr_cell(by_target.get(round(target, 6))) for target in FPR_TARGETS]


def tpr_phrase(signal: SignalAuc) -> str:
    """The TPRs in a sentence (the probe command's text): "TPR 46.9% (0 of 32 held out flagged) at 1% FPR, ..."."""
    cells = tpr_cells(signal)
    return "TPR " + ", ".join(f"{cell} at {target:.0%} FPR" for cell, target in zip(cells, FPR_TARGETS, strict=True))


def _has_tpr(report: MembershipReport) -> bool:
    return any(a.tpr_at_fpr for m in report.models for a in m.aucs)


def _tpr_legend(report: MembershipReport) -> str:
    if not _has_tpr(report):
        return (
            "This report was kept before TPRs at a low FPR and ROC curves were; run the membership test again for them."
        )
    n = report.n_held_out
    steps = (
        f" With {n} held-out passages the FPR moves in steps of 1/{n}, so TPR at 1% FPR is the TPR at 0 of {n} "
        "held-out passages flagged (each cell says how many its threshold flags)."
        if n < 100
        else " Each cell says how many held-out passages its threshold flags."
    )
    return (
        "TPR at 1% and 10% FPR, as membership-inference papers report them: the largest share of trained-on passages "
        "a threshold flags while flagging at most 1% (10%) of the held-out ones, passages with equal values flagged "
        "together." + steps
    )


def membership_summary(report: MembershipReport) -> str:
    """What was tested, and how to read an AUC and a TPR at a low FPR."""
    by_documents = all(a.result.resampled == "documents" for m in report.models for a in m.aucs)
    intervals = (
        "Intervals are 95% bootstrap intervals resampling documents within each side (with all their passages), "
        "since passages of one document are not independent; a side with fewer than two documents gets none."
        if by_documents  # a report kept before intervals were clustered says what it did
        else "Intervals are 95% stratified bootstrap intervals over passages, which passages of one document do "
        "not make independent: with few documents they are optimistic."
    )
    hard = (
        "; the hard-token gain (HT-MIA) is the fine-tune's mean log-prob gain over the base at the "
        f"{report.k:.0%} of tokens the base finds hardest, shown but not read: on fine-tunes known to have "
        "memorised it separated them less well than the reference ratio"
        if any(a.signal == "hard_token" for m in report.models for a in m.aucs)
        else ""
    )
    return (
        f"{report.n_members} passages of {len(report.member_documents)} documents the fine-tune was trained on and "
        f"{report.n_held_out} of {len(report.held_out_documents)} held out, scored by every model; an AUC is the "
        f"chance that a trained-on passage looks more familiar than a held-out one (0.5: no better than chance; "
        f"Min-K% and Min-K%++ with k = {report.k:.0%}; the reference ratio is the fine-tune's loss less the base's"
        f"{hard}). " + intervals + " " + _tpr_legend(report)
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
                    *tpr_cells(signal),
                    f"{result.n_members} / {result.n_non_members}",
                    signal.reading,
                ]
            )
    return rows


def roc_signals(report: MembershipReport) -> list[tuple[Signal, str]]:
    """The signals a ROC curve was kept for, with their names, in the table's order."""
    kept = {a.signal for m in report.models for a in m.aucs if a.roc}
    return [(s, SIGNAL_NAMES[s]) for s in FINETUNE_SIGNALS if s in kept]


def roc_signal(report: MembershipReport) -> Signal | None:
    """The signal drawn first: the one the readings lean on, else the first with a curve."""
    drawable = [s for s, _ in roc_signals(report)]
    strongest = strongest_signal(report)
    return strongest if strongest in drawable else (drawable[0] if drawable else None)


def roc_series(report: MembershipReport, signal: Signal) -> list[RocSeries]:
    """Each model's curve of ``signal`` named with its AUC (the base's, the control, where it
    has that signal)."""
    return [
        RocSeries(
            label=f"{m.label} (base, control), AUC {fmt(a.result.auc, 2)}"
            if m.is_base
            else f"{m.label}, AUC {fmt(a.result.auc, 2)}",
            is_base=m.is_base,
            points=a.roc,
        )
        for m in report.models
        for a in m.aucs
        if a.signal == signal and a.roc
    ]


def roc_title(signal: Signal) -> str:
    return f"ROC of {SIGNAL_NAMES[signal]}: trained-on passages flagged against held-out ones; the diagonal is chance"


__all__ = [
    "MEMBERSHIP_HEADER",
    "MEMBERSHIP_HEADING",
    "ROC_X_LABEL",
    "ROC_Y_LABEL",
    "TPR_HEADERS",
    "RocSeries",
    "membership_of",
    "membership_rows",
    "membership_summary",
    "roc_series",
    "roc_signal",
    "roc_signals",
    "roc_title",
    "tpr_cell",
    "tpr_cells",
    "tpr_phrase",
]
