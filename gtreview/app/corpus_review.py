"""The corpus view's use cases: the exploration report and the expert's synonym table."""

from __future__ import annotations

from sqlalchemy import Engine

from gtreview.corpus.inventory import CorpusInventory, build_inventory
from gtreview.store.corpus_repo import load_documents
from gtreview.store.settings_repo import get_setting, set_setting

CONFIRMED_SYNONYMS = "confirmed_synonyms"


def inventory_with_confirmations(engine: Engine) -> CorpusInventory:
    """The inventory of the project's corpus, with the expert's earlier confirmations applied."""
    inventory = build_inventory(load_documents(engine))
    confirmed = set(confirmed_synonyms(engine))
    for cluster in inventory.variants:
        cluster.confirmed = cluster.canonical in confirmed
    return inventory


def confirmed_synonyms(engine: Engine) -> dict[str, list[str]]:
    value = get_setting(engine, CONFIRMED_SYNONYMS, {})
    return {str(k): [str(v) for v in vs] for k, vs in value.items()} if isinstance(value, dict) else {}


def set_synonym_confirmed(engine: Engine, canonical: str, variants: list[str], confirmed: bool) -> None:
    """Record the expert's decision on one proposed synonym family (kept in the project)."""
    table = confirmed_synonyms(engine)
    if confirmed:
        table[canonical] = sorted(set(variants))
    else:
        table.pop(canonical, None)
    set_setting(engine, CONFIRMED_SYNONYMS, table)
