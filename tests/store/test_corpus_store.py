import json
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest

from gtreview.app.corpus_import import collect_files, import_corpus
from gtreview.corpus.locators import CorpusIndex
from gtreview.corpus.readers import CorpusImportError, parse_file
from gtreview.store import db
from gtreview.store.corpus_repo import DocumentConflictError, list_documents, load_documents
from gtreview.store.project import create_project, open_project
from tests.projects import new_project

REPORT = "=== Page 1 ===\nREPORT ON THE WIRRIM REEFS\n\nThe reef dips west.\n=== Page 2 ===\nWater at 180 feet.\n"


@pytest.fixture()
def project(tmp_path: Path):  # type: ignore[no-untyped-def]
    opened = create_project(tmp_path / "proj")
    yield opened
    opened.close()


@pytest.fixture()
def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "corpus"
    (folder / "reports").mkdir(parents=True)
    (folder / "reports" / "r1.txt").write_text(REPORT, encoding="utf-8")
    (folder / "assays.csv").write_text("SAMPLE_NO,AU_GPT\nS1,4.2\nS2,0.3\n", encoding="utf-8")
    (folder / ".hidden.txt").write_text("ignored", encoding="utf-8")
    (folder / "notes.docx").write_bytes(b"PK\x03\x04")
    return folder


def test_folder_import_names_and_round_trip(project, corpus: Path) -> None:  # type: ignore[no-untyped-def]
    assert [name for _, name in collect_files([corpus])] == ["corpus/assays.csv", "corpus/reports/r1.txt"]
    report = import_corpus(project.engine, [corpus])
    assert report.added == ["corpus/assays.csv", "corpus/reports/r1.txt"]
    with db.reading(project.engine) as session:
        stored = {d.name: d for d in load_documents(session)}
    original = parse_file(corpus / "reports" / "r1.txt", "corpus/reports/r1.txt")
    assert stored["corpus/reports/r1.txt"] == original
    index = CorpusIndex(list(stored.values()))
    assert index.resolve("reports/r1.txt", "page=2, line=1").spans[0].text == "Water at 180 feet."
    assert index.resolve("assays.csv", "SAMPLE_NO=S1, AU_GPT").cells[0].values == ("4.2",)


def test_reimport_changes_nothing(project, corpus: Path) -> None:  # type: ignore[no-untyped-def]
    import_corpus(project.engine, [corpus])
    with db.reading(project.engine) as session:
        before = [(d.id, d.sha256, d.imported_at) for d in list_documents(session)]
    again = import_corpus(project.engine, [corpus])
    assert again.added == [] and len(again.unchanged) == 2
    with db.reading(project.engine) as session:
        assert [(d.id, d.sha256, d.imported_at) for d in list_documents(session)] == before


def test_failed_import_leaves_nothing_half_written(project, corpus: Path) -> None:  # type: ignore[no-untyped-def]
    (corpus / "reports" / "r2.txt").write_bytes(b"caf\xe9 latin-1 bytes")
    with pytest.raises(CorpusImportError, match="UTF-8"):
        import_corpus(project.engine, [corpus])
    with db.reading(project.engine) as session:
        assert list_documents(session) == []


def test_same_name_different_content_is_refused_whole(project, corpus: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import_corpus(project.engine, [corpus / "assays.csv"])
    other = tmp_path / "other"
    other.mkdir()
    (other / "assays.csv").write_text("SAMPLE_NO,AU_GPT\nS1,9.9\n", encoding="utf-8")
    (other / "new.txt").write_text("A new report.\n", encoding="utf-8")
    with pytest.raises(DocumentConflictError, match=r"assays\.csv"):
        import_corpus(project.engine, [other / "new.txt", other / "assays.csv"])
    with db.reading(project.engine) as session:
        assert [d.name for d in list_documents(session)] == ["assays.csv"]


def run_cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gtreview.cli", *map(str, args)], capture_output=True, text=True, timeout=120
    )


