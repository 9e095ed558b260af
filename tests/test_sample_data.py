"""The shipped sample: a realistic corpus with planted problems and a clean set over it."""

import json
from collections import Counter
from pathlib import Path

import pytest

from gtreview.app.corpus_import import collect_files, parse_files
from gtreview.app.sample_project import SAMPLE_CORPUS_FOLDERS, ensure_sample_project, sample_rubric_path
from gtreview.core.corpus import ParsedDocument
from gtreview.core.rubric import rubric_from_json_text, rubric_to_json_text
from gtreview.core.validation import validate_rubric
from gtreview.corpus.locators import CorpusIndex
from gtreview.interop.grading_guide import render_grading_guide
from gtreview.paths import sample_corpus_dir
from gtreview.store import sets
from gtreview.store.corpus_repo import list_documents
from gtreview.store.db import reading

ROOT = sample_corpus_dir()


@pytest.fixture(scope="module")
def documents() -> list[ParsedDocument]:
    return parse_files(collect_files([ROOT / name for name in SAMPLE_CORPUS_FOLDERS]))


@pytest.fixture(scope="module")
def rubric_data() -> dict:  # type: ignore[type-arg]
    return json.loads(sample_rubric_path().read_text(encoding="utf-8"))


def test_corpus_size_and_shape(documents: list[ParsedDocument]) -> None:
    reports = [d for d in documents if d.name.startswith("reports/")]
    assert len(reports) >= 6
    assert sum(len(d.pages) for d in reports) >= 30
    assert all(len(d.pages) >= 2 for d in reports)
    tables = [d for d in documents if d.is_table]
    assert tables and all(len({r.key for r in t.rows}) == len(t.rows) for t in tables)


def test_rubric_is_clean_and_round_trips(rubric_data: dict) -> None:  # type: ignore[type-arg]
    assert validate_rubric(rubric_data) == []
    text = sample_rubric_path().read_text(encoding="utf-8")
    assert rubric_to_json_text(rubric_from_json_text(text)) == text
    questions = rubric_data["questions"]
    assert len(questions) >= 8
    assert len({q["section"] for q in questions}) >= 3
    assert {q["difficulty"] for q in questions} >= {"Easy", "Moderate", "Hard"}
    assert all(len(q["calibration"]) >= 3 and q["evidence"] for q in questions)


def test_every_locator_resolves_to_text_that_supports_its_claim(
    rubric_data: dict,  # type: ignore[type-arg]
    documents: list[ParsedDocument],
) -> None:
    index = CorpusIndex(documents)
    for question in rubric_data["questions"]:
        for item in question["evidence"]:
            resolution = index.resolve(item["source"], item["locator"])
            assert resolution.resolved, (question["id"], item["locator"], resolution.reason)
            cited = " ".join([s.text for s in resolution.spans] + [v for c in resolution.cells for v in c.values])
            assert cited.strip(), (question["id"], item["locator"])


def test_planted_duplicate_is_verbatim(documents: list[ParsedDocument]) -> None:
    planted = json.loads((ROOT / "planted.json").read_text(encoding="utf-8"))
    index = CorpusIndex(documents)
    texts = []
    for place in planted["duplicate"]["occurrences"]:
        resolution = index.resolve(place["source"], f"page={place['page']}, lines={place['lines']}")
        assert resolution.resolved
        texts.append(resolution.spans[0].text)
    assert len(texts) == 2 and texts[0] == texts[1]
    assert texts[0].startswith(planted["duplicate"]["passage_first_line"])


def test_planted_contradictions_and_variants_are_in_the_text(documents: list[ParsedDocument]) -> None:
    planted = json.loads((ROOT / "planted.json").read_text(encoding="utf-8"))
    index = CorpusIndex(documents)
    assert len(planted["contradictions"]) >= 1
    for contradiction in planted["contradictions"]:
        values = contradiction["values"]
        assert len({v["source"] for v in values}) >= 2
        for value in values:
            document = index.match(value["source"])
            assert document is not None
            page = next(p for p in document.pages if p.number == value["page"])
            assert value["text"] in " ".join(page.lines[value["line"] - 1 : value["line"] + 1]), value
    full_text = "\n".join("\n".join(p.lines) for d in documents for p in d.pages)
    assert len(planted["variants"]) >= 3
    for family in planted["variants"]:
        spelled = Counter(v for v in family["variants"] if v.split("'")[0].split()[0] in full_text)
        assert len(spelled) >= 2, family["canonical"]
    assert len(planted["ocr_noisy_sources"]) >= 2


def test_shipped_grading_guide_is_current() -> None:
    rubric = rubric_from_json_text(sample_rubric_path().read_text(encoding="utf-8"))
    guide = sample_rubric_path().with_suffix(".md").read_text(encoding="utf-8")
    assert guide == render_grading_guide(rubric), "re-render with: gtreview rubric export --format md"


def test_sample_project_bootstrap_is_idempotent(tmp_path: Path) -> None:
    project = ensure_sample_project(tmp_path / "sample")
    project.close()
    project = ensure_sample_project(tmp_path / "sample")
    try:
        with reading(project.engine) as session:
            summaries = sets.list_sets(session)
        assert len(summaries) == 1 and summaries[0].question_count >= 8
        with reading(project.engine) as session:
            assert len(list_documents(session)) >= 8
    finally:
        project.close()
