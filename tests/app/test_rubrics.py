"""Rubric files and sets through gtreview.app: validation, import with its locator check,
export, and the one-line refusals, as typed results (the CLI prints these)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gtreview.app.corpus_import import import_corpus
from gtreview.app.rubric_files import RubricFileError, read_rubric, read_rubric_source, validate_rubric_file
from gtreview.app.rubrics import SetChoiceError, check_locators, export_set, import_rubric
from gtreview.core.errors import UserError
from gtreview.store.db import reading, unit_of_work
from gtreview.store.project import Project, create_project, open_project
from tests.rubric_factory import mutated, rubric

REPORT = "=== Page 1 ===\nTitle\n=== Page 2 ===\nOne.\nTwo.\nThree.\nYield fell at 180 ft.\nFive.\nSix.\n"


def write(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


@pytest.fixture()
def project(tmp_path: Path):  # type: ignore[no-untyped-def]
    opened = create_project(tmp_path / "project")
    yield opened
    opened.close()


def test_validation_counts_errors_and_warnings(tmp_path: Path) -> None:
    clean = validate_rubric_file(write(tmp_path / "clean.json", rubric(2)))
    assert clean.ok and clean.questions == 2 and clean.errors == 0 and clean.findings == []
    bad = validate_rubric_file(write(tmp_path / "bad.json", mutated(rubric(2), "questions.1.components.2.points", 5)))
    assert not bad.ok and bad.errors == 1 and [f.code for f in bad.findings] == ["points-total"]
    warned = validate_rubric_file(write(tmp_path / "w.json", mutated(rubric(2), "benchmark.question_count", 7)))
    assert warned.ok and warned.warnings == 1


def test_an_unreadable_or_unmodellable_file_is_one_line_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "nope.json"
    with pytest.raises(RubricFileError, match=r"nope\.json: no such file") as info:
        validate_rubric_file(missing)
    assert info.value.exit_status == 2 and "\n" not in str(info.value)
    untyped = write(tmp_path / "untyped.json", mutated(rubric(1), "questions.0.components", "none"))
    assert validate_rubric_file(untyped).errors  # validation still reports on it
    with pytest.raises(RubricFileError, match=r"untyped\.json: cannot load: \$\.questions\[0\]\.components"):
        read_rubric(untyped)


def test_import_says_which_locators_do_not_resolve(project: Project, tmp_path: Path) -> None:
    source = read_rubric_source(write(tmp_path / "r.json", rubric(2)))
    assert source.rubric.questions[0].id == "A1" and len(source.sha256) == 64
    imported = import_rubric(project.engine, source, actor="geo")
    assert (imported.set_id, imported.questions, imported.errors, imported.warnings) == (1, 2, 0, 0)
    assert len(imported.locators.checks) == 2 and imported.locators.resolved == 0  # no corpus yet
    assert {c.question_id for c in imported.locators.unresolved} == {"A1", "A2"}

    corpus = tmp_path / "reports"
    corpus.mkdir()
    (corpus / "x.txt").write_text(REPORT, encoding="utf-8")
    import_corpus(project.engine, [corpus])
    report = check_locators(project.engine, source.rubric)
    assert report.resolved == 2 and report.unresolved == []


def test_export_picks_the_only_set_and_refuses_otherwise(project: Project, tmp_path: Path) -> None:
    with pytest.raises(SetChoiceError, match="the project has 0 sets; name one with --set"):
        export_set(project.engine, tmp_path / "o.json")
    path = write(tmp_path / "r.json", rubric(2))
    import_rubric(project.engine, read_rubric_source(path), actor="geo")
    exported = export_set(project.engine, tmp_path / "o.json")
    assert (exported.set_id, exported.format, exported.path) == (1, "json", tmp_path / "o.json")
    assert json.loads(exported.path.read_text(encoding="utf-8"))["questions"][0]["id"] == "A1"
    guide = export_set(project.engine, tmp_path / "g.md", set_id=1, format="md")
    assert guide.path.read_text(encoding="utf-8").startswith("# ")
    with pytest.raises(UserError, match="the project has no set 7"):
        export_set(project.engine, tmp_path / "o.json", set_id=7)
    import_rubric(project.engine, read_rubric_source(path), actor="geo", as_new=True)  # a second copy
    with pytest.raises(SetChoiceError, match="2 sets"):
        export_set(project.engine, tmp_path / "o.json")


def test_an_imported_set_exports_in_the_layout_of_its_file(project: Project, tmp_path: Path) -> None:
    from gtreview.store import sets
    from tests.core.test_rubric_model import COMPACT

    raw = ("\ufeff" + COMPACT).replace("\n", "\r\n").encode("utf-8")  # a BOM and CRLF, as Windows tools write
    path = tmp_path / "Compact_grading_key.json"
    path.write_bytes(raw)
    imported = import_rubric(project.engine, read_rubric_source(path), actor="geo")
    assert export_set(project.engine, tmp_path / "same.json").path.read_bytes() == raw  # unchanged: byte for byte
    with reading(project.engine) as session:
        question = sets.load_question(session, imported.set_id, "A1")
    question.title = "Host rock and its control"
    with unit_of_work(project.engine) as tx:
        sets.save_question(tx, imported.set_id, question, author="geo")
    edited = export_set(project.engine, tmp_path / "edited.json").path.read_bytes()
    assert edited == raw.replace(b'"title": "Host rock"', b'"title": "Host rock and its control"')


def test_importing_the_same_file_again_gives_one_set_unless_asked(project: Project, tmp_path: Path) -> None:
    """A rerun after an import was killed past its commit adds no duplicate set."""
    from gtreview.store import sets

    path = write(tmp_path / "r.json", rubric(2))
    first = import_rubric(project.engine, read_rubric_source(path), actor="geo")
    again = import_rubric(project.engine, read_rubric_source(path), actor="geo")
    assert not first.already_in_project
    assert again.already_in_project and again.set_id == first.set_id
    with reading(project.engine) as session:
        assert [s.id for s in sets.list_sets(session)] == [first.set_id]
    copy = import_rubric(project.engine, read_rubric_source(path), actor="geo", as_new=True)
    assert not copy.already_in_project and copy.set_id != first.set_id
    with reading(project.engine) as session:
        assert len(sets.list_sets(session)) == 2


def test_two_imports_of_one_file_at_once_give_one_set(project: Project, tmp_path: Path) -> None:
    import threading

    from gtreview.store import sets

    path = write(tmp_path / "r.json", rubric(30))
    source = read_rubric_source(path)
    other = open_project(project.folder)  # a second process, to SQLite
    results: list[object] = []
    try:
        threads = [
            threading.Thread(target=lambda e=engine: results.append(import_rubric(e, source, actor="geo")))
            for engine in (project.engine, other.engine)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        other.close()
    with reading(project.engine) as session:
        assert len(results) == 2 and len(sets.list_sets(session)) == 1


def test_a_retired_question_is_left_out_of_the_export_unless_asked(project: Project, tmp_path: Path) -> None:
    """The file cannot say a question is retired: exported with it, and imported again, it
    would come back as a draft."""
    import json

    from gtreview.app import workflow

    path = write(tmp_path / "r.json", rubric(3))
    imported = import_rubric(project.engine, read_rubric_source(path), actor="geo")
    workflow.retire(project.engine, imported.set_id, "A2", reviewer="geo", comment="duplicates A1")
    exported = export_set(project.engine, tmp_path / "out.json")
    written = json.loads(exported.path.read_text(encoding="utf-8"))
    assert [q["id"] for q in written["questions"]] == ["A1", "A3"] and exported.retired_left_out == ["A2"]
    count = written["benchmark"].get("question_count")
    assert count in (None, 2)  # a count the file carries matches what it holds
    again = create_project(tmp_path / "elsewhere")
    try:
        reimported = import_rubric(again.engine, read_rubric_source(exported.path), actor="geo")
        assert reimported.questions == 2  # the retired question does not come back as a draft
    finally:
        again.close()
    everything = export_set(project.engine, tmp_path / "all.json", include_retired=True)
    kept = json.loads(everything.path.read_text(encoding="utf-8"))
    assert [q["id"] for q in kept["questions"]] == ["A1", "A2", "A3"] and everything.retired_left_out == []
