"""Membership tests: were these corpus documents in the fine-tune's training data?

The analyst says which documents the fine-tune was trained on and which were held out;
every model scores passages of both, and each membership signal of
:mod:`gtreview.core.stats.membership` (loss, zlib-normalised loss, Min-K%, Min-K%++, and
with the base as reference the reference ratio and the hard-token gain) is read as an AUC
on that very split, with a stratified bootstrap interval, and as the published attacks
report it: the true-positive rate at 1% and 10% false-positive rate, and the ROC curve.
A signal whose interval clears 1/2 separates
trained-on from held-out text *on this run*; one whose interval covers 1/2 says nothing
about memorisation here, however large its raw values look.

The base model is the control: it never saw the fine-tune's data, so its own AUCs
should be near 1/2. When the base separates the split too, the two sides differ in
kind (era, style, subject) and a fine-tune's loss-type AUCs overstate what it learnt;
the reference ratio, which subtracts the base's loss per passage, is the signal built
to see through that (Carlini et al. 2021; Mireshghallah et al. 2022).

Passages are the units of the AUC (as in the published attacks), but documents are the
units of its interval: passages of one document are not independent, so the bootstrap
resamples each side's documents with all their passages. A side with fewer than two
documents gets no interval, rather than a falsely narrow one from its passages.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence
from fnmatch import fnmatchcase
from pathlib import PurePosixPath
from typing import Literal

import numpy as np
from pydantic import BaseModel, Field

from gtreview.core.corpus import ParsedDocument
from gtreview.core.stats import (
    MEMBER_SIDE,
    AucResult,
    Signal,
    StatInputError,
    StatModel,
    TprAtFpr,
    hard_token_gain,
    loss,
    membership_auc,
    min_k,
    min_k_plus,
    reference_ratio,
    roc_curve,
    tpr_at_fpr,
    zlib_loss,
)
from gtreview.core.wording import plural
from gtreview.inference.backend import TokenScores

Side = Literal["member", "held-out"]
K = 0.2  # Min-K% and Min-K%++ over the lowest 20% of tokens, as both papers recommend

SIGNAL_NAMES: dict[Signal, str] = {
    "loss": "Loss",
    "zlib": "zlib-normalised loss",
    "min_k": "Min-K% (k=20%)",
    "min_k_plus": "Min-K%++ (k=20%)",
    "reference": "Reference ratio (fine-tune minus base loss)",
    "hard_token": "Hard-token gain (HT-MIA, k=20%)",
}
BASE_SIGNALS: tuple[Signal, ...] = ("loss", "zlib", "min_k", "min_k_plus")  # no reference for the reference
RELATIVE_SIGNALS: tuple[Signal, ...] = ("reference", "hard_token")  # read against the base, passage by passage
FINETUNE_SIGNALS: tuple[Signal, ...] = (*BASE_SIGNALS, *RELATIVE_SIGNALS)
# The signals a reading may rest on. The hard-token gain is reported beside them but not
# counted: on the known-answer fixtures (a SmolLM2 memoriser and its LoRA,
# benchmarks/README.md) it separated the memoriser less well than the reference ratio
# (AUC 0.97 and 0.94 against 0.996 and 0.99; TPR at no held-out passage flagged 63% and
# 44% against 94% and 81%), and taking the best of more signals only adds false claims.
VERDICT_SIGNALS: tuple[Signal, ...] = (*BASE_SIGNALS, "reference")
FPR_TARGETS = (0.01, 0.10)  # the false-positive rates the published attacks report TPR at
ROC_DIGITS = 4  # the ROC's corners are kept to draw: four decimals are finer than any screen or page


class MembershipSplit(BaseModel):
    """The analyst's split as given: globs over corpus document names (a glob matches a
    document's whole name or its file name), kept as a project setting."""

    members: list[str] = Field(min_length=1)
    held_out: list[str] = Field(min_length=1)


class SplitError(ValueError):
    """A split that cannot be used as given (the app turns it into a one-line error)."""