def test_cli_corpus_import_and_refusals(tmp_path: Path, corpus: Path) -> None:
    project = new_project(tmp_path / "cli-project")
    first = run_cli("corpus", "import", corpus, "--project", project)
    assert first.returncode == 0, first.stderr
    assert "2 added, 0 already in the project" in first.stdout
    second = run_cli("corpus", "import", corpus, "--project", project)
    assert "0 added, 2 already in the project" in second.stdout

    empty = tmp_path / "empty.txt"
    empty.write_text("")
    binary = tmp_path / "blob.txt"
    binary.write_bytes(b"\x00\x01\x02binary")
    for bad, message in ((empty, "empty"), (binary, "binary"), (tmp_path / "missing.txt", "no such file")):
        result = run_cli("corpus", "import", bad, "--project", project)
        assert result.returncode == 2
        assert message in result.stderr and "nothing was imported" in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1
    listing = run_cli("corpus", "list", "--project", project, "--json")
    assert listing.returncode == 0
    assert sorted(d["name"] for d in json.loads(listing.stdout)) == ["corpus/assays.csv", "corpus/reports/r1.txt"]


def test_interop_locators_through_the_cli(tmp_path: Path, interop_dir: Path) -> None:
    project = new_project(tmp_path / "interop")
    assert run_cli("corpus", "import", interop_dir / "corpus" / "yudnamutana", "--project", project).returncode == 0
    result = run_cli(
        "rubric",
        "locators",
        interop_dir / "rubrics" / "Yudnamutana_QA_grading_key.json",
        "--project",
        project,
        "--json",
    )
    assert result.returncode == 1  # some locators are aggregate descriptions, listed as unresolved
    report = json.loads(result.stdout)
    by_locator = {item["locator"]: item for item in report["locators"]}
    keyed = [loc for loc in by_locator if loc.startswith("MINERAL_DEPOSIT_NO=")]
    assert keyed and all(by_locator[loc]["status"] == "resolved" for loc in keyed)
    others = [item for loc, item in by_locator.items() if loc not in keyed]
    assert others and all(item["status"] == "unresolved" and item["reason"] for item in others)


def many_documents(count: int, pages: int = 5) -> list:  # type: ignore[type-arg]
    from gtreview.core import corpus as model

    return [
        model.ParsedDocument(
            name=f"reports/r{i}.txt",
            title=f"Report {i}",
            kind=model.SourceKind.TEXT,
            sha256=f"{i:064x}",
            size_bytes=100,
            pages=[model.PageText(number=n + 1, lines=(f"Page {n + 1} of report {i}.",)) for n in range(pages)],
            passages=[
                model.Passage(page=n + 1, line_start=1, line_end=1, text=f"Page {n + 1} of report {i}.")
                for n in range(pages)
            ],
        )
        for i in range(count)
    ]


def test_a_large_import_commits_in_bounded_transactions(project) -> None:  # type: ignore[no-untyped-def]
    """The write lock is taken for one batch at a time, never for the whole import, so a
    concurrent save or pass gets in between batches."""
    from sqlalchemy import event

    from gtreview.app.corpus_import import import_documents

    rows_per_commit: list[int] = []
    rows = [0]

    def count(_conn, _cursor, statement, parameters, _context, executemany) -> None:  # type: ignore[no-untyped-def]
        if statement.lstrip().upper().startswith("INSERT"):
            rows[0] += len(parameters) if executemany else 1

    def committed(_conn) -> None:  # type: ignore[no-untyped-def]
        rows_per_commit.append(rows[0])
        rows[0] = 0

    documents = many_documents(12)  # 11 rows each: the document, 5 pages, 5 passages
    event.listen(project.engine, "after_cursor_execute", count)
    event.listen(project.engine, "commit", committed)
    try:
        report = import_documents(project.engine, documents, batch_rows=30)
    finally:
        event.remove(project.engine, "after_cursor_execute", count)
        event.remove(project.engine, "commit", committed)
    assert len(report.added) == 12
    written = [n for n in rows_per_commit if n]
    assert len(written) == 6 and max(written) <= 30 and sum(written) == 12 * 11
    with db.reading(project.engine) as session:
        assert load_documents(session) == sorted(documents, key=lambda d: d.name)


