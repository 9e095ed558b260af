"""The verdict of a fine-tune's reading: what the evidence supports, and how strongly.

The rules are conservative: a claim is made only where an interval allows it, and a
reading never says more than its weakest necessary finding.

**A finding** is one interval read against its null (0 for a difference, 1/2 for an AUC):
``up`` when the interval lies wholly above the null, ``down`` wholly below, ``none`` when
it covers the null, ``undefined`` when there is no interval (too few units to resample),
``constant`` when the interval is the null with no width: every resample gave no change
(every score of both models at a floor or a ceiling, or the same for both on every
question), so nothing varied and the interval says nothing either way
(:meth:`Interval.no_variation_at`, the one test for that).

**Strength** of a finding that excludes its null: r is the distance of the interval's
bound nearest the null from the null, as a share of the estimate's distance from it.
r >= 1/2 is *strong*, r >= 1/4 *moderate*, anything less *weak*. For a 95% interval of a
roughly normal estimate these are z of about 3.9, 2.6 and 1.96, i.e. two-sided p below
about 0.0001, 0.01 and 0.05. The strength is then capped by the independent units behind
the finding (source documents for the score, documents per side for membership, pairs
for paraphrase): fewer than ``UNITS_FOR_STRONG`` at most moderate, fewer than
``UNITS_FOR_MODERATE`` at most weak.

**The verdict**, the first rule that applies:

1. *cannot tell*: fewer than ``MIN_QUESTIONS`` questions compared, or the score change has
   no interval, or it is ``constant`` (the scores do not vary, as when every counted answer
   of both models scored 0: "no measurable difference" would read a floor as evidence).
2. Memorisation evidence: the reference-ratio AUC's interval above 1/2, and/or the
   fine-tune's extra paraphrase drop (its drop less the base's) above 0. Learning
   evidence: the share of reasoning points rises (interval above 0) and the extra
   paraphrase drop is not above 0 (the paraphrase does not explain the gain).
3. *mixed*: learning and memorisation evidence together.
4. *learned the reasoning*: learning evidence and the score rises; strength the weaker of
   the two findings, at most moderate when no paraphrase drop could be read (memorised
   wording is then not ruled out).
5. *mixed*: learning evidence while the score does not rise.
6. *memorised*: memorisation evidence; strength the stronger of its findings (either
   suffices alone).
7. *mixed*: the score rises while the reasoning share falls.
8. *scores higher* / *scores lower*: the score change excludes 0; its strength.
9. *mixed*: the score within noise while facts and reasoning move apart.
10. *no measurable difference*: otherwise, which is not "no difference": the interval says
    how large a change is still possible.

A judge that is not gated (or whose gate was not checked) may be noise: a 135M judge
that cannot reproduce its calibration fixtures still yields intervals that exclude 0. So
without a gated judge no judged figure is read (the score, fact and reasoning shares and
the paraphrase drop are all judged scores), the verdict is provisional and its text says
so first, and only the evidence that does not rest on the judge decides:

* *memorised*: the reference-ratio AUC's interval above 1/2 (it compares the models'
  likelihoods of the corpus, no verdict involved); its strength;
* *cannot tell*: otherwise, for the reason rule 1 gives where it applies (the scores say
  nothing even when read), else naming the judge as the reason and what the membership
  test said, if one was kept.

Mixed, no measurable difference and cannot tell make no claim, so they carry no strength.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from gtreview.core.stats import Interval
from gtreview.core.wording import noun, plural

Side = Literal["up", "down", "none", "undefined", "constant"]
Strength = Literal["weak", "moderate", "strong"]
VerdictKind = Literal[
    "cannot tell",
    "mixed",
    "learned the reasoning",
    "memorised",
    "scores higher",
    "scores lower",
    "no measurable difference",
]

STRENGTHS: tuple[Strength, ...] = ("weak", "moderate", "strong")
MIN_QUESTIONS = 5  # below this a percentile bootstrap interval is not worth reading
UNITS_FOR_MODERATE = 5
UNITS_FOR_STRONG = 10
MODERATE_SHARE = 0.25  # of the estimate's distance from the null, kept by the nearest bound
STRONG_SHARE = 0.5


class Finding(BaseModel):
    side: Side
    strength: Strength | None = None  # only when the interval excludes the null
    figure: str = ""  # the estimate with its interval, as the verdict cites it


def strength_of(estimate: float, ci: Interval, null: float, units: int) -> Strength:
    """The rule of the module docstring, for an interval that excludes ``null``."""
    near = ci.low if ci.low > null else ci.high
    distance = abs(estimate - null)
    share = abs(near - null) / distance if distance > 0 else 1.0
    grade = 2 if share >= STRONG_SHARE else 1 if share >= MODERATE_SHARE else 0
    cap = 2 if units >= UNITS_FOR_STRONG else 1 if units >= UNITS_FOR_MODERATE else 0
    return STRENGTHS[min(grade, cap)]


def finding(estimate: float | None, ci: Interval | None, *, units: int, figure: str = "", null: float = 0.0) -> Finding:
    """Which side of ``null`` the interval lies on, and how strongly."""
    if estimate is None or ci is None:
        return Finding(side="undefined", figure=figure)
    if ci.no_variation_at(null):
        return Finding(side="constant", figure=figure)
    if ci.low > null:
        side: Side = "up"
    elif ci.high < null:
        side = "down"
    else:
        return Finding(side="none", figure=figure)
    return Finding(side=side, strength=strength_of(estimate, ci, null, units), figure=figure)


def weakest(*strengths: Strength | None) -> Strength | None:
    known = [STRENGTHS.index(s) for s in strengths if s is not None]
    return STRENGTHS[min(known)] if known else None


def strongest(*strengths: Strength | None) -> Strength | None:
    known = [STRENGTHS.index(s) for s in strengths if s is not None]
    return STRENGTHS[max(known)] if known else None


def agreeing(*findings: Finding) -> Finding:
    """One finding from several intervals of the same change (clustered and by question):
    a side only where every defined interval is on it, at the weakest strength; constant
    where any is (one that does not vary tells nothing, whatever the other says)."""
    defined = [f for f in findings if f.side != "undefined"]
    if not defined:
        return Finding(side="undefined", figure=findings[0].figure if findings else "")
    constant = next((f for f in defined if f.side == "constant"), None)
    if constant is not None:
        return constant
    sides = {f.side for f in defined}
    if len(sides) > 1:
        return Finding(side="none", figure=defined[0].figure)
    return Finding(side=defined[0].side, strength=weakest(*(f.strength for f in defined)), figure=defined[0].figure)


class Evidence(BaseModel):
    """What the verdict reads: one finding per question asked of the fine-tune."""

    label: str
    base: str
    n_questions: int  # compared: a counted answer from both models
    mean_finetune: float | None = None  # over the compared questions, points of 10: what a constant score says
    mean_base: float | None = None
    score: Finding
    facts: Finding
    reasoning: Finding
    membership: Finding | None  # the reference-ratio AUC; None: not measured
    paraphrase: Finding | None  # the extra drop under paraphrase; None: not measured
    judge_gated: bool | None  # None: the gate was not checked


class Verdict(BaseModel):
    kind: VerdictKind
    strength: Strength | None
    provisional: bool
    caveat: str  # "Provisional: ..." first when the judge is not gated; else empty
    claim: str  # what the evidence supports, and how strongly
    text: str  # the caveat, then the claim: the verdict as one sentence pair


def _up(found: Finding | None) -> bool:
    return found is not None and found.side == "up"


def _read(found: Finding | None) -> bool:
    """Measured, and with an interval to read (a test with too few units, or whose scores
    do not vary, is as good as none)."""
    return found is not None and found.side not in ("undefined", "constant")


def _evidence_word(strength: Strength | None) -> str:
    return f"{strength} evidence" if strength else "no claim"


def _clauses(e: Evidence) -> list[str]:
    """Every finding that excludes its null, in words, for the mixed and memorised texts."""
    moved = {"up": "rose", "down": "fell"}
    parts = []
    if e.score.side in moved:
        parts.append(f"its score {moved[e.score.side]} ({e.score.figure} points of 10)")
    else:
        parts.append(f"its score did not change measurably ({e.score.figure} points of 10)")
    for name, found in (("fact", e.facts), ("reasoning", e.reasoning)):
        if found.side in moved:
            parts.append(f"its share of {name} points {moved[found.side]} ({found.figure})")
    if e.membership is not None and e.membership.side == "up":
        parts.append(f"the reference-ratio AUC tells its training documents from held-out ones ({e.membership.figure})")
    if e.paraphrase is not None and e.paraphrase.side == "up":
        parts.append(f"it loses more than {e.base} when a question is paraphrased ({e.paraphrase.figure} points)")
    return parts


def _component(name: str, found: Finding) -> str:
    moved = {"up": "rose", "down": "fell"}.get(found.side, "did not move measurably")
    return f"its share of {name} points {moved} ({found.figure or 'no interval'})"


def _provisional(judge_gated: bool | None) -> str:
    why = "the judge gate was not checked for this pass" if judge_gated is None else "the judge is not gated"
    return (
        f"Provisional: {why}, so none of the judged figures is yet known to measure what the rubric asks, "
        "and none is read."
    )


def _without_judge(e: Evidence) -> tuple[VerdictKind, Strength | None, str]:
    """The verdict when the judge may be noise: only the membership test is read."""
    if e.membership is not None and e.membership.side == "up":
        return (
            "memorised",
            e.membership.strength,
            f"{e.label} shows memorisation ({_evidence_word(e.membership.strength)}): the reference-ratio AUC tells "
            f"its training documents from held-out ones ({e.membership.figure}), a test that does not rest on the "
            "judge; its scores are not read, so whether it also learned the reasoning cannot be told.",
        )
    scored = _rule(e)
    if scored[0] == "cannot tell":  # the scores say nothing even when read (too few, no interval, a floor)
        return scored
    why = "is not gated" if e.judge_gated is False else "was not checked against its gate"
    if e.membership is None:
        membership = "no membership test was kept with this pass to read without the judge"
    elif _read(e.membership):
        membership = (
            "the membership test, which does not rest on the judge, found no sign of memorisation, "
            "which does not rule it out"
        )
    else:
        membership = "the membership test kept with this pass has no reference-ratio interval to read"
    return (
        "cannot tell",
        None,
        f"Cannot tell whether {e.label} learned the reasoning or memorised: the score, fact, reasoning and "
        f"paraphrase findings rest on a judge that {why}, so none of them is read; {membership}.",
    )


def _memorisation_checked(e: Evidence) -> str:
    """What the memorisation tests said when none of them found anything."""
    run = [name for name, found in (("membership", e.membership), ("paraphrase", e.paraphrase)) if _read(found)]
    if not run:
        return "whether it learned or memorised is not measured (no membership test or paraphrase drop to read)"
    return f"the {' and '.join(run)} test{'s' if len(run) > 1 else ''} found no sign of memorisation, which does not rule it out"


FLOOR, CEILING = 0.0, 10.0  # points of 10


def _no_variation(e: Evidence) -> str:
    """Why the score change is constant, as plainly as the means allow."""
    both = (e.mean_finetune, e.mean_base)
    for bound, name in ((FLOOR, "a floor"), (CEILING, "a ceiling")):
        if all(mean is not None and abs(mean - bound) < 1e-9 for mean in both):
            return f"every counted answer of both {e.label} and {e.base} scored {bound:g} ({name})"
    return f"every compared question scores the same for both {e.label} and {e.base} ({e.score.figure} points of 10)"


def decide(e: Evidence) -> Verdict:
    """The first rule of the module docstring that applies, in words."""
    provisional = e.judge_gated is not True
    kind, strength, claim = _without_judge(e) if provisional else _rule(e)
    caveat = _provisional(e.judge_gated) if provisional else ""
    return Verdict(
        kind=kind,
        strength=strength,
        provisional=provisional,
        caveat=caveat,
        claim=claim,
        text=f"{caveat} {claim}" if caveat else claim,
    )


def _rule(e: Evidence) -> tuple[VerdictKind, Strength | None, str]:
    label, base = e.label, e.base
    if e.n_questions < MIN_QUESTIONS:
        return (
            "cannot tell",
            None,
            f"Cannot tell: only {plural(e.n_questions, 'question')} {noun(e.n_questions, 'has', 'have')} a counted answer from both {label} and {base} "
            f"({MIN_QUESTIONS} are needed for any reading).",
        )
    if e.score.side == "undefined":
        return ("cannot tell", None, f"Cannot tell: the score change of {label} over {base} has no interval.")
    if e.score.side == "constant":
        return (
            "cannot tell",
            None,
            f"Cannot tell: {_no_variation(e)}: the scores do not vary, so the interval says nothing.",
        )
    memorised = [f for f in (e.membership, e.paraphrase) if f is not None and f.side == "up"]
    learned = e.reasoning.side == "up" and not _up(e.paraphrase)
    mixed: tuple[VerdictKind, Strength | None, str] = (
        "mixed",
        None,
        f"Mixed evidence on {label}: "
        + "; ".join(_clauses(e))
        + ". These point different ways, so no single reading holds.",
    )
    if learned and memorised:
        return mixed
    if learned and e.score.side == "up":
        strength = weakest(e.score.strength, e.reasoning.strength)
        if e.paraphrase is None or not _read(e.paraphrase):
            strength = weakest(strength, "moderate")
            paraphrase = "; no paraphrase drop could be read, so memorised wording is not ruled out"
        else:
            paraphrase = (
                f", and a paraphrase does not take the gain away (extra drop {e.paraphrase.figure} points, not above 0)"
            )
        return (
            "learned the reasoning",
            strength,
            f"{label} learned the reasoning ({_evidence_word(strength)}): it scores higher than {base} "
            f"({e.score.figure} points of 10) and earns a larger share of the reasoning points ({e.reasoning.figure})"
            f"{paraphrase}.",
        )
    if learned or (e.score.side == "up" and e.reasoning.side == "down"):
        return mixed
    if memorised:
        strength = strongest(*(f.strength for f in memorised))
        return (
            "memorised",
            strength,
            f"{label} shows memorisation ({_evidence_word(strength)}): " + "; ".join(_clauses(e)) + ".",
        )
    if e.score.side in ("up", "down"):
        higher = e.score.side == "up"
        if e.facts.side in ("up", "down") or e.reasoning.side in ("up", "down"):
            where = f"{_component('fact', e.facts)}, {_component('reasoning', e.reasoning)}"
        else:
            where = "neither its share of fact points nor of reasoning points moved measurably, so the evidence does not say where the change lies"
        return (
            "scores higher" if higher else "scores lower",
            e.score.strength,
            f"{label} scores {'higher' if higher else 'lower'} than {base} ({_evidence_word(e.score.strength)}, "
            f"{e.score.figure} points of 10); {where}; {_memorisation_checked(e)}.",
        )
    if {e.facts.side, e.reasoning.side} == {"up", "down"}:
        return mixed
    return (
        "no measurable difference",
        None,
        f"No measurable difference between {label} and {base}: the score change {e.score.figure} points of 10 "
        "covers 0; changes beyond that interval are unlikely, smaller ones are not ruled out.",
    )
