"""Persisting parsed corpus documents and reading them back for locator resolution."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import TypeVar

from pydantic import BaseModel, Field
from sqlalchemy import insert as sa_insert
from sqlmodel import Session, SQLModel, col, select

from gtreview.core import corpus as model
from gtreview.core.changes import OpChanges
from gtreview.core.errors import UserError
from gtreview.store import tables


class DocumentConflictError(UserError, ValueError):
    """An import that was refused as a whole; the message is one line."""


class CorpusImportReport(BaseModel):
    added: list[str] = Field(default_factory=list)
    unchanged: list[str] = Field(default_factory=list)

    @property
    def changes(self) -> OpChanges:
        return OpChanges(corpus=bool(self.added))


# One import transaction writes at most this many child rows (pages, passages, table
# rows) or documents of this many bytes, so the write lock is held for a fraction of a
# second (a concurrent save, pass or import waits briefly instead of timing out) and the
# documents waiting to be written hold little memory. A document is never split: one
# larger than this is a transaction of its own.
BATCH_ROWS = 20_000
BATCH_BYTES = 256 * 1024


def stored_documents(session: Session) -> dict[str, str]:
    """The name of each stored document, by the sha256 of its bytes."""
    return {row.sha256: row.name for row in session.exec(select(tables.Document))}


def stored_so_far(report: CorpusImportReport) -> str:
    """What an import stopped half-way leaves, in words."""
    if not report.added:
        return "nothing was imported"
    return f"{len(report.added)} documents before it were imported (importing again skips them), the rest were not"


def store_batch(
    session: Session, batch: list[model.ParsedDocument], report: CorpusImportReport
) -> tuple[list[str], list[str]]:
    """Store each document of ``batch`` that is not stored yet (looked for again here, in
    the batch's unit of work, for what another import stored meanwhile); the names
    added and the ones left unchanged. ``report`` (what was stored before) only words a
    refusal: the caller adds to it once the batch is committed."""
    added, unchanged = [], []
    stored = stored_documents(session)
    for document in batch:
        if document.sha256 in stored:  # another import stored it meanwhile
            unchanged.append(document.name)
        elif document.name in stored.values():
            raise DocumentConflictError(
                f"{document.name}: another import stored a different file with this name meanwhile; "
                + stored_so_far(report)
            )
        else:
            _add_document(session, document)
            added.append(document.name)
    return added, unchanged


def rows_of(document: model.ParsedDocument) -> int:
    """The rows a document adds: itself, its pages, passages and table rows."""
    return 1 + len(document.pages) + len(document.passages) + len(document.rows)


INSERT_CHUNK = 2000  # rows per executemany: bounded memory for the parameters of one call


def _insert_chunks(session: Session, table: type[SQLModel], rows: Iterable[dict[str, object]]) -> None:
    # Core inserts, in chunks: ORM objects for every page and passage of a 200 MB file
    # would each hold their text until the commit.
    statement = sa_insert(table)
    chunk: list[dict[str, object]] = []
    for row in rows:
        chunk.append(row)
        if len(chunk) >= INSERT_CHUNK:
            session.execute(statement, chunk)
            chunk = []
    if chunk:
        session.execute(statement, chunk)


def text_sha256(text: str) -> str:
    """The hash a page keeps of its text (``tables.DocumentPage.text_sha256``)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _page_row(document_id: int, number: int, text: str) -> dict[str, object]:
    return {"document_id": document_id, "number": number, "text": text, "text_sha256": text_sha256(text)}


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
    document_id = row.id
    _insert_chunks(
        session,
        tables.DocumentPage,
        (_page_row(document_id, page.number, "\n".join(page.lines)) for page in document.pages),
    )
    _insert_chunks(
        session,
        tables.Passage,
        (
            {
                "document_id": document_id,
                "page": p.page,
                "line_start": p.line_start,
                "line_end": p.line_end,
                "text": p.text,
            }
            for p in document.passages
        ),
    )
    _insert_chunks(
        session,
        tables.TableRow,
        (
            {
                "document_id": document_id,
                "row_index": r.index,
                "row_key": r.key,
                "cells_json": json.dumps(r.cells, ensure_ascii=False),
            }
            for r in document.rows
        ),
    )
    session.expunge(row)  # nothing of this document stays in the session's memory


def list_documents(session: Session) -> list[tables.Document]:
    return list(session.exec(select(tables.Document).order_by(col(tables.Document.name))))


def load_documents(session: Session) -> list[model.ParsedDocument]:
    """Every document of the project as the parser produced it."""
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
