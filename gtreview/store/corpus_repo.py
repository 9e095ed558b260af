"""Persisting parsed corpus documents and reading them back for locator resolution."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TypeVar

from pydantic import BaseModel, Field
from sqlalchemy import Engine
from sqlalchemy import insert as sa_insert
from sqlmodel import Session, SQLModel, col, select

from gtreview.core import corpus as model
from gtreview.core.errors import UserError
from gtreview.store import tables


class DocumentConflictError(UserError, ValueError):
    """An import that was refused as a whole; the message is one line."""


class CorpusImportReport(BaseModel):
    added: list[str] = Field(default_factory=list)
    unchanged: list[str] = Field(default_factory=list)


def import_documents(engine: Engine, documents: Iterable[model.ParsedDocument]) -> CorpusImportReport:
    """Store ``documents`` in one transaction: all of them or, on any conflict, none.

    A document whose bytes are already in the project (same sha256) is skipped, so
    importing the same files again changes nothing. A different file under a name
    already taken is refused rather than silently replacing what locators point at.
    ``documents`` may be a generator that parses each file when asked: each is written
    (uncommitted) and dropped before the next is parsed, so an import holds one parsed
    file in memory, not all of them; an error raised by the generator rolls back all.
    """
    report = CorpusImportReport()
    with Session(engine) as session:
        known = {row.sha256: row.name for row in session.exec(select(tables.Document))}
        taken = set(known.values())
        seen_in_batch: set[str] = set()
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
            _add_document(session, document)
            report.added.append(document.name)
        session.commit()
    return report


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
        ({"document_id": document_id, "number": page.number, "text": "\n".join(page.lines)} for page in document.pages),
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
