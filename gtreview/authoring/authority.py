"""The source-authority contract: which kind of source wins when sources disagree.

Groundtruth sets state, before any question is drafted, how far each class of source
is trusted (primary report text above OCR'd text above summaries, and so on). The
drafting model labels every claim with one of these classes, and the program (not the
model) settles recorded conflicts with it: a disagreement is resolved by authority
only when one value holds the highest rank on its own; co-equal or unranked sources
are kept side by side with attribution, because silently picking one would hide a
real uncertainty from the expert and the candidate.

The contract is an editable ranking stored with the set, written into the rubric's
``source_authority`` list in the shipped-sample shape ``{rank, source_class, detail,
note}``. Everything here is pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from gtreview.core.rubric import SourceAuthority


class SourceClass(BaseModel):
    """One rank of the contract. ``key`` is what drafted claims cite as their authority."""

    model_config = ConfigDict(frozen=True)

    key: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    label: str
    detail: str = ""
    note: str = ""


_DEFAULT_CLASSES = (
    SourceClass(
        key="primary_text",
        label="Primary report text",
        detail="Contemporary reports by people who saw or measured the thing at the time, read as clean text.",
        note="Prefer these where sources conflict, after checking their internal arithmetic.",
    ),
    SourceClass(
        key="primary_tables",
        label="Primary tables and logs",
        detail="Registers, assay sheets, drill and survey logs compiled at the time, cited by row key and column.",
        note="Check units and what a column measures (a battery yield is not a head grade).",
    ),
    SourceClass(
        key="ocr_text",
        label="OCR'd text",
        detail="Primary in origin but machine-read: expect misread figures, broken words and page furniture.",
        note="Read through the noise; confirm any figure that matters against another source.",
    ),
    SourceClass(
        key="human_summary",
        label="Human summaries",
        detail="Later summaries and compilations written by people from earlier records.",
        note="They propagate earlier figures, errors included; repetition is not independent confirmation.",
    ),
    SourceClass(
        key="generated",
        label="Generated summaries and file names",
        detail="Machine-generated summaries and descriptions, file names and folder names.",
        note="Never evidence on their own for numbers, names, orientations or units.",
    ),
)


class AuthorityContract(BaseModel):
    """Source classes from most to least authoritative (rank 1 first)."""

    model_config = ConfigDict(frozen=True)

    classes: tuple[SourceClass, ...]

    @model_validator(mode="after")
    def _keys_unique(self) -> AuthorityContract:
        if not self.classes:
            raise ValueError("a source-authority contract needs at least one source class")
        keys = [c.key for c in self.classes]
        if len(set(keys)) != len(keys):
            raise ValueError(f"source class keys must be unique (got {', '.join(keys)})")
        return self

    @property
    def keys(self) -> list[str]:
        return [c.key for c in self.classes]

    def rank_of(self, key: str) -> int | None:
        """1-based rank of a class key; None when the contract does not know it."""
        for rank, source_class in enumerate(self.classes, start=1):
            if source_class.key == key:
                return rank
        return None

    def get(self, key: str) -> SourceClass | None:
        rank = self.rank_of(key)
        return self.classes[rank - 1] if rank is not None else None

    def describe_rank(self, key: str) -> str:
        rank = self.rank_of(key)
        if rank is None:
            return f"'{key}' (not in the contract)"
        return f"rank {rank} ({self.classes[rank - 1].label})"


def default_contract() -> AuthorityContract:
    """The generic ranking; adapt it to the corpus (e.g. name the OCR'd files) before drafting."""
    return AuthorityContract(classes=_DEFAULT_CLASSES)


def reorder(contract: AuthorityContract, keys: Sequence[str]) -> AuthorityContract:
    """The same classes in a new order; ``keys`` must name every class exactly once."""
    if sorted(keys) != sorted(contract.keys):
        raise ValueError(f"a new order must list every class once: {', '.join(contract.keys)}")
    by_key = {c.key: c for c in contract.classes}
    return AuthorityContract(classes=tuple(by_key[k] for k in keys))


def with_class(contract: AuthorityContract, source_class: SourceClass, rank: int) -> AuthorityContract:
    """Insert (or move) a class to 1-based ``rank``; later classes move down."""
    others = [c for c in contract.classes if c.key != source_class.key]
    position = min(max(rank, 1), len(others) + 1) - 1
    return AuthorityContract(classes=(*others[:position], source_class, *others[position:]))


def without_class(contract: AuthorityContract, key: str) -> AuthorityContract:
    return AuthorityContract(classes=tuple(c for c in contract.classes if c.key != key))


def to_source_authority(contract: AuthorityContract) -> list[SourceAuthority]:
    """The rubric's ``source_authority`` items, shipped-sample shape, ranks 1..n."""
    return [
        SourceAuthority(rank=rank, source_class=c.label, detail=c.detail, note=c.note)
        for rank, c in enumerate(contract.classes, start=1)
    ]


def _slug(text: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "_", text.casefold()).strip("_")
    return slug if slug and slug[0].isalpha() else f"class_{slug}"


def from_source_authority(items: Iterable[SourceAuthority]) -> AuthorityContract:
    """A contract read back from a rubric header (either element shape), ordered by rank.

    Keys are derived from the labels (``Primary report text`` -> ``primary_report_text``)
    unless the label is one of the default classes, whose keys are kept.
    """
    defaults = {c.label.casefold(): c.key for c in _DEFAULT_CLASSES}
    ordered = sorted(enumerate(items), key=lambda pair: (pair[1].rank is None, pair[1].rank or 0, pair[0]))
    classes: list[SourceClass] = []
    seen: set[str] = set()
    for _, item in ordered:
        label = item.label or f"Class {len(classes) + 1}"
        key = defaults.get(label.casefold()) or _slug(label)
        while key in seen:
            key += "_"
        seen.add(key)
        detail = item.detail if item.detail is not None else ""
        note = " ".join(part for part in (item.note, item.notes) if part)
        classes.append(SourceClass(key=key, label=label, detail=detail, note=note))
    return AuthorityContract(classes=tuple(classes))


# -- conflicts ------------------------------------------------------------------------


class ConflictValue(BaseModel):
    """One source's value for a disputed subject, with where it says so."""

    model_config = ConfigDict(frozen=True)

    value: str
    source: str
    locator: str
    authority: str  # a SourceClass key


class Conflict(BaseModel):
    """Sources that disagree about one subject (a depth, a date, a count, a name)."""

    model_config = ConfigDict(frozen=True)

    subject: str
    values: tuple[ConflictValue, ...]


Outcome = Literal["resolved_by_authority", "kept_with_attribution"]


class ConflictResolution(BaseModel):
    """How a conflict is carried into the rubric; ``rule`` is the sentence to cite."""

    model_config = ConfigDict(frozen=True)

    subject: str
    outcome: Outcome
    value: str | None = None  # the authoritative value, when resolved
    chosen: ConflictValue | None = None
    rule: str
    values: tuple[ConflictValue, ...]


def _same(a: str, b: str) -> bool:
    return " ".join(a.casefold().split()) == " ".join(b.casefold().split())


def _distinct(values: Iterable[ConflictValue]) -> list[str]:
    out: list[str] = []
    for v in values:
        if not any(_same(v.value, seen) for seen in out):
            out.append(v.value)
    return out


def _where(v: ConflictValue) -> str:
    return f"'{v.value}' ({v.source}, {v.locator})"


def resolve_conflict(conflict: Conflict, contract: AuthorityContract) -> ConflictResolution:
    """Resolve by authority when one value alone holds the best rank; otherwise keep all.

    A value from a class the contract does not know cannot be ranked, so the conflict
    is kept with attribution rather than guessed at.
    """
    values = conflict.values
    common = {"subject": conflict.subject, "values": values}
    if len(_distinct(values)) <= 1:
        only = values[0] if values else None
        rule = "The sources agree; nothing to resolve."
        return ConflictResolution(
            outcome="resolved_by_authority", value=only.value if only else None, chosen=only, rule=rule, **common
        )
    unknown = sorted({v.authority for v in values if contract.rank_of(v.authority) is None})
    if unknown:
        rule = (
            f"Kept with attribution: {', '.join(unknown)} is not a class of the source-authority contract, "
            "so the sources cannot be ranked."
        )
        return ConflictResolution(outcome="kept_with_attribution", rule=rule, **common)
    best = min(contract.rank_of(v.authority) or 0 for v in values)
    top = [v for v in values if contract.rank_of(v.authority) == best]
    if len(_distinct(top)) > 1:
        listed = "; ".join(_where(v) for v in top)
        rule = (
            f"Kept with attribution: co-equal sources at {contract.describe_rank(top[0].authority)} disagree "
            f"({listed}); grade each attributed value as stated."
        )
        return ConflictResolution(outcome="kept_with_attribution", rule=rule, **common)
    chosen = top[0]
    beaten = [v for v in values if not _same(v.value, chosen.value)]
    outranked = ", ".join(f"{_where(v)} at {contract.describe_rank(v.authority)}" for v in beaten)
    rule = (
        f"Resolved by authority: {_where(chosen)} at {contract.describe_rank(chosen.authority)} outranks {outranked}."
    )
    return ConflictResolution(outcome="resolved_by_authority", value=chosen.value, chosen=chosen, rule=rule, **common)


def resolve_conflicts(conflicts: Iterable[Conflict], contract: AuthorityContract) -> list[ConflictResolution]:
    return [resolve_conflict(c, contract) for c in conflicts]
