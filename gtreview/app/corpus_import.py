"""Importing corpus files into a project: each file parsed in turn and stored, whole,
in short transactions, so memory holds a batch of files, not the corpus, and the write
lock is never held for long."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from sqlalchemy import Engine

from gtreview.core.corpus import ParsedDocument
from gtreview.corpus.readers import CorpusImportError, parse_file
from gtreview.inputs import InputReadError, check_regular_file
from gtreview.store import db
from gtreview.store.corpus_repo import (
    BATCH_BYTES,
    BATCH_ROWS,
    DocumentConflictError,
    rows_of,
    store_batch,
    stored_documents,
    stored_so_far,
)
from gtreview.store.corpus_repo import CorpusImportReport as CorpusImportReport  # re-exported: what an import returns

SUPPORTED_SUFFIXES = frozenset({".txt", ".md", ".csv", ".pdf"})


def collect_files(paths: Iterable[Path]) -> list[tuple[Path, str]]:
    """Expand folders into their supported files, each with its document name.

    A file given directly is named by its file name; files found in a folder are
    named by their path under that folder's parent (``yudnamutana/deposits.csv``),
    so evidence ``source`` paths can be matched by their trailing components.
    """
    found: list[tuple[Path, str]] = []
    for path in paths:
        if path.is_dir():
            for file in sorted(path.rglob("*")):
                if file.is_file() and file.suffix.lower() in SUPPORTED_SUFFIXES and not _hidden(file, path):
                    found.append((file, file.relative_to(path.parent).as_posix()))
        elif path.exists() or path.is_symlink():
            try:
                check_regular_file(path)  # a device or a pipe is named as such, never opened
            except InputReadError as exc:
                raise CorpusImportError(str(path), exc.reason) from None
            found.append((path, path.name))
        else:
            raise CorpusImportError(str(path), "no such file or folder")
    return found


def _hidden(file: Path, root: Path) -> bool:
    return any(part.startswith(".") for part in file.relative_to(root).parts)


def parse_files(files: Iterable[tuple[Path, str]]) -> list[ParsedDocument]:
    return [parse_file(path, name) for path, name in files]


ImportProgress = Callable[[int, int, str], None]  # files done, files in all, the file being read


def import_corpus(
    engine: Engine, paths: Iterable[Path], *, progress: ImportProgress | None = None
) -> CorpusImportReport:
    """Parse each file and store the documents, each whole, in short transactions.

    A file that cannot be parsed stops the import, and its one-line message says what
    was stored before it ("nothing was imported", or how many documents were), whoever
    shows it: the CLI or the import dialog; importing again skips what is stored.
    Storing in batches keeps the write lock short, so the expert's saves and a running
    pass carry on beside a large import; documents already stored (by an earlier, killed
    run of the same import or by one running at the same time) are left as they are.
    ``progress`` hears of each file before it is read.
    """
    paths = list(paths)
    try:
        files = collect_files(paths)
        if not files:
            raise CorpusImportError(", ".join(str(p) for p in paths), "no .txt, .md, .csv or .pdf files found")
    except CorpusImportError as exc:
        raise CorpusImportError(exc.file, f"{exc.reason} (nothing was imported)") from None
    report = CorpusImportReport()
    try:
        # a DocumentConflictError already says what was stored before it
        return import_documents(engine, _parsed_one_by_one(files, progress), report=report)
    except CorpusImportError as exc:
        raise CorpusImportError(exc.file, f"{exc.reason} ({stored_so_far(report)})") from None


def import_documents(
    engine: Engine,
    documents: Iterable[ParsedDocument],
    *,
    batch_rows: int = BATCH_ROWS,
    report: CorpusImportReport | None = None,
) -> CorpusImportReport:
    """Store ``documents``, each whole, in short transactions of about ``batch_rows`` rows.

    ``documents`` may be a generator that parses each file when asked: a batch is
    written as soon as it is full and let go, so an import holds about one batch of
    parsed files in memory, not the whole corpus. A document whose bytes are already in
    the project (same sha256) is skipped, so importing the same files again changes
    nothing, and two imports of one corpus at once give one copy of each document (each
    batch looks again, under the write lock, for what another import stored meanwhile).
    A different file under a name already taken is refused rather than silently
    replacing what locators point at. An import stopped half-way (an error, a kill)
    leaves whole documents only, named in ``report`` (pass one in to read it after an
    error); rerunning it stores the rest. One unit of work per batch, on purpose: what
    is stored stays stored, and the lock is held briefly.
    """
    report = report if report is not None else CorpusImportReport()
    with db.reading(engine) as session:
        known = stored_documents(session)
    taken = set(known.values())
    seen: set[str] = set()
    batch: list[ParsedDocument] = []
    rows = size = 0
    for document in documents:
        if document.sha256 in known or document.sha256 in seen:
            report.unchanged.append(document.name)
            continue
        if document.name in taken:
            raise DocumentConflictError(
                f"{document.name}: a different file with this name is already in the project; " + stored_so_far(report)
            )
        seen.add(document.sha256)
        taken.add(document.name)
        if batch and (rows + rows_of(document) > batch_rows or size + document.size_bytes > BATCH_BYTES):
            _store(engine, batch, report)
            batch, rows, size = [], 0, 0
        batch.append(document)
        rows += rows_of(document)
        size += document.size_bytes
    if batch:
        _store(engine, batch, report)
    return report


def _store(engine: Engine, batch: list[ParsedDocument], report: CorpusImportReport) -> None:
    with db.unit_of_work(engine) as tx:
        added, unchanged = store_batch(tx, batch, report)
    report.added.extend(added)  # once committed: the report names what is stored
    report.unchanged.extend(unchanged)


def _parsed_one_by_one(files: list[tuple[Path, str]], progress: ImportProgress | None) -> Iterator[ParsedDocument]:
    for done, (path, name) in enumerate(files):
        if progress is not None:
            progress(done, len(files), name)
        yield parse_file(path, name)
    if progress is not None:
        progress(len(files), len(files), "")
