"""Drafting a new set from the project's corpus: the use case the CLI and the app share.

The project keeps its source-authority contract (an editable ranking); drafts are
written into the set with it, so the expert sees which sources outrank which. The
drafted set lands with every question in status draft, flagged where a check failed;
nothing is approved. Everything that can be refused (no corpus, a bad model spec) is
refused before the drafting model is loaded.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel
from sqlalchemy import Engine
from sqlmodel import Session

from gtreview.authoring.authority import AuthorityContract as AuthorityContract  # re-exported: the front-ends show it
from gtreview.authoring.authority import default_contract, reorder
from gtreview.authoring.passages import SourcePassage, select_passages
from gtreview.authoring.pipeline import (
    DraftingCancelled as DraftingCancelled,  # re-exported: what drafting returns or raises
)
from gtreview.authoring.pipeline import DraftResult as DraftResult
from gtreview.authoring.pipeline import NothingToSaveError, draft_set, save_drafts
from gtreview.authoring.pricing import PriceTable, load_price_table
from gtreview.core.changes import OpChanges, OpResult
from gtreview.core.corpus import ParsedDocument
from gtreview.core.errors import UserError
from gtreview.inference.backend import CompletionBackend
from gtreview.inference.factory import open_backend as open_model
from gtreview.store.corpus_repo import load_documents
from gtreview.store.db import reading, unit_of_work
from gtreview.store.settings_repo import get_setting, set_setting

AUTHORITY_CONTRACT = "source_authority_contract"
DraftProgress = Callable[[str, int, int], None]


class DraftSetupError(UserError, ValueError):
    """Drafting cannot start as asked (no corpus to draft from, a model that cannot be opened).

    Also a ValueError, which is what :func:`drafting_corpus` raised before it had a class.
    """


class DraftOutcome(BaseModel):
    """What one drafting run did: the drafts (with failures, usage and cost) and the new set.

    ``set_id`` is None when nothing was saved: the run was cancelled
    (``result.cancelled``) or no question survived.
    """

    result: DraftResult
    set_id: int | None
    requested: int

    @property
    def changes(self) -> OpChanges:
        """The new set, when one was saved."""
        return OpChanges(sets=frozenset({self.set_id})) if self.set_id is not None else OpChanges()

    @property
    def complete(self) -> bool:
        """Every stage item succeeded and the set was saved."""
        return self.set_id is not None and not self.result.failures


def project_contract(engine: Engine) -> AuthorityContract:
    with reading(engine) as session:
        return _contract(session)


def _contract(session: Session) -> AuthorityContract:
    stored = get_setting(session, AUTHORITY_CONTRACT)
    return AuthorityContract.model_validate(stored) if stored else default_contract()


def set_contract_order(engine: Engine, keys: list[str]) -> OpResult[AuthorityContract]:
    """Re-rank the project's source classes (highest authority first) and keep it (read
    and written in one transaction)."""
    with unit_of_work(engine) as tx:
        contract = reorder(_contract(tx), keys)
        set_setting(tx, AUTHORITY_CONTRACT, contract.model_dump(mode="json"))
    return OpResult(contract, OpChanges(settings=frozenset({AUTHORITY_CONTRACT})))


def read_prices(path: Path | None) -> PriceTable:
    """A JSON price table (USD per Mtok) over the defaults; none named: the defaults."""
    return load_price_table(path) if path is not None else PriceTable()


def drafting_corpus(engine: Engine, context_chars: int) -> tuple[list[ParsedDocument], list[SourcePassage]]:
    """The project's documents and the passages a draft is shown; checked before any model is loaded."""
    with reading(engine) as session:
        documents = load_documents(session)
    if not documents:
        raise DraftSetupError("the project has no corpus documents; import some first")
    passages = select_passages(documents, max_chars=context_chars)
    if not passages:
        raise DraftSetupError("the corpus documents have no text or keyed rows to draft from")
    return documents, passages


def draft_from_project(
    engine: Engine,
    backend: CompletionBackend,
    *,
    n_questions: int,
    access_mode: str = "OPEN_CORPUS",
    context_chars: int = 60_000,
    prices: PriceTable | None = None,
    progress: DraftProgress | None = None,
    cancel: threading.Event | None = None,
) -> DraftResult:
    """Draft ``n_questions`` from a spread of the corpus with an open ``backend``; nothing is saved."""
    documents, passages = drafting_corpus(engine, context_chars)
    return draft_set(
        backend,
        documents,
        passages,
        n_questions=n_questions,
        access_mode=access_mode,
        authority=project_contract(engine),
        progress=progress,
        cancel=cancel,
        prices=prices or PriceTable(),
    )


def default_set_name() -> str:
    return f"Draft set {datetime.now(UTC).date().isoformat()}"


def draft_new_set(
    engine: Engine,
    model: str,
    *,
    n_questions: int,
    actor: str,
    name: str | None = None,
    access_mode: str = "OPEN_CORPUS",
    context_chars: int = 60_000,
    prices: PriceTable | None = None,
    progress: DraftProgress | None = None,
    cancel: threading.Event | None = None,
    open_backend: Callable[[str], CompletionBackend] = open_model,
) -> DraftOutcome:
    """Draft with the model ``model`` names and save the drafts as a new set.

    A cancelled run saves nothing and says so (``result.cancelled``); a run in which no
    question survived saves nothing either. Both come back as an outcome, not an
    error, so the caller can still show what was tried and what it cost.
    """
    drafting_corpus(engine, context_chars)  # refuse before the model loads
    try:
        backend = open_backend(model)
    except (ValueError, OSError) as exc:  # ModelSpecError and BackendOpenError are ValueErrors
        raise DraftSetupError(f"model {model}: {exc}") from None
    try:
        result = draft_from_project(
            engine,
            backend,
            n_questions=n_questions,
            access_mode=access_mode,
            context_chars=context_chars,
            prices=prices,
            progress=progress,
            cancel=cancel,
        )
    except DraftingCancelled as exc:
        return DraftOutcome(result=exc.result, set_id=None, requested=n_questions)
    except UserError:
        raise
    except ValueError as exc:  # a request draft_set refuses (an access mode, a count)
        raise DraftSetupError(str(exc)) from None
    finally:
        backend.close()
    try:
        set_id: int | None = save_drafts(engine, result, set_name=name or default_set_name(), actor=actor)
    except NothingToSaveError:
        set_id = None
    return DraftOutcome(result=result, set_id=set_id, requested=n_questions)
