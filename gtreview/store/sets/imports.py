"""A rubric becomes a set: version 1 of each question, with the import in the audit log."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable

from sqlmodel import Session, col, select

from gtreview.core.rubric import Rubric
from gtreview.store import tables
from gtreview.store.sets.errors import SetAlreadyImportedError, SetImportError
from gtreview.store.sets.versions import add_version


def repeated_ids(ids: Iterable[str]) -> list[str]:
    """The ids that occur more than once, sorted; one pass, so a large set imports in linear time
    (counting each id in the whole list was quadratic: 200,000 questions never finished)."""
    return sorted(qid for qid, count in Counter(ids).items() if count > 1)


def import_rubric(
    session: Session,
    rubric: Rubric,
    *,
    source_name: str,
    source_sha256: str,
    actor: str,
    source_text: str | None = None,
    if_absent: bool = False,
) -> int:
    """Store ``rubric`` as a new benchmark set (version 1 of each question); return its id.
    ``source_text`` is the file as read, kept so an export can be written in its layout.

    With ``if_absent``, a set imported from the same file (same ``source_sha256``) is
    refused (``SetAlreadyImportedError`` names it): an import rerun after it was killed,
    or two run at once, gives one set. The check and the insert share one write
    transaction (``session``, the unit of work), so two imports cannot both see the set missing.
    """
    duplicates = repeated_ids(q.id for q in rubric.questions)
    if duplicates:
        raise SetImportError(f"question ids are not unique ({', '.join(duplicates)}); fix the rubric first")
    header = rubric.header_dict()
    if if_absent:
        present = session.exec(
            select(tables.BenchmarkSet)
            .where(tables.BenchmarkSet.source_sha256 == source_sha256)
            .order_by(col(tables.BenchmarkSet.id))
        ).first()
        if present is not None and present.id is not None:
            raise SetAlreadyImportedError(present.id, present.name, source_name)
    benchmark_set = tables.BenchmarkSet(
        name=rubric.benchmark.name or source_name,
        source_name=source_name,
        header_json=json.dumps(header, ensure_ascii=False),
        source_sha256=source_sha256,
        source_text=source_text,
    )
    session.add(benchmark_set)
    session.flush()
    assert benchmark_set.id is not None
    for position, question in enumerate(rubric.questions):
        row = tables.Question(set_id=benchmark_set.id, position=position, qid=question.id)
        session.add(row)
        session.flush()
        assert row.id is not None
        add_version(session, row.id, 1, question.to_json_dict(), actor, "imported")
    session.add(
        tables.ReviewLog(
            actor=actor,
            action="import",
            set_id=benchmark_set.id,
            content_hash=source_sha256,
            comment=f"imported {source_name}",
        )
    )
    return benchmark_set.id
