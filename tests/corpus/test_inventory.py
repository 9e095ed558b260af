"""Corpus inventory: the planted features of the sample corpus, and each detector by hand."""

from __future__ import annotations

import argparse
import json
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from gtreview.app.corpus_import import collect_files, parse_files
from gtreview.cli.corpus import corpus_inventory
from gtreview.cli.main import build_parser
from gtreview.core.corpus import ParsedDocument
from gtreview.core.errors import UserError
from gtreview.corpus.inventory import CorpusInventory, Location, build_inventory, inventory_to_markdown
from gtreview.corpus.inventory.lexicon import edit_similarity, orth_key, phonetic_key
from gtreview.corpus.inventory.quantities import extract_mentions, parse_number
from gtreview.corpus.inventory.text import prepare
from gtreview.corpus.readers import parse_bytes

SAMPLE = Path(__file__).resolve().parents[2] / "sample_corpus"


@pytest.fixture(scope="module")
def sample_documents() -> list[ParsedDocument]:
    return parse_files(collect_files([SAMPLE / "reports", SAMPLE / "tables"]))


@pytest.fixture(scope="module")
def planted() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((SAMPLE / "planted.json").read_text(encoding="utf-8"))
    return data


@pytest.fixture(scope="module")
def inventory(sample_documents: list[ParsedDocument]) -> CorpusInventory:
    start = time.perf_counter()
    result = build_inventory(sample_documents)
    print(f"\ninventory of the sample corpus: {time.perf_counter() - start:.3f} s; stages {result.timings_s}")
    return result


def report(*documents: tuple[str, str]) -> list[ParsedDocument]:
    return [parse_bytes(text.encode("utf-8"), name) for name, text in documents]


# --- the sample corpus: planted features ------------------------------------------


def test_planted_duplicate_is_found_at_both_locations(inventory: CorpusInventory, planted: dict[str, Any]) -> None:
    expected: set[tuple[str, int | None, int | None, int | None]] = set()
    for occurrence in planted["duplicate"]["occurrences"]:
        start, end = (int(n) for n in occurrence["lines"].split("-"))
        expected.add((occurrence["source"], occurrence["page"], start, end))
    found = [
        {(loc.document, loc.page, loc.line_start, loc.line_end) for loc in (d.first, d.second)}
        for d in inventory.duplicates
    ]
    assert expected in found
    duplicate = inventory.duplicates[found.index(expected)]
    assert duplicate.kind == "exact" and duplicate.similarity == 1.0
    assert duplicate.first_text.startswith(planted["duplicate"]["passage_first_line"].split(" It")[0])
    assert len(inventory.duplicates) <= 3  # nothing else in the sample is duplicated at length


def test_planted_variant_families_are_clustered(inventory: CorpusInventory, planted: dict[str, Any]) -> None:
    clusters = [{form.form for form in cluster.forms} for cluster in inventory.variants]
    for family in planted["variants"]:
        wanted = {v for v in family["variants"] if v != "the Indicator"}  # a bare "Indicator" is not linked
        assert any(wanted <= forms for forms in clusters), family["canonical"]
        if "not_to_be_merged_with" in family:
            assert not any(wanted <= forms and family["not_to_be_merged_with"] in forms for forms in clusters)
    assert all(cluster.confirmed is False for cluster in inventory.variants)
    canonicals = {cluster.canonical for cluster in inventory.variants}
    assert {"McLachlan's Reef", "Nullabeen Creek"} <= canonicals


def test_planted_numeric_contradictions_are_found(inventory: CorpusInventory, planted: dict[str, Any]) -> None:
    groups = [
        {(v.location.document, v.location.page, v.location.line_start) for v in conflict.values}
        for conflict in inventory.conflicts
    ]
    for contradiction in planted["contradictions"]:
        expected = {(v["source"], v["page"], v["line"]) for v in contradiction["values"]}
        assert any(expected <= group for group in groups), contradiction["subject"]
    assert len(inventory.conflicts) <= 5  # false positives stay modest
    nugget = next(c for c in inventory.conflicts if "nugget" in c.subject)
    assert sorted(v.value for v in nugget.values) == [134.0, 143.4]  # 143 0z. 8 dwt. read as 143.4 oz
    water = next(c for c in inventory.conflicts if "water" in c.subject)
    assert {v.value for v in water.values} >= {212.0, 186.0, 184.0}
    assert all(0 < c.confidence <= 1 for c in inventory.conflicts)
    assert [c.confidence for c in inventory.conflicts] == sorted(
        (c.confidence for c in inventory.conflicts), reverse=True
    )


