"""The analyst's membership split: which corpus documents the fine-tune was trained on
and which were held out, kept in the project so the CLI and the GUI read the same one.

The split is kept as the globs the analyst gave (a later import that matches them joins
that side); it is checked against the corpus before it is stored, so a split that names
nothing, or a document on both sides, is refused in one line and never saved.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import ValidationError
from sqlalchemy import Engine
from sqlmodel import Session

from gtreview.core.errors import UserError
from gtreview.runs.membership import MembershipReport, MembershipSplit, SplitError, resolve_split
from gtreview.store.corpus_repo import load_documents
from gtreview.store.db import reading, unit_of_work
from gtreview.store.settings_repo import MEMBERSHIP_SPLIT, get_setting, set_setting

__all__ = [
    "MembershipReport",
    "MembershipSplit",
    "MembershipSplitError",
    "mark_membership_split",
    "resolve_membership_split",
    "stored_membership_split",
]


class MembershipSplitError(UserError):
    """A membership split that cannot be used: a glob that matches no document, a
    document on both sides, a side missing or without passages."""


def _split(members: Sequence[str], held_out: Sequence[str]) -> MembershipSplit:
    members = [m.strip() for m in members if m.strip()]
    held_out = [h.strip() for h in held_out if h.strip()]
    if not members or not held_out:
        raise MembershipSplitError(
            "a membership split needs both sides: --members GLOB... (trained on) and --held-out GLOB..."
        )
    return MembershipSplit(members=members, held_out=held_out)


def resolve_membership_split(engine: Engine, split: MembershipSplit) -> tuple[list[str], list[str]]:
    """The member and held-out document names the split's globs match in this corpus."""
    with reading(engine) as session:
        return _resolve(session, split)


def _resolve(session: Session, split: MembershipSplit) -> tuple[list[str], list[str]]:
    try:
        return resolve_split(load_documents(session), split)
    except SplitError as exc:
        raise MembershipSplitError(str(exc)) from None


def mark_membership_split(engine: Engine, members: Sequence[str], held_out: Sequence[str]) -> MembershipSplit:
    """Check the split against the corpus and keep it as the project's (replacing any),
    in one transaction: the corpus it was checked against is the one it is kept for."""
    split = _split(members, held_out)
    with unit_of_work(engine) as tx:
        _resolve(tx, split)
        set_setting(tx, MEMBERSHIP_SPLIT, split.model_dump(mode="json"))
    return split


def stored_membership_split(engine: Engine) -> MembershipSplit | None:
    """The split last marked in this project, or None (also for one no longer readable)."""
    with reading(engine) as session:
        value = get_setting(session, MEMBERSHIP_SPLIT)
    if not isinstance(value, dict):
        return None
    try:
        return MembershipSplit.model_validate(value)
    except ValidationError:
        return None
