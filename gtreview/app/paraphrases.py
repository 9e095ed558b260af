"""Paraphrased variants of a question: adding one, and keeping its rubric in step.

A paraphrase lands as a draft question of its own, next to its original, with the
original's rubric copied whole; it is reviewed, approved and signed off like any other
question. When the original's rubric is edited afterwards the paraphrase says so (a
``paraphrase-rubric-stale`` finding) and :func:`update_from_original` brings it up to
date, keeping its wording.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from sqlalchemy import Engine

from gtreview.app.editing import save_content
from gtreview.core.changes import OpChanges
from gtreview.core.errors import UserError
from gtreview.core.findings import Finding
from gtreview.core.paraphrases import brought_up_to_date, new_paraphrase, next_paraphrase_id, same_wording
from gtreview.core.review_flow import Refusal, ReviewAction, ReviewStatus, decide
from gtreview.core.validation import validate_question
from gtreview.store import sets
from gtreview.store.db import reading, unit_of_work


class ParaphraseError(UserError, ValueError):
    """A paraphrase that cannot be added or updated as asked (one line); nothing was written."""


class ParaphraseAdded(BaseModel):
    set_id: int
    qid: str
    original: str
    findings: list[Finding]

    @property
    def changes(self) -> OpChanges:
        return OpChanges(sets=frozenset({self.set_id}))


class ParaphraseUpdate(BaseModel):
    """What bringing a paraphrase up to date did: its version after, and whether it changed."""

    set_id: int
    qid: str
    original: str
    version: int
    changed: bool
    withdrawn: ReviewStatus | None = None  # the status the new version took away (an approval)
    findings: list[Finding]

    @property
    def changes(self) -> OpChanges:
        return OpChanges.of_questions(self.set_id, self.qid)


def _status_of(engine: Engine, set_id: int, qid: str) -> ReviewStatus | None:
    with reading(engine) as session:
        return next((s.review_status for s in sets.list_questions(session, set_id) if s.qid == qid), None)


def paraphrase_content(
    current: list[tuple[str, dict[str, Any]]], original_id: str, wording: str, provenance: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The new paraphrase of ``original_id`` among the set's ``current`` (id, content) pairs;
    refused in one line when the original is unknown or a paraphrase, or the wording its own."""
    contents = dict(current)
    original = contents.get(original_id)
    if original is None:
        raise ParaphraseError(f"the set has no question {original_id}")
    if original.get("paraphrase_of") is not None:
        raise ParaphraseError(
            f"{original_id} is itself a paraphrase of {original.get('paraphrase_of')}; paraphrase the original"
        )
    if not wording.strip():
        raise ParaphraseError("the paraphrase's wording is empty")
    if same_wording(wording, str(original.get("question") or "")):
        raise ParaphraseError(
            f"the wording is {original_id}'s own (ignoring case, spacing and punctuation); reword the question"
        )
    content = new_paraphrase(original, next_paraphrase_id(original_id, contents), wording.strip())
    if provenance:
        content["x_provenance"] = provenance
    return content


def add_paraphrase(
    engine: Engine,
    set_id: int,
    original_id: str,
    wording: str,
    *,
    author: str,
    provenance: dict[str, Any] | None = None,
) -> ParaphraseAdded:
    """Add a draft paraphrase of ``original_id`` worded as ``wording``, placed after the
    original and its other paraphrases. ``provenance`` (who or what drafted it) is kept
    with the question in ``x_provenance``."""
    status = _status_of(engine, set_id, original_id)
    refused = decide(status, ReviewAction.PARAPHRASE, qid=original_id) if status is not None else None
    if isinstance(refused, Refusal):
        raise ParaphraseError(refused.message)
    drafted = (provenance or {}).get("drafted_by")
    comment = f"paraphrase of {original_id}" + (f", drafted by {drafted}" if drafted else "")
    try:
        with unit_of_work(engine) as tx:
            qid = sets.add_question(
                tx,
                set_id,
                lambda current: paraphrase_content(current, original_id, wording, provenance),
                after=lambda qid, data: qid == original_id or data.get("paraphrase_of") == original_id,
                author=author,
                comment=comment,
            )
    except KeyError:
        raise ParaphraseError(f"the project has no set {set_id}") from None
    with reading(engine) as session:
        content = sets.load_question(session, set_id, qid).to_json_dict()
    return ParaphraseAdded(set_id=set_id, qid=qid, original=original_id, findings=validate_question(content))


def update_from_original(
    engine: Engine, set_id: int, qid: str, *, author: str, base_version: int | None = None
) -> ParaphraseUpdate:
    """Give the paraphrase ``qid`` its original's current rubric, keeping its wording (a
    new version, which withdraws an approval like any edit; none when already in step)."""
    try:
        with reading(engine) as session:
            version, paraphrase = sets.load_current(session, set_id, qid)
    except KeyError:
        raise ParaphraseError(f"the set has no question {qid}") from None
    original_id = paraphrase.paraphrase_of
    if original_id is None:
        raise ParaphraseError(f"{qid} is not a paraphrase; only a paraphrase is brought up to date from its original")
    try:
        with reading(engine) as session:
            original = sets.load_question(session, set_id, original_id).to_json_dict()
    except KeyError:
        raise ParaphraseError(f"{qid} is a paraphrase of {original_id}, which the set does not have") from None
    if original.get("paraphrase_of") is not None:
        raise ParaphraseError(f"{qid} names {original_id}, itself a paraphrase; name the original question first")
    updated = brought_up_to_date(paraphrase.to_json_dict(), original)
    saved = save_content(
        engine,
        set_id,
        qid,
        updated,
        author=author,
        comment=f"rubric brought up to date from {original_id}",
        base_version=version if base_version is None else base_version,
    )
    return ParaphraseUpdate(
        set_id=set_id,
        qid=qid,
        original=original_id,
        version=saved.version,
        changed=saved.version != version,
        withdrawn=saved.withdrawn,
        findings=saved.findings,
    )


class ParaphraseSource(BaseModel):
    """What the "New paraphrase" dialog starts from: the question, its wording and what it rewords."""

    qid: str
    wording: str
    paraphrase_of: str | None = None


def paraphrase_source(engine: Engine, set_id: int, qid: str) -> ParaphraseSource:
    try:
        with reading(engine) as session:
            question = sets.load_question(session, set_id, qid)
    except KeyError:
        raise ParaphraseError(f"the set has no question {qid}") from None
    return ParaphraseSource(qid=qid, wording=question.question or "", paraphrase_of=question.paraphrase_of)