def test_a_discursive_document_adds_no_spurious_conflicts(sample_documents: list[ParsedDocument]) -> None:
    """The grading key argues over every planted figure in long paragraphs: it may join
    the planted conflict groups, but must not create new ones."""
    key = SAMPLE / "benchmark" / "Sample_goldfield_grading_key.md"
    inventory = build_inventory([*sample_documents, *parse_files([(key, key.name)])])
    assert len(inventory.conflicts) == 3
    water = next(c for c in inventory.conflicts if "water" in c.subject)
    assert {v.value for v in water.values} == {212.0, 186.0, 184.0}


def test_families_have_the_right_date_ranges_and_issuers(inventory: CorpusInventory) -> None:
    families = {f.folder: f for f in inventory.families}
    assert set(families) == {"reports", "tables"}
    reports, tables = families["reports"], families["tables"]
    assert (reports.kind, reports.year_from, reports.year_to) == ("report", 1868, 1935)
    assert reports.formats == ["markdown", "text"] and len(reports.documents) == 7
    assert (tables.kind, tables.year_from, tables.year_to) == ("table", 1868, 1935)
    assert tables.rows == 47 and tables.formats == ["csv"]
    bodies = {d.name.split("/")[-1][:4]: d.issuing_bodies for d in reports.documents}
    assert "Warden" in bodies["1883"] and "Inspector of Mines" in bodies["1891"]
    assert "Geological Survey" in bodies["1874"] and "Mines Department" in bodies["1912"]
    assert "Mining Surveyor" in bodies["1868"]
    assert "Marlowe 1903" in tables.cited_sources


def test_terminology_and_thin_areas(inventory: CorpusInventory) -> None:
    names = {t.term for t in inventory.terminology.names}
    words = {t.term for t in inventory.terminology.words}
    assert {"Garibaldi", "Prince Alfred", "Western Slide"} <= names
    assert {"reef", "saddle", "shaft", "quartz"} <= words
    assert not {"the", "which", "feet"} & words
    assert "Dunmore" not in names  # a person
    assert len(inventory.terminology.distinctive) == 7
    thin = {a.name: a for a in inventory.thin_areas}
    assert "Sandy Crossing" in thin and thin["Sandy Crossing"].lines == 1
    assert "Garibaldi Reef" not in thin and "Prince Alfred" not in thin


def test_inventory_is_json_serialisable_and_renders(inventory: CorpusInventory) -> None:
    data = json.loads(json.dumps(inventory.model_dump(mode="json")))
    assert CorpusInventory.model_validate(data).conflicts == inventory.conflicts
    markdown = inventory_to_markdown(inventory)
    for heading in ("## 1. Source families", "## 3. Duplicated passages", "## 5. Numeric conflicts", "## Methods"):
        assert heading in markdown
    assert "reports/1874_geological_survey_mount_wirrim_reefs.txt, page=3, lines=4-11" in markdown
    assert "143 0z. 8 dwt." in markdown


def test_large_corpus_stays_fast(sample_documents: list[ParsedDocument]) -> None:
    """Ten renamed copies of the reports (70 documents, about 2,000 passages, every
    passage duplicated ten times: a worst case for the duplicate finder); only
    measured and printed, as timings on shared CI machines vary."""
    copies = [
        document.model_copy(update={"name": f"copy{n}/{document.name}"})
        for n in range(10)
        for document in sample_documents
        if not document.is_table
    ]
    start = time.perf_counter()
    result = build_inventory(copies)
    print(f"\n{len(copies)} documents: {time.perf_counter() - start:.2f} s; stages {result.timings_s}")
    assert result.duplicates  # every copy duplicates every other


# --- hand-made cases ---------------------------------------------------------------