def matches(pattern: str, name: str) -> bool:
    return fnmatchcase(name, pattern) or fnmatchcase(PurePosixPath(name).name, pattern)


def resolve_split(documents: Sequence[ParsedDocument], split: MembershipSplit) -> tuple[list[str], list[str]]:
    """The member and held-out document names, in corpus order.

    Every glob must match a document (a typo would otherwise silently shrink a side),
    and no document may be on both sides.
    """
    names = [d.name for d in documents]
    sides: list[list[str]] = []
    for option, patterns in (("--members", split.members), ("--held-out", split.held_out)):
        for pattern in patterns:
            if not any(matches(pattern, name) for name in names):
                raise SplitError(f"{option} {pattern!r} matches no corpus document")
        sides.append([name for name in names if any(matches(p, name) for p in patterns)])
    both = sorted(set(sides[0]) & set(sides[1]))
    if both:
        raise SplitError(f"{both[0]} is marked both as a training document and as held out")
    return sides[0], sides[1]


class SplitPassage(BaseModel):
    document: str
    side: Side
    text: str


def split_passages(
    documents: Sequence[ParsedDocument],
    members: Sequence[str],
    held_out: Sequence[str],
    n_per_side: int,
    *,
    seed: int = 0,
    min_words: int = 30,
) -> list[SplitPassage]:
    """Up to ``n_per_side`` passages of ``min_words``+ words from each side, drawn
    reproducibly (members first, then held-out)."""
    by_name = {d.name: d for d in documents}
    passages: list[SplitPassage] = []
    for side, names in (("member", members), ("held-out", held_out)):
        pool = [(n, p.text) for n in names for p in by_name[n].passages if len(p.text.split()) >= min_words]
        picked = (
            pool
            if n_per_side >= len(pool)
            else [pool[i] for i in sorted(random.Random(seed).sample(range(len(pool)), n_per_side))]
        )
        passages.extend(SplitPassage(document=name, side=side, text=text) for name, text in picked)
    return passages


# -- signals ---------------------------------------------------------------------


class PassageSignals(StatModel):
    """One passage's signals under one model; None where a signal cannot be computed
    (no scored token, no moments from the backend)."""

    document: str
    side: Side
    n_tokens: int
    values: dict[Signal, float | None]


class SignalAuc(StatModel):
    signal: Signal
    name: str
    member_side: Literal["low", "high"]
    result: AucResult
    reading: str
    # TPR at each of FPR_TARGETS, and the ROC's corners (FPR, TPR); empty in reports kept before them
    tpr_at_fpr: list[TprAtFpr] = Field(default_factory=list)
    roc: list[tuple[float, float]] = Field(default_factory=list)


class ModelMembership(StatModel):
    label: str
    is_base: bool
    aucs: list[SignalAuc]
    passages: list[PassageSignals]


class MembershipReport(StatModel):
    k: float
    n_members: int  # passages
    n_held_out: int
    member_documents: list[str]
    held_out_documents: list[str]
    base: str
    models: list[ModelMembership]
    readings: list[str]


def _safe(compute: Callable[[], float]) -> float | None:
    """The signal, or None where the scores cannot give it (e.g. a zero variance)."""
    try:
        value = float(compute())
    except StatInputError:
        return None
    return value if math.isfinite(value) else None


def same_tokens(scores: TokenScores, reference: TokenScores) -> bool:
    """Whether both models scored the very same tokens (a LoRA or fine-tune of the base shares
    its tokenizer): only then can their log-probs be compared token by token."""
    return (
        scores.text_tokens == reference.text_tokens
        and scores.start == reference.start
        and len(scores.logprobs) == len(reference.logprobs)
    )