def test_two_imports_of_one_corpus_at_once_store_it_once(project) -> None:  # type: ignore[no-untyped-def]
    import threading

    from gtreview.app.corpus_import import import_documents

    documents = many_documents(40)
    other = open_project(project.folder)  # a second process, to SQLite
    reports, errors = [], []

    def run(engine) -> None:  # type: ignore[no-untyped-def]
        try:
            reports.append(import_documents(engine, documents, batch_rows=50))
        except Exception as exc:  # noqa: BLE001 - any error is the failure this test looks for
            errors.append(exc)

    try:
        threads = [threading.Thread(target=run, args=(e,)) for e in (project.engine, other.engine)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        other.close()
    assert errors == []
    with db.reading(project.engine) as session:
        assert sorted(d.name for d in list_documents(session)) == sorted(d.name for d in documents)
    for report in reports:  # each import accounts for every document: stored by it or found stored
        assert sorted(report.added + report.unchanged) == sorted(d.name for d in documents)


def _report_text(pages: int, seed: int) -> str:
    lines = []
    for page in range(1, pages + 1):
        lines.append(f"=== Page {page} ===")
        lines += [f"Report {seed}, page {page}: the lode carries quartz and iron oxide, line {n}." for n in range(40)]
        lines.append("")
    return "\n".join(lines) + "\n"


def _import_peak(engine, files: list[Path]) -> int:  # type: ignore[no-untyped-def]
    tracemalloc.start()
    try:
        import_corpus(engine, files)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_import_holds_one_parsed_file_at_a_time(tmp_path: Path) -> None:
    """Memory, not time: importing six files peaks near importing one, not six times it
    (every file used to be parsed and held before the first was stored)."""
    files = []
    for seed in range(7):
        path = tmp_path / "corpus" / f"report{seed}.txt"
        path.parent.mkdir(exist_ok=True)
        path.write_text(_report_text(60, seed), encoding="utf-8")  # about 200 kB each
        files.append(path)
    one, six = create_project(tmp_path / "one"), create_project(tmp_path / "six")
    try:
        _import_peak(one.engine, files[:1])  # warm: imports and caches allocated once
        _import_peak(six.engine, files[:1])
        single = _import_peak(one.engine, [files[1]])
        several = _import_peak(six.engine, files[1:])
        assert several < 2 * single, (several, single)
        with db.reading(six.engine) as session:
            assert len(list_documents(session)) == 7
    finally:
        one.close()
        six.close()


def test_a_bad_last_file_is_named_and_says_what_was_stored_before_it(project, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "many"
    folder.mkdir()
    for n in range(3):
        (folder / f"a{n}.txt").write_text(_report_text(2, n), encoding="utf-8")
    (folder / "z.csv").write_text('K,V\na,"1\nb,2\n', encoding="utf-8")
    with pytest.raises(CorpusImportError, match=r"z\.csv: line 2 opens a quoted field .* \(nothing was imported\)"):
        import_corpus(project.engine, [folder])  # the small files wait in one batch: none was written
    with db.reading(project.engine) as session:
        assert list_documents(session) == []
    monkeypatch.setattr("gtreview.app.corpus_import.BATCH_BYTES", 1)  # every file a transaction of its own
    with pytest.raises(
        CorpusImportError,
        match=r"z\.csv: .* \(2 documents before it were imported \(importing again skips them\), the rest were not\)",
    ):
        import_corpus(project.engine, [folder])  # a2 was parsed, waiting to be written, when z.csv failed
    with db.reading(project.engine) as session:
        assert [d.name for d in list_documents(session)] == ["many/a0.txt", "many/a1.txt"]  # whole documents