PASSAGE = (
    "The lode was followed for two hundred yards along the strike and was found to carry coarse gold "
    "wherever the quartz was crossed by narrow seams of black slate, the richest stone lying close under "
    "the hanging wall where the slate was most crumpled and shattered."
)


def test_exact_duplicate_found_with_both_line_ranges() -> None:
    wrapped = "\n".join(textwrap.wrap(PASSAGE, 60))
    inventory = build_inventory(
        report(
            ("a.txt", f"=== Page 1 ===\nIntroductory words here.\n\n{PASSAGE}\n\nClosing remark about weather.\n"),
            ("b.txt", f"=== Page 1 ===\nOther opening.\n=== Page 2 ===\nHe wrote:\n{wrapped}\nEnd of the quotation.\n"),
        )
    )
    assert len(inventory.duplicates) == 1
    duplicate = inventory.duplicates[0]
    assert duplicate.kind == "exact"
    assert duplicate.first == Location(document="a.txt", page=1, line_start=3, line_end=3)
    assert (duplicate.second.document, duplicate.second.page, duplicate.second.line_start) == ("b.txt", 2, 2)
    assert duplicate.second.line_end == 1 + len(wrapped.splitlines())


def test_near_duplicate_with_one_word_changed() -> None:
    changed = PASSAGE.replace("coarse gold", "fine gold")
    inventory = build_inventory(report(("a.txt", PASSAGE + "\n"), ("b.txt", changed + "\n")))
    assert len(inventory.duplicates) == 1
    duplicate = inventory.duplicates[0]
    assert duplicate.kind == "near" and 0.9 <= duplicate.similarity < 1.0
    assert duplicate.words == len(PASSAGE.split())


def test_unrelated_text_is_not_a_duplicate() -> None:
    other = "Nothing in this short note shares a run of eight words with the passage about the lode."
    assert build_inventory(report(("a.txt", PASSAGE + "\n"), ("b.txt", other + "\n"))).duplicates == []


def test_mac_mc_variants_cluster_but_different_places_do_not() -> None:
    inventory = build_inventory(
        report(
            ("r1868.txt", "Work began on Macdonald's Reef in the spring. The Wirrim Gully was dry.\n"),
            ("r1874.txt", "The stone of M'Donald's Reef is poor. Water came down the Wirrim Creek.\n"),
            ("r1903.txt", "The shaft on McDonald's Reef is deep. The Wirrim Gully floods in winter.\n"),
        )
    )
    clusters = [{f.form for f in c.forms} for c in inventory.variants]
    assert {"Macdonald's Reef", "M'Donald's Reef", "McDonald's Reef"} in clusters
    assert not any({"Wirrim Gully", "Wirrim Creek"} <= forms for forms in clusters)
    assert orth_key("Maclachlan's Reefs") == orth_key("M'Lachlan's Reef") == orth_key("McLACHLAN'S REEF")
    assert phonetic_key("Nulla Bean") == phonetic_key("Nullabine") == phonetic_key("Nullabeen")
    assert edit_similarity("nullabine", "nullabeen") >= 0.6


def mentions_of(text: str) -> list[tuple[str, float, float, str]]:
    corpus = prepare(report(("a.txt", text)))
    return [(m.measure, round(m.low, 4), round(m.high, 4), m.unit) for m in extract_mentions(corpus.blocks["a.txt"])]


def test_units_are_normalised() -> None:
    assert mentions_of("A nugget weighing 143 0z. 8 dwt. was found.\n") == [("gold", 143.4, 143.4, "oz")]
    assert mentions_of("The stone went 1 oz. 15 dwt. 8 gr. to the ton.\n") == [("grade", 1.7667, 1.7667, "oz/ton")]
    assert mentions_of("The lead runs for 3 1/4 miles.\n") == [("length", 17160.0, 17160.0, "ft")]
    assert mentions_of("It carries from 3 to 6 per cent. of sulphides.\n") == [("percent", 3.0, 6.0, "%")]
    assert mentions_of("A band 8 inches thick was cut at the 300-ft. level.\n") == [("length", 0.6667, 0.6667, "ft")]
    assert parse_number("1,020") == 1020 and parse_number("1 1/4") == 1.25


WATER_1 = "The water level in the Smith Shaft is at {} feet from the surface.\n"
WATER_2 = "Work on the Smith Shaft was resumed. The water stands in the shaft at {} ft. below the collar.\n"


