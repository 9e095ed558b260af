"""The corpus use cases as typed results: import (all or nothing), the document list and
the inventory, which the corpus view and ``gtreview corpus`` share."""

from __future__ import annotations

from pathlib import Path

import pytest

from gtreview.app.corpus_import import import_corpus
from gtreview.app.corpus_review import (
    NoCorpusDocuments,
    corpus_documents,
    corpus_inventory,
    inventory_with_confirmations,
    set_synonym_confirmed,
)
from gtreview.corpus.readers import CorpusImportError
from gtreview.paths import sample_corpus_dir
from gtreview.store import db
from gtreview.store.corpus_repo import list_documents
from gtreview.store.project import Project, create_project


@pytest.fixture()
def project(tmp_path: Path):  # type: ignore[no-untyped-def]
    opened = create_project(tmp_path / "project")
    yield opened
    opened.close()


def test_a_failed_import_says_nothing_was_imported(project: Project, tmp_path: Path) -> None:
    good, bad = tmp_path / "good.txt", tmp_path / "bad.txt"
    good.write_text("A report.\n", encoding="utf-8")
    bad.write_bytes(b"")
    with pytest.raises(CorpusImportError, match=r"bad\.txt: .*empty.* \(nothing was imported\)$") as info:
        import_corpus(project.engine, [good, bad])
    with db.reading(project.engine) as session:
        assert info.value.exit_status == 2 and list_documents(session) == []
    with pytest.raises(CorpusImportError, match=r"no \.txt, \.md, \.csv or \.pdf files found \(nothing was imported\)"):
        empty = tmp_path / "empty"
        empty.mkdir()
        import_corpus(project.engine, [empty])


def test_documents_are_listed_with_their_extent(project: Project, tmp_path: Path) -> None:
    (tmp_path / "r.txt").write_text("=== Page 1 ===\nOne.\n=== Page 2 ===\nTwo.\n", encoding="utf-8")
    (tmp_path / "t.csv").write_text("ID,AU\nS1,1\nS2,2\n", encoding="utf-8")
    report = import_corpus(project.engine, [tmp_path / "r.txt", tmp_path / "t.csv"])
    assert report.added == ["r.txt", "t.csv"]
    rows = {d.name: d for d in corpus_documents(project.engine)}
    assert (rows["r.txt"].kind, rows["r.txt"].pages) == ("text", 2)
    assert (rows["t.csv"].kind, rows["t.csv"].rows) == ("csv", 2)
    assert list(rows["t.csv"].model_dump()) == ["name", "title", "kind", "pages", "rows", "sha256"]


def test_the_inventory_refuses_an_empty_project_unless_asked(project: Project) -> None:
    with pytest.raises(NoCorpusDocuments) as info:
        corpus_inventory(project)
    assert str(project.folder) in str(info.value) and info.value.exit_status == 2
    assert corpus_inventory(project, allow_empty=True).documents == 0


def test_the_inventory_carries_the_experts_confirmations(project: Project) -> None:
    root = sample_corpus_dir()
    import_corpus(project.engine, [root / "reports", root / "tables"])
    inventory = corpus_inventory(project)
    assert inventory.documents == 9 and inventory.variants and not any(v.confirmed for v in inventory.variants)
    family = inventory.variants[0]
    set_synonym_confirmed(project.engine, family.canonical, [family.canonical], True)
    confirmed = {v.canonical for v in corpus_inventory(project).variants if v.confirmed}
    assert confirmed == {family.canonical}
    same = inventory_with_confirmations(project.engine)  # what the corpus view shows
    assert [v.confirmed for v in same.variants] == [v.confirmed for v in corpus_inventory(project).variants]
