import json
import subprocess
import sys
from pathlib import Path

import pytest

from gtreview.app.corpus_import import collect_files, import_corpus
from gtreview.corpus.locators import CorpusIndex
from gtreview.corpus.readers import CorpusImportError, parse_file
from gtreview.store.corpus_repo import DocumentConflictError, list_documents, load_documents
from gtreview.store.project import create_project
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
    stored = {d.name: d for d in load_documents(project.engine)}
    original = parse_file(corpus / "reports" / "r1.txt", "corpus/reports/r1.txt")
    assert stored["corpus/reports/r1.txt"] == original
    index = CorpusIndex(list(stored.values()))
    assert index.resolve("reports/r1.txt", "page=2, line=1").spans[0].text == "Water at 180 feet."
    assert index.resolve("assays.csv", "SAMPLE_NO=S1, AU_GPT").cells[0].values == ("4.2",)


def test_reimport_changes_nothing(project, corpus: Path) -> None:  # type: ignore[no-untyped-def]
    import_corpus(project.engine, [corpus])
    before = [(d.id, d.sha256, d.imported_at) for d in list_documents(project.engine)]
    again = import_corpus(project.engine, [corpus])
    assert again.added == [] and len(again.unchanged) == 2
    assert [(d.id, d.sha256, d.imported_at) for d in list_documents(project.engine)] == before


def test_failed_import_leaves_nothing_half_written(project, corpus: Path) -> None:  # type: ignore[no-untyped-def]
    (corpus / "reports" / "r2.txt").write_bytes(b"caf\xe9 latin-1 bytes")
    with pytest.raises(CorpusImportError, match="UTF-8"):
        import_corpus(project.engine, [corpus])
    assert list_documents(project.engine) == []


def test_same_name_different_content_is_refused_whole(project, corpus: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import_corpus(project.engine, [corpus / "assays.csv"])
    other = tmp_path / "other"
    other.mkdir()
    (other / "assays.csv").write_text("SAMPLE_NO,AU_GPT\nS1,9.9\n", encoding="utf-8")
    (other / "new.txt").write_text("A new report.\n", encoding="utf-8")
    with pytest.raises(DocumentConflictError, match=r"assays\.csv"):
        import_corpus(project.engine, [other / "new.txt", other / "assays.csv"])
    assert [d.name for d in list_documents(project.engine)] == ["assays.csv"]


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
