"""Which source document each question was drafted from: the clusters of the design.

Questions drafted from one report share its vocabulary, its difficulty and whatever a
fine-tune memorised of it, so the paired inference resamples documents, not questions.
A question's document is the corpus document its first (primary) evidence item cites;
a question whose primary evidence names no document of the corpus is a cluster of its own.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlmodel import Session

from gtreview.core.corpus import ParsedDocument, SourceKind
from gtreview.core.rubric import Question
from gtreview.corpus.locators import CorpusIndex, parse_text_locator
from gtreview.store.corpus_repo import list_documents


def primary_document(question: Question, index: CorpusIndex) -> str | None:
    """The corpus document the question's first evidence item cites, as the locator
    resolver picks it (the source path, else the ``book=`` of a page locator), or None."""
    if not question.evidence:
        return None
    primary = question.evidence[0]
    document = index.match(primary.source or "")
    if document is None and primary.locator:
        text_form = parse_text_locator(primary.locator)
        if text_form is not None and text_form.book:
            document = index.match(text_form.book)
    return document.name if document is not None else None


def question_documents(questions: Sequence[Question], document_names: Sequence[str]) -> dict[str, str]:
    """Question id -> the name of its primary document, for the questions that cite one."""
    # Only names are matched, so the index is built from names without reading any pages.
    stubs = [
        ParsedDocument(name=name, title=name, kind=SourceKind.TEXT, sha256="", size_bytes=0) for name in document_names
    ]
    index = CorpusIndex(stubs)
    found = {q.id: primary_document(q, index) for q in questions}
    return {qid: name for qid, name in found.items() if name is not None}


def project_question_documents(session: Session, questions: Sequence[Question]) -> dict[str, str]:
    """:func:`question_documents` against the project's corpus as it is now."""
    return question_documents(questions, [row.name for row in list_documents(session)])


def cluster_labels(qids: Sequence[str], documents: dict[str, str]) -> list[tuple[str, str]]:
    """One cluster label per question: its document, or the question itself (tagged, so a
    document and a question of the same name stay apart)."""
    return [("document", documents[qid]) if qid in documents else ("question", qid) for qid in qids]