def passage_signals(
    scores: TokenScores, text: str, reference: TokenScores | None, *, k: float = K
) -> dict[Signal, float | None]:
    """Every signal of one passage; ``reference`` (the base's scores) gives the ratio and the
    hard-token gain (None when the two tokenized the passage differently)."""
    lp = scores.logprobs
    if not lp:
        return dict.fromkeys(FINETUNE_SIGNALS if reference is not None else BASE_SIGNALS)
    values: dict[Signal, float | None] = {
        "loss": _safe(lambda: loss(lp)),
        "zlib": _safe(lambda: zlib_loss(lp, text)),
        "min_k": _safe(lambda: min_k(lp, k)),
        "min_k_plus": None,
    }
    if scores.expected_logprobs is not None and scores.logprob_variances is not None:
        mu, var = scores.expected_logprobs, scores.logprob_variances
        values["min_k_plus"] = _safe(lambda: min_k_plus(lp, mu, var, k))
    if reference is not None:
        values["reference"] = _safe(lambda: reference_ratio(lp, reference.logprobs)) if reference.logprobs else None
        aligned = same_tokens(scores, reference)
        values["hard_token"] = _safe(lambda: hard_token_gain(lp, reference.logprobs, k)) if aligned else None
    return values


def auc_reading(name: str, result: AucResult) -> str:
    """One plain sentence: does this signal tell the trained-on documents from the held-out?"""
    if result.auc is None:
        return f"{name}: no AUC (a side has no passage with this signal)"
    figure = f"AUC {result.auc:.2f}"
    by_documents = result.resampled == "documents"
    if result.ci is None:
        if by_documents:
            fewest = min(result.n_member_documents or 0, result.n_non_member_documents or 0)
            why = f"a side has {plural(fewest, 'document')}, and an interval cannot be clustered by document below two"
            return f"{name}: {figure}, no interval: {why}"
        return f"{name}: {figure}, too few passages on a side for an interval"
    unit = ", resampling documents" if by_documents else ""
    figure += f" [{result.ci.low:.2f}, {result.ci.high:.2f}] ({result.ci.level:.0%} interval{unit})"
    if result.ci.low > 0.5:
        return f"{name} separates training from held-out documents: {figure}"
    if result.ci.high < 0.5:
        return f"{name} points the wrong way (held-out documents look more trained-on): {figure}"
    return f"{name} is no better than chance: {figure}"


def _aucs(rows: Sequence[PassageSignals], signals: Sequence[Signal], n_boot: int, seed: int) -> list[SignalAuc]:
    out = []
    for signal in signals:

        def column(side: Side, signal: Signal = signal) -> np.ndarray:
            values = [r.values.get(signal) for r in rows if r.side == side]
            return np.asarray([math.nan if v is None else v for v in values], dtype=np.float64)

        members, held_out, side = column("member"), column("held-out"), MEMBER_SIDE[signal]
        result = membership_auc(
            members,
            held_out,
            member_side=side,
            n_boot=n_boot,
            seed=seed,
            member_documents=[r.document for r in rows if r.side == "member"],
            non_member_documents=[r.document for r in rows if r.side == "held-out"],
        )
        name = SIGNAL_NAMES[signal]
        curve = roc_curve(members, held_out, member_side=side)
        out.append(
            SignalAuc(
                signal=signal,
                name=name,
                member_side=side,
                result=result,
                reading=auc_reading(name, result),
                tpr_at_fpr=[tpr_at_fpr(members, held_out, member_side=side, max_fpr=t) for t in FPR_TARGETS],
                roc=[(round(f, ROC_DIGITS), round(t, ROC_DIGITS)) for f, t in curve.points],
            )
        )
    return out


def separates(auc: SignalAuc) -> bool:
    ci = auc.result.ci
    return ci is not None and ci.low > 0.5


def _tells_apart(auc: SignalAuc) -> bool:
    """The interval excludes 1/2 on either side: the signal tells the two sides apart, in
    whichever direction (for the base, either direction says the sides differ in kind)."""
    ci = auc.result.ci
    return ci is not None and (ci.low > 0.5 or ci.high < 0.5)


def base_confounds(models: Sequence[ModelMembership]) -> list[SignalAuc]:
    """The base's signals that tell the split apart: the base was never trained on it, so
    those differences lie in the passages, and only the signals read against the base (the
    reference ratio, the hard-token gain) read a fine-tune."""
    base = next((m for m in models if m.is_base), None)
    return [a for a in base.aucs if _tells_apart(a)] if base is not None else []