def test_conflict_across_documents_and_none_within_tolerance() -> None:
    conflicting = build_inventory(report(("a.txt", WATER_1.format(100)), ("b.txt", WATER_2.format(140))))
    assert len(conflicting.conflicts) == 1
    conflict = conflicting.conflicts[0]
    assert "water level" in conflict.subject and "Smith" in conflict.subject
    assert [(v.location.document, v.value) for v in conflict.values] == [("a.txt", 100.0), ("b.txt", 140.0)]
    assert conflict.values[0].line_text == WATER_1.format(100).strip()

    close = build_inventory(report(("a.txt", WATER_1.format(100)), ("b.txt", WATER_2.format(103))))
    assert close.conflicts == []


def test_relative_depths_and_other_subjects_are_not_conflicts() -> None:
    inventory = build_inventory(
        report(
            ("a.txt", WATER_1.format(100)),
            ("b.txt", "At the Smith Shaft the stone was mixed for 30 feet below the water level.\n"),
            ("c.txt", "The water level in the Jones Shaft is at 160 feet from the surface.\n"),
        )
    )
    assert inventory.conflicts == []


YIELD = "The crushing of 500 tons from the No. 3 level of the Brown Reef, in 1888, {} {} per ton.\n"


def test_multi_valued_quantities_need_shared_anchors() -> None:
    inventory = build_inventory(
        report(
            ("a.txt", YIELD.format("yielded", "2 oz. 4 dwt.")),
            ("b.txt", YIELD.format("returned", "3 oz.")),
            ("c.txt", "Elsewhere on the Brown Reef the stone averaged 9 dwt. per ton.\n"),
        )
    )
    assert len(inventory.conflicts) == 1
    conflict = inventory.conflicts[0]
    assert {v.location.document for v in conflict.values} == {"a.txt", "b.txt"}
    assert sorted(v.value for v in conflict.values) == [2.2, 3.0]
    assert any("No. 3" in e and "500 tons" in e for e in conflict.evidence)


def test_empty_corpus_gives_an_empty_inventory() -> None:
    inventory = build_inventory([])
    assert inventory.documents == 0 and inventory.families == [] and inventory.conflicts == []
    assert inventory_to_markdown(inventory).startswith("# Corpus inventory")


def test_location_labels() -> None:
    assert Location(document="d", page=3, line_start=4, line_end=11).label() == "d, page=3, lines=4-11"
    assert Location(document="d", page=3, line_start=4, line_end=4).label() == "d, page=3, line=4"
    assert Location(document="t.csv", row_key="C14", column="GOLD_OZ").label() == "t.csv, row C14, GOLD_OZ"


# --- the command ----------------------------------------------------------------------


def inventory_args(project: Path, *extra: str) -> argparse.Namespace:
    return build_parser().parse_args(["corpus", "inventory", "--project", str(project), *extra])


def test_command_prints_markdown_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from gtreview.app.corpus_import import import_corpus
    from gtreview.store.project import create_project

    project = create_project(tmp_path / "project")
    try:
        import_corpus(project.engine, [SAMPLE / "reports", SAMPLE / "tables"])
    finally:
        project.close()
    assert corpus_inventory(inventory_args(tmp_path / "project")) == 0
    assert capsys.readouterr().out.startswith("# Corpus inventory")
    assert corpus_inventory(inventory_args(tmp_path / "project", "--json")) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["ok"] is True and data["documents"] == 9 and len(data["conflicts"]) >= 3


def test_command_refuses_a_project_without_documents(tmp_path: Path) -> None:
    from gtreview.store.project import create_project

    create_project(tmp_path / "empty").close()
    with pytest.raises(UserError) as info:
        corpus_inventory(inventory_args(tmp_path / "empty"))
    assert info.value.exit_status == 2 and "no corpus documents" in str(info.value) and "\n" not in str(info.value)
    with pytest.raises(UserError) as missing:  # a ProjectError, reported by gtreview.cli.main in one line
        corpus_inventory(inventory_args(tmp_path / "nowhere"))
    assert missing.value.exit_status == 2
    assert not (tmp_path / "nowhere").exists()
