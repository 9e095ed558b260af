"""Drafting a new set from the project's corpus: the use case the CLI and the app share.

The project keeps its source-authority contract (an editable ranking); drafts are
written into the set with it, so the expert sees which sources outrank which.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from sqlalchemy import Engine

from gtreview.authoring.authority import AuthorityContract, default_contract, reorder
from gtreview.authoring.passages import SourcePassage, select_passages
from gtreview.authoring.pipeline import DraftResult, draft_set
from gtreview.authoring.pricing import PriceTable
from gtreview.core.corpus import ParsedDocument
from gtreview.inference.backend import CompletionBackend
from gtreview.store.corpus_repo import load_documents
from gtreview.store.settings_repo import get_setting, set_setting

AUTHORITY_CONTRACT = "source_authority_contract"


def project_contract(engine: Engine) -> AuthorityContract:
    stored = get_setting(engine, AUTHORITY_CONTRACT)
    return AuthorityContract.model_validate(stored) if stored else default_contract()


def set_contract_order(engine: Engine, keys: list[str]) -> AuthorityContract:
    """Re-rank the project's source classes (highest authority first) and keep it."""
    contract = reorder(project_contract(engine), keys)
    set_setting(engine, AUTHORITY_CONTRACT, contract.model_dump(mode="json"))
    return contract


def drafting_corpus(engine: Engine, context_chars: int) -> tuple[list[ParsedDocument], list[SourcePassage]]:
    """The project's documents and the passages a draft is shown; checked before any model is loaded."""
    documents = load_documents(engine)
    if not documents:
        raise ValueError("the project has no corpus documents; import some first")
    passages = select_passages(documents, max_chars=context_chars)
    if not passages:
        raise ValueError("the corpus documents have no text or keyed rows to draft from")
    return documents, passages


def draft_from_project(
    engine: Engine,
    backend: CompletionBackend,
    *,
    n_questions: int,
    access_mode: str = "OPEN_CORPUS",
    context_chars: int = 60_000,
    prices: PriceTable | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    cancel: threading.Event | None = None,
) -> DraftResult:
    """Draft ``n_questions`` from a spread of the corpus; ValueError (one line) when there is nothing to draft from."""
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
