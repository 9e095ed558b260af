"""The plain reading of the memorisation probes per fine-tune: recites more, reasons better, or neither."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from gtreview.core.stats import Difference, StatModel
from gtreview.runs.membership import MembershipReport, base_confounds, counted_signals, separates
from gtreview.runs.probes import FamiliarityReport, RecallReport

Told = Literal["members", "held-out", "neither"]  # which side of a membership split looks trained-on


class Reading(StatModel):
    """The plain reading for one fine-tune, with the figures it rests on."""

    label: str
    recites_more: bool
    reasons_better: bool | None  # None: no pointwise reasoning scores were given
    text: str
    evidence: list[str]


def _fmt(name: str, diff: Difference | None, unit: str = "") -> str:
    if diff is None or diff.mean_difference is None:
        return f"{name}: no data"
    ci = f" [{diff.ci.low:+.3f}, {diff.ci.high:+.3f}]" if diff.ci is not None else ""
    return f"{name}: {diff.mean_difference:+.3f}{unit}{ci} ({diff.verdict}, n={diff.n_questions})"


# Said when no memorisation signal clears zero for the fine-tune. Not "within noise": a
# signal may well clear zero the other way (the base more familiar with the passages).
NO_SIGN_OF_RECITING = "no sign it recites the sources more than the base"
# Said when the split's held-out documents look more trained-on than its named training
# documents: the split is wrong, or the fine-tune learned the other side; no claim either way.
WRONG_WAY = (
    "cannot tell: its held-out documents look more trained-on than the documents named as its training "
    "(check the split: --members and --held-out)"
)
# Said when the only signal is a likelihood gain beyond shuffled text and no membership
# split or held-out text says whether it is the corpus itself or its domain.
FAMILIAR_WORDING = (
    "knows the corpus's wording better than the base; cannot tell reciting from learning the domain "
    "(name held-out text with --controls, or a membership split with --members and --held-out)"
)


def reading(
    familiarity: FamiliarityReport,
    recall: RecallReport,
    pointwise: Mapping[str, Mapping[str, Difference]] | None = None,
    members_told_apart: Mapping[str, Told] | None = None,
) -> list[Reading]:
    """One reading per fine-tune: "reasons better", "recites more, reasons no better",
    "recites more" (no pointwise scores to judge reasoning by) or NO_SIGN_OF_RECITING.

    *Recites more* needs an interval clear of zero on a memorisation signal that a
    better general model would not also show: 4-gram recall of the passages beyond
    what the controls show, or a likelihood gain beyond the shuffled control's (or on
    the passages but not on held-out controls). ``pointwise`` maps a fine-tune's label
    to its score difference per component kind; the ``reasoning`` kind decides
    *reasons better*.

    A likelihood gain beyond *shuffled* controls alone is not reciting: it shows the
    fine-tune learnt the corpus's word order, which a fine-tune on other text of the same
    domain learns too (the known-answer "learner", trained on none of the reports, gains
    +0.96 nats/token there). It reads as reciting only where a membership split
    (``members_told_apart``: whether the fine-tune tells its training documents from
    held-out ones) agrees; without one it reads as :data:`FAMILIAR_WORDING`.
    """
    recall_by = {c.label: c for c in recall.comparisons}
    readings = []
    for fam in familiarity.comparisons:
        rec = recall_by.get(fam.label)
        told = (members_told_apart or {}).get(fam.label)
        better = "fine-tune better"
        recall_up = (
            rec is not None and rec.ngram_overlap.verdict == better and rec.control_ngram_overlap.verdict != better
        )
        if fam.excess is not None:  # shuffled controls: word order, which domain learning also gives
            wording_up = fam.excess.verdict == better
            likelihood_up = wording_up and told == "members"
            familiar_only = wording_up and told is None
        else:  # held-out controls: a gain on the passages and not on the held-out text
            likelihood_up = fam.passages.verdict == better and (fam.controls is None or fam.controls.verdict != better)
            familiar_only = False
        recites = recall_up or likelihood_up
        kinds = {k.lower(): d for k, d in (pointwise or {}).get(fam.label, {}).items()}
        reasoning = kinds.get("reasoning")
        reasons = None if reasoning is None else reasoning.verdict == better
        if reasons:
            text = "reasons better"
        elif recites:
            text = "recites more, reasons no better" if reasons is not None else "recites more"
        elif told == "held-out":
            text = WRONG_WAY
        elif familiar_only:
            text = FAMILIAR_WORDING
        else:
            text = NO_SIGN_OF_RECITING
        evidence = [
            _fmt("log-likelihood on passages", fam.passages, " nats/token"),
            _fmt(f"log-likelihood on {familiarity.control_kind} controls", fam.controls, " nats/token"),
        ]
        if fam.excess is not None:
            evidence.append(_fmt("log-likelihood gain beyond the shuffled control", fam.excess, " nats/token"))
        if rec is not None:
            evidence.append(_fmt(f"{recall.ngram}-gram recall of passages", rec.ngram_overlap))
            evidence.append(_fmt(f"{recall.ngram}-gram recall of controls", rec.control_ngram_overlap))
        evidence.extend(_fmt(f"pointwise {kind} score", diff) for kind, diff in sorted(kinds.items()))
        readings.append(
            Reading(label=fam.label, recites_more=recites, reasons_better=reasons, text=text, evidence=evidence)
        )
    return readings


def told_apart(report: MembershipReport) -> dict[str, Told]:
    """Per fine-tune, which side of the split a signal that counts finds more trained-on:
    the named training documents (``members``), the held-out ones (the split points the
    wrong way), or ``neither``."""
    confounded = bool(base_confounds(report.models))
    told: dict[str, Told] = {}
    for model in (m for m in report.models if not m.is_base):
        counted = counted_signals(model, confounded)
        wrong_way = any(a.result.ci is not None and a.result.ci.high < 0.5 for a in counted)
        told[model.label] = "members" if any(separates(a) for a in counted) else "held-out" if wrong_way else "neither"
    return told


def told_apart_of(probes: Mapping[str, Any]) -> dict[str, Told] | None:
    """:func:`told_apart` of the membership report kept with a pass's probes, if any."""
    kept = probes.get("membership")
    return told_apart(MembershipReport.model_validate(kept)) if kept else None
