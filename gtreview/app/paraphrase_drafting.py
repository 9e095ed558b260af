"""Drafting paraphrases of a set's questions with a drafting model: the use case the CLI
and the app share.

Which questions, and whether the model can be opened, are settled before it loads.
Each accepted rewording becomes a draft paraphrase (see :mod:`gtreview.app.paraphrases`)
whose ``x_provenance`` says which model drafted it, with which prompt; nothing is
approved. A question whose reply never passed the checks is reported, not dropped.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from pydantic import BaseModel, Field
from sqlalchemy import Engine

from gtreview.app.paraphrases import ParaphraseAdded, ParaphraseError, add_paraphrase
from gtreview.authoring.paraphrasing import ParaphraseDraft, ParaphraseSettings, draft_paraphrases
from gtreview.authoring.pricing import PriceTable
from gtreview.core.errors import UserError
from gtreview.core.review_flow import Refusal, ReviewAction, decide, is_active
from gtreview.inference.backend import CompletionBackend
from gtreview.inference.factory import open_backend as open_model
from gtreview.store import sets
from gtreview.store.db import reading


class ParaphraseDraftError(UserError, ValueError):
    """Paraphrase drafting cannot start as asked (no such question, a model that cannot be opened)."""


class ParaphraseDraftOutcome(BaseModel):
    """What the run drafted and what was added to the set (``refused``: rewordings the
    set would not take, with why)."""

    draft: ParaphraseDraft
    added: list[ParaphraseAdded] = Field(default_factory=list)
    refused: list[str] = Field(default_factory=list)

    @property
    def complete(self) -> bool:
        return not self.draft.failures and not self.refused and not self.draft.cancelled


def originals_to_paraphrase(engine: Engine, set_id: int, qids: list[str] | None) -> list[dict[str, object]]:
    """The questions named (each an active original of the set), or every active original."""
    with reading(engine) as session:
        contents = sets.current_contents(session, set_id)
    active = {s.qid: c for s, c in contents if is_active(s.review_status)}
    every = {s.qid: s.review_status for s, _ in contents}
    if not qids:
        chosen = [c for c in active.values() if c.get("paraphrase_of") is None]
        if not chosen:
            raise ParaphraseDraftError(f"set {set_id} has no active original question to paraphrase")
        return chosen
    for qid in qids:
        if qid not in every:
            raise ParaphraseDraftError(f"the set has no question {qid}")
        refused = decide(every[qid], ReviewAction.PARAPHRASE, qid=qid)
        if isinstance(refused, Refusal):
            raise ParaphraseDraftError(refused.message)
        if active[qid].get("paraphrase_of") is not None:
            raise ParaphraseDraftError(f"{qid} is itself a paraphrase of {active[qid]['paraphrase_of']}")
    return [active[qid] for qid in dict.fromkeys(qids)]


def draft_set_paraphrases(
    engine: Engine,
    set_id: int,
    model: str,
    *,
    per_question: int,
    actor: str,
    qids: list[str] | None = None,
    prices: PriceTable | None = None,
    settings: ParaphraseSettings | None = None,
    progress: Callable[[int, int], None] | None = None,
    cancel: threading.Event | None = None,
    open_backend: Callable[[str], CompletionBackend] = open_model,
) -> ParaphraseDraftOutcome:
    """Draft ``per_question`` paraphrases of each chosen question with ``model`` and add
    each as a draft paraphrase. A cancelled run adds what was accepted before it stopped."""
    questions = originals_to_paraphrase(engine, set_id, qids)  # refused before the model loads
    try:
        backend = open_backend(model)
    except (ValueError, OSError) as exc:  # ModelSpecError and BackendOpenError are ValueErrors
        raise ParaphraseDraftError(f"model {model}: {exc}") from None
    try:
        draft = draft_paraphrases(
            backend,
            questions,
            per_question=per_question,
            settings=settings,
            prices=prices,
            cancel=cancel,
            progress=progress,
        )
    finally:
        backend.close()
    outcome = ParaphraseDraftOutcome(draft=draft)
    for drafted in draft.drafted:
        for paraphrase in drafted.paraphrases:
            provenance = {
                "drafted_by": draft.model,
                "backend": draft.backend,
                "template": draft.template,
                "template_sha256": draft.template_sha256,
                "attempts": drafted.attempts,
                "changes": paraphrase.changes,
            }
            try:
                outcome.added.append(
                    add_paraphrase(
                        engine, set_id, drafted.qid, paraphrase.question, author=actor, provenance=provenance
                    )
                )
            except ParaphraseError as exc:  # the set changed meanwhile (the original retired, reworded)
                outcome.refused.append(f"{drafted.qid}: {exc}")
    return outcome
