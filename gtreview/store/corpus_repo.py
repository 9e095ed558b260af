"""Persisting parsed corpus documents and reading them back for locator resolution."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from typing import TypeVar

from pydantic import BaseModel, Field
from sqlalchemy import Engine, insert
from sqlmodel import Session, col, select

from gtreview.core import corpus as model
from gtreview.core.errors import UserError
from gtreview.store import tables
from gtreview.store.db import write_session


class DocumentConflictError(UserError, ValueError):
    """An import that was refused as a whole; the message is one line."""


class CorpusImportReport(BaseModel):
    added: list[str] = Field(default_factory=list)
    unchanged: list[str] = Field(default_factory=list)


# The most child rows (pages, passages, table rows) one import transaction writes, so the
# write lock is held for a fraction of a second and a concurrent save, pass or import
# waits briefly instead of timing out. A document is never split: one larger than this
# is a transaction of its own.
BATCH_ROWS = 20_000


def import_documents(
    engine: Engine, documents: Sequence[model.ParsedDocument], *, batch_rows: int = BATCH_ROWS
) -> CorpusImportReport:
    """Store ``documents``, each whole, in short transactions of about ``batch_rows`` rows.

    A document whose bytes are already in the project (same sha256) is skipped, so
    importing the same files again changes nothing, and two imports of one corpus at once
    give one copy of each document (each batch looks again, under the write lock, for
    what another import has stored meanwhile). A different file under a name already
    taken is refused, before anything is written, rather than silently replacing what
    locators point at. A killed import leaves whole documents only; rerunning it stores
    the rest.
    """
    report = CorpusImportReport()
    with Session(engine) as session:
        known = {row.sha256: row.name for row in session.exec(select(tables.Document))}
    pending = _new_documents(documents, known, report)
    for batch in _batches(pending, batch_rows):
        added, unchanged = [], []
        with write_session(engine) as session:
            stored = {row.sha256: row.name for row in session.exec(select(tables.Document))}
            for document in batch:
                if document.sha256 in stored:  # another import stored it meanwhile
                    unchanged.append(document.name)
                elif document.name in stored.values():
                    raise DocumentConflictError(
                        f"{document.name}: another import stored a different file with this name meanwhile; "
                        f"{len(report.added)} documents were imported before it, the rest were not"
                    )
                else:
                    _add_document(session, document)
                    added.append(document.name)
            session.commit()
        report.added.extend(added)
        report.unchanged.extend(unchanged)
    return report


def _new_documents(
    documents: Sequence[model.ParsedDocument], known: dict[str, str], report: CorpusImportReport
) -> list[model.ParsedDocument]:
    """The documents not yet stored; a conflicting name refuses the whole import at once."""
    taken = set(known.values())
    seen_in_batch: set[str] = set()
    pending = []
    for document in documents:
        if document.sha256 in known or document.sha256 in seen_in_batch:
            report.unchanged.append(document.name)
            continue
        if document.name in taken:
            raise DocumentConflictError(
                f"{document.name}: a different file with this name is already in the project; nothing was imported"
            )
        seen_in_batch.add(document.sha256)
        taken.add(document.name)
        pending.append(document)
    return pending


def _rows(document: model.ParsedDocument) -> int:
    return 1 + len(document.pages) + len(document.passages) + len(document.rows)


def _batches(documents: list[model.ParsedDocument], batch_rows: int) -> Iterator[list[model.ParsedDocument]]:
    batch: list[model.ParsedDocument] = []
    size = 0
    for document in documents:
        if batch and size + _rows(document) > batch_rows:
            yield batch
            batch, size = [], 0
        batch.append(document)
        size += _rows(document)
    if batch:
        yield batch


def _add_document(session: Session, document: model.ParsedDocument) -> None:
    row = tables.Document(
        name=document.name,
        title=document.title,
        kind=document.kind.value,
        sha256=document.sha256,
        size_bytes=document.size_bytes,
        page_count=len(document.pages),
        row_count=len(document.rows),
        columns_json=json.dumps(document.columns, ensure_ascii=False),
        key_column=document.key_column,
    )
    session.add(row)
    session.flush()
    assert row.id is not None
    # Bulk inserts (one executemany per table), not one ORM object per row: a large
    # document's transaction is then short.
    if document.pages:
        session.execute(
            insert(tables.DocumentPage),
            [{"document_id": row.id, "number": page.number, "text": "\n".join(page.lines)} for page in document.pages],
        )
    if document.passages:
        session.execute(
            insert(tables.Passage),
            [
                {
                    "document_id": row.id,
                    "page": p.page,
                    "line_start": p.line_start,
                    "line_end": p.line_end,
                    "text": p.text,
                }
                for p in document.passages
            ],
        )
    if document.rows:
        session.execute(
            insert(tables.TableRow),
            [
                {
                    "document_id": row.id,
                    "row_index": r.index,
                    "row_key": r.key,
                    "cells_json": json.dumps(r.cells, ensure_ascii=False),
                }
                for r in document.rows
            ],
        )


def list_documents(engine: Engine) -> list[tables.Document]:
    with Session(engine) as session:
        return list(session.exec(select(tables.Document).order_by(col(tables.Document.name))))


def load_documents(engine: Engine) -> list[model.ParsedDocument]:
    """Every document of the project as the parser produced it."""
    with Session(engine) as session:
        documents = list(session.exec(select(tables.Document).order_by(col(tables.Document.name))))
        pages = _group(session.exec(select(tables.DocumentPage).order_by(col(tables.DocumentPage.number))))
        passages = _group(session.exec(select(tables.Passage).order_by(col(tables.Passage.id))))
        rows = _group(session.exec(select(tables.TableRow).order_by(col(tables.TableRow.row_index))))
        return [
            model.ParsedDocument(
                name=d.name,
                title=d.title,
                kind=model.SourceKind(d.kind),
                sha256=d.sha256,
                size_bytes=d.size_bytes,
                pages=[model.PageText(number=p.number, lines=tuple(p.text.split("\n"))) for p in pages.get(d.id, [])],
                passages=[
                    model.Passage(page=p.page, line_start=p.line_start, line_end=p.line_end, text=p.text)
                    for p in passages.get(d.id, [])
                ],
                columns=json.loads(d.columns_json),
                key_column=d.key_column,
                rows=[
                    model.TableRow(index=r.row_index, key=r.row_key, cells=json.loads(r.cells_json))
                    for r in rows.get(d.id, [])
                ],
            )
            for d in documents
        ]


_Child = TypeVar("_Child", tables.DocumentPage, tables.Passage, tables.TableRow)


def _group(items: Iterable[_Child]) -> dict[int | None, list[_Child]]:
    grouped: dict[int | None, list[_Child]] = {}
    for item in items:
        grouped.setdefault(item.document_id, []).append(item)
    return grouped