def _strength(auc: SignalAuc) -> tuple[float, float]:
    """Order signals by the lower end of their interval, then by the AUC itself."""
    return (auc.result.ci.low if auc.result.ci is not None else -1.0, auc.result.auc or 0.0)


def counted_signals(model: ModelMembership, confounded: bool) -> list[SignalAuc]:
    """A fine-tune's signals with an AUC that a reading may rest on (``VERDICT_SIGNALS``):
    with a confounded split, only the reference ratio, read against the base."""
    return [
        a
        for a in model.aucs
        if a.result.auc is not None and a.signal in VERDICT_SIGNALS and (a.signal == "reference" or not confounded)
    ]


def strongest_signal(report: MembershipReport) -> Signal | None:
    """The signal the readings lean on: the fine-tunes' strongest that counts (the one to draw)."""
    confounded = bool(base_confounds(report.models))
    counted = [a for m in report.models if not m.is_base for a in counted_signals(m, confounded)]
    return max(counted, key=_strength).signal if counted else None


def _readings(models: Sequence[ModelMembership]) -> list[str]:
    """The base as control first, then each fine-tune's strongest signal."""
    base, finetunes = models[0], models[1:]
    lines = []
    confounded = base_confounds(models)
    if confounded:
        lines.append(
            f"The base model ({base.label}), never trained on this split, separates it too "
            f"({confounded[0].reading.split(': ', 1)[-1]} on {confounded[0].name}): the two sides differ in kind, "
            "so the fine-tunes' loss-type AUCs overstate memorisation; read the reference ratio"
        )
    for model in finetunes:
        # With a confounded split only the signals read against the base say anything of the fine-tune.
        known = counted_signals(model, bool(confounded))
        if not known:
            lines.append(f"{model.label}: no signal could be computed")
            continue
        best = max(known, key=_strength)
        verdict = (
            "tells its training documents from held-out ones"
            if separates(best)
            else "does not tell its training documents from held-out ones on this split"
        )
        which = "the signal that counts" if confounded else "strongest signal"
        lines.append(f"{model.label} {verdict}; {which}: {best.reading}")
    return lines


def membership_report(
    labels: Sequence[str],
    passages: Sequence[SplitPassage],
    scores: Mapping[str, Sequence[TokenScores]],
    *,
    k: float = K,
    n_boot: int = 2000,
    seed: int = 0,
) -> MembershipReport:
    """Signals and AUCs of every model from its scores of ``passages`` (the first label
    is the base, the reference of the others' ratio)."""
    if len(labels) < 1:
        raise ValueError("membership needs at least the base model")
    for label in labels:
        if len(scores[label]) != len(passages):
            raise ValueError(f"{label}: {len(scores[label])} scores for {len(passages)} passages")
    base_scores = scores[labels[0]]
    models = []
    for index, label in enumerate(labels):
        is_base = index == 0
        rows = [
            PassageSignals(
                document=p.document,
                side=p.side,
                n_tokens=len(s.logprobs),
                values=passage_signals(s, p.text, None if is_base else base_scores[i], k=k),
            )
            for i, (p, s) in enumerate(zip(passages, scores[label], strict=True))
        ]
        signals = BASE_SIGNALS if is_base else FINETUNE_SIGNALS
        models.append(
            ModelMembership(label=label, is_base=is_base, aucs=_aucs(rows, signals, n_boot, seed), passages=rows)
        )
    documents = {side: sorted({p.document for p in passages if p.side == side}) for side in ("member", "held-out")}
    return MembershipReport(
        k=k,
        n_members=sum(p.side == "member" for p in passages),
        n_held_out=sum(p.side == "held-out" for p in passages),
        member_documents=documents["member"],
        held_out_documents=documents["held-out"],
        base=labels[0],
        models=models,
        readings=_readings(models),
    )
