"""The corpus view's use cases: the documents, the exploration report and the expert's
synonym table.

The inventory is always built with the expert's confirmations applied, so the corpus
view and ``gtreview corpus inventory`` show the same families as confirmed.
"""

from __future__ import annotations

from pydantic import BaseModel
from sqlalchemy import Engine
from sqlmodel import Session

from gtreview.core.changes import OpChanges
from gtreview.core.errors import UserError
from gtreview.corpus.inventory import CorpusInventory, build_inventory, inventory_to_markdown
from gtreview.store.corpus_repo import list_documents, load_documents
from gtreview.store.db import reading, unit_of_work
from gtreview.store.project import Project
from gtreview.store.settings_repo import get_setting, set_setting

CONFIRMED_SYNONYMS = "confirmed_synonyms"


class NoCorpusDocuments(UserError):
    """The project has no documents, so there is nothing to explore."""


class CorpusDocument(BaseModel):
    """One document of the project, as the corpus list shows it."""

    name: str
    title: str
    kind: str
    pages: int
    rows: int
    sha256: str


def corpus_documents(engine: Engine) -> list[CorpusDocument]:
    with reading(engine) as session:
        documents = list_documents(session)
    return [
        CorpusDocument(name=d.name, title=d.title, kind=d.kind, pages=d.page_count, rows=d.row_count, sha256=d.sha256)
        for d in documents
    ]


def inventory_with_confirmations(engine: Engine) -> CorpusInventory:
    """The inventory of the project's corpus, with the expert's earlier confirmations applied."""
    with reading(engine) as session:
        inventory = build_inventory(load_documents(session))
        confirmed = set(_confirmed(session))
    for cluster in inventory.variants:
        cluster.confirmed = cluster.canonical in confirmed
    return inventory


def corpus_inventory(project: Project, *, allow_empty: bool = False) -> CorpusInventory:
    """The inventory of ``project``; refused in one line (naming the folder) when it has
    no documents, unless ``allow_empty`` (a view that shows an empty report)."""
    inventory = inventory_with_confirmations(project.engine)
    if not inventory.documents and not allow_empty:
        raise NoCorpusDocuments(
            f"the project in {project.folder} has no corpus documents; add some with 'gtreview corpus import PATH'"
        )
    return inventory


def confirmed_synonyms(engine: Engine) -> dict[str, list[str]]:
    with reading(engine) as session:
        return _confirmed(session)


def _confirmed(session: Session) -> dict[str, list[str]]:
    value = get_setting(session, CONFIRMED_SYNONYMS, {})
    return {str(k): [str(v) for v in vs] for k, vs in value.items()} if isinstance(value, dict) else {}


def set_synonym_confirmed(engine: Engine, canonical: str, variants: list[str], confirmed: bool) -> OpChanges:
    """Record the expert's decision on one proposed synonym family (kept in the project;
    read and written in one transaction, so two decisions at once both stay)."""
    with unit_of_work(engine) as tx:
        table = _confirmed(tx)
        if confirmed:
            table[canonical] = sorted(set(variants))
        else:
            table.pop(canonical, None)
        set_setting(tx, CONFIRMED_SYNONYMS, table)
    return OpChanges(settings=frozenset({CONFIRMED_SYNONYMS}))


# The report as the corpus view and ``gtreview corpus inventory`` print it (Markdown), named
# here so that neither front-end reaches below the application layer for it.
__all__ = [
    "CONFIRMED_SYNONYMS",
    "CorpusDocument",
    "NoCorpusDocuments",
    "confirmed_synonyms",
    "corpus_documents",
    "corpus_inventory",
    "inventory_to_markdown",
    "inventory_with_confirmations",
    "set_synonym_confirmed",
]
