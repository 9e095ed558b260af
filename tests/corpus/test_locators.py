"""Locator resolution: page/line and row/column forms, strict refusals, interop data."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gtreview.core.corpus import LocatorStatus, ParsedDocument
from gtreview.corpus.locators import (
    CorpusIndex,
    match_document,
    resolve_evidence,
    resolve_locator,
)
from gtreview.corpus.readers import parse_bytes, parse_file

REPORT = (
    "=== Page 1 ===\n"
    "Report on the Yudnamutana field\n"
    "\n"
    "=== Page 2 ===\n"
    "The Pinnacles lode is a lenticular body\n"
    "of quartz and iron oxide\n"
    "in marble of the Wywyana Formation.\n"
    "\n"
    "Production was about 75 tonnes.\n"
)

TABLE = (
    "MINERAL_DEPOSIT_NO,DEPOSIT_NAME,MINERAL,WEATHERING_PRODUCT,MINERAL_TYPE\r\n"
    "2047,PINNACLES,Malachite,Y,ORE\r\n"
    "2047,PINNACLES,Calcite,N,GANGUE\r\n"
    '2091,"SMITH, JONES",Chalcopyrite,N,ORE\r\n'
)


@pytest.fixture
def docs() -> list[ParsedDocument]:
    return [
        parse_bytes(REPORT.encode(), "reports/1894_yudnamutana.txt"),
        parse_bytes(TABLE.encode(), "corpus/yudnamutana/mineralogy.csv"),
    ]


# --- page/line forms ------------------------------------------------------------


@pytest.mark.parametrize(
    "locator",
    [
        "page=2, lines=2-3",
        "page = 2 , lines = 2 - 3",
        "p. 2, l. 2-3",
        "p.2 ll.2-3",
        "page 2, lines 2\u20133",
        "Page 2, Lines 2\u20143",
        "book=1894 Yudnamutana report, page=2, lines=2-3",
        "book='Report, 1894', page=2, lines=2-3",
    ],
)
def test_text_forms_resolve_to_the_cited_lines(docs: list[ParsedDocument], locator: str) -> None:
    result = resolve_locator("reports/1894_yudnamutana.txt", locator, docs)
    assert result.resolved, result.reason
    assert result.document == "reports/1894_yudnamutana.txt"
    (span,) = result.spans
    assert (span.page, span.line_start, span.line_end) == (2, 2, 3)
    assert span.text == "of quartz and iron oxide\nin marble of the Wywyana Formation."
    assert result.cells == [] and result.reason == ""


@pytest.mark.parametrize("locator", ["page=2, line=5", "p.2 l.5", "p. 2, l. 5"])
def test_single_line_forms(docs: list[ParsedDocument], locator: str) -> None:
    result = resolve_locator("1894_yudnamutana.txt", locator, docs)
    assert result.resolved
    assert result.spans[0].text == "Production was about 75 tonnes."
    assert (result.spans[0].line_start, result.spans[0].line_end) == (5, 5)


def test_blank_line_is_addressable(docs: list[ParsedDocument]) -> None:
    result = resolve_locator("1894_yudnamutana.txt", "page=1, line=2", docs)
    assert result.resolved and result.spans[0].text == ""


def test_book_names_the_document_when_source_does_not(
    docs: list[ParsedDocument],
) -> None:
    result = resolve_locator("", "book=1894_yudnamutana.txt, page=2, line=1", docs)
    assert result.resolved and result.document == "reports/1894_yudnamutana.txt"


@pytest.mark.parametrize(
    ("locator", "fragment"),
    [
        ("page=3, lines=1-2", "has no page 3 (its pages are 1-2)"),
        ("page=2, lines=4-9", "has 5 lines, so line 4-9 is out of range"),
        ("page=2, line=0", "so line 0 is out of range"),
        ("page=2, lines=3-1", "runs backwards"),
        ("page=2", "is not a form gtreview can resolve"),
        ("second paragraph", "is not a form gtreview can resolve"),
        ("MINERAL=Malachite, MINERAL_TYPE", "is paged text, but the locator names a table row"),
        ("   ", "The locator is empty."),
    ],
)
def test_text_refusals(docs: list[ParsedDocument], locator: str, fragment: str) -> None:
    result = resolve_locator("reports/1894_yudnamutana.txt", locator, docs)
    assert result.status is LocatorStatus.UNRESOLVED
    assert fragment in result.reason
    assert result.spans == [] and result.cells == []
    assert_one_sentence(result.reason)


# --- table forms ----------------------------------------------------------------


def test_key_value_column(docs: list[ParsedDocument]) -> None:
    result = resolve_locator("corpus/yudnamutana/mineralogy.csv", "MINERAL_DEPOSIT_NO=2091, MINERAL", docs)
    assert result.resolved
    (cell,) = result.cells
    assert (cell.row_index, cell.row_key) == (3, "2091")
    assert (cell.columns, cell.values) == (("MINERAL",), ("Chalcopyrite",))


def test_all_rows_with_the_key_value(docs: list[ParsedDocument]) -> None:
    result = resolve_locator("mineralogy.csv", "MINERAL_DEPOSIT_NO=2047, columns MINERAL and MINERAL_TYPE", docs)
    assert result.resolved
    assert [(c.row_index, c.values) for c in result.cells] == [
        (1, ("Malachite", "ORE")),
        (2, ("Calcite", "GANGUE")),
    ]


@pytest.mark.parametrize(
    "locator",
    [
        "MINERAL='Malachite', columns WEATHERING_PRODUCT, MINERAL_TYPE",
        'MINERAL="Malachite", columns WEATHERING_PRODUCT and MINERAL_TYPE',
        "MINERAL=Malachite, column WEATHERING_PRODUCT & MINERAL_TYPE",
        "mineral = Malachite , weathering_product, mineral_type",
    ],
)
def test_other_key_columns_and_column_lists(docs: list[ParsedDocument], locator: str) -> None:
    result = resolve_locator("corpus/yudnamutana/mineralogy.csv", locator, docs)
    assert result.resolved, result.reason
    (cell,) = result.cells
    assert cell.columns == ("WEATHERING_PRODUCT", "MINERAL_TYPE")
    assert cell.values == ("Y", "ORE")


def test_quoted_value_with_comma(docs: list[ParsedDocument]) -> None:
    result = resolve_locator("mineralogy.csv", "DEPOSIT_NAME='SMITH, JONES', MINERAL", docs)
    assert result.resolved and result.cells[0].values == ("Chalcopyrite",)


@pytest.mark.parametrize(
    ("locator", "fragment"),
    [
        ("MINERAL_DEPOSIT_NO=9999, MINERAL", "No row of corpus/yudnamutana/mineralogy.csv"),
        ("MINERAL_DEPOSIT_NO=2047, COLOUR", "has no column 'COLOUR'"),
        ("MINERAL_DEPOSIT_NO=2047, columns MINERAL and COLOUR", "has no column 'COLOUR'"),
        ("DEPOSIT=2047, MINERAL", "has no column 'DEPOSIT'"),
        ("MINERAL in (Malachite, Azurite), column X", "is not a form gtreview"),
        ("MINERAL, substring 'mal' across 2 of 3 rows", "is not a form gtreview"),
        # a known column with a note after it: a form not understood, not a missing column
        ("MINERAL='Malachite', column WEATHERING_PRODUCT (both Y and N rows present)", "is not a form gtreview"),
        ("MINERAL='Malachite', column WEATHERING_PRODUCT (both Y and N rows present)", "a note after the column"),
        ("MINERAL='Malachite', column COLOUR (a note)", "has no column 'COLOUR"),
        ("page=2, lines=1-2", "is a table, but the locator cites a page and lines"),
    ],
)
def test_table_refusals(docs: list[ParsedDocument], locator: str, fragment: str) -> None:
    result = resolve_locator("corpus/yudnamutana/mineralogy.csv", locator, docs)
    assert not result.resolved
    assert fragment in result.reason
    assert result.document == "corpus/yudnamutana/mineralogy.csv"
    assert_one_sentence(result.reason)


# --- documents ------------------------------------------------------------------


def doc_named(name: str) -> ParsedDocument:
    return parse_bytes(b"text\n", name)


def test_match_document_prefers_the_longest_trailing_path() -> None:
    docs = [doc_named(n) for n in ("a/reports/x.txt", "b/reports/x.txt", "b/other/x.txt")]
    assert match_document("b/reports/x.txt", docs) is docs[1]
    assert match_document("other/x.txt", docs) is docs[2]
    assert match_document("reports/x.txt", docs) is None  # a/ and b/ tie
    assert match_document("x.txt", docs) is None
    assert match_document("y.txt", docs) is None
    assert match_document("", docs) is None
    single = [doc_named("corpus/yudnamutana/deposits.txt")]
    assert match_document("elsewhere/deposits.txt", single) is single[0]
    assert match_document("./corpus\\yudnamutana/deposits.txt", single) is single[0]
    assert match_document("corpus/yudnamutana/", single) is None


def test_unknown_and_ambiguous_sources() -> None:
    docs = [doc_named("a/x.txt"), doc_named("b/x.txt")]
    result = resolve_locator("x.txt", "page=1, line=1", docs)
    assert not result.resolved and "matches several documents (a/x.txt, b/x.txt)" in result.reason
    result = resolve_locator("nothing.txt", "page=1, line=1", docs)
    assert not result.resolved and result.document is None
    assert result.reason == "No document in the corpus matches the source 'nothing.txt'."


def test_resolve_evidence_keeps_order(docs: list[ParsedDocument]) -> None:
    items = [
        ("reports/1894_yudnamutana.txt", "page=1, line=1"),
        ("missing.csv", "A=1, B"),
        ("mineralogy.csv", "MINERAL=Calcite, MINERAL_TYPE"),
    ]
    results = resolve_evidence(items, docs)
    assert [(r.source, r.locator) for r in results] == items
    assert [r.resolved for r in results] == [True, False, True]


# --- the Groundtruth interop corpus ------------------------------------------


def test_interop_rubric_evidence(interop_dir: Path) -> None:
    root = interop_dir / "corpus"
    docs = [
        parse_file(path, path.relative_to(root.parent).as_posix())
        for path in sorted((root / "yudnamutana").glob("*.csv"))
    ]
    assert {d.name for d in docs} >= {"corpus/yudnamutana/deposits.csv"}
    deposits = next(d for d in docs if d.name.endswith("deposits.csv"))
    assert len(deposits.rows) == 34 and deposits.key_column == "MINERAL_DEPOSIT_NO"

    rubric = json.loads((interop_dir / "rubrics/Yudnamutana_QA_grading_key.json").read_text("utf-8"))
    evidence = [
        (item["source"], item["locator"]) for question in rubric["questions"] for item in question.get("evidence", [])
    ]
    assert evidence
    index = CorpusIndex(docs)
    row_form = re.compile(r"^MINERAL_DEPOSIT_NO=(\d+), ")
    resolved_keys = set()
    for source, locator in evidence:
        result = index.resolve(source, locator)
        match = row_form.match(locator)
        if match:
            assert result.resolved, (locator, result.reason)
            assert result.document == "corpus/yudnamutana/deposits.csv"
            assert [c.row_key for c in result.cells] == [match.group(1)]
            assert all(v.strip() for c in result.cells for v in c.values)
            resolved_keys.add(match.group(1))
        else:
            assert not result.resolved, locator
            assert_one_sentence(result.reason)
    assert {"2047", "2091", "2046"} <= resolved_keys

    summary = index.resolve("corpus/yudnamutana/deposits.csv", "MINERAL_DEPOSIT_NO=2047, DEPOSIT_SUMMARY")
    assert "Wywyana" in summary.cells[0].values[0]
    both = index.resolve(
        "corpus/yudnamutana/deposits.csv",
        "MINERAL_DEPOSIT_NO=2091, columns DEPOSIT_CLASS and DEPOSIT_SUMMARY",
    )
    assert both.cells[0].columns == ("DEPOSIT_CLASS", "DEPOSIT_SUMMARY")
    minerals = index.resolve("corpus/yudnamutana/mineralogy.csv", "MINERAL_DEPOSIT_NO=2047, MINERAL")
    assert len(minerals.cells) > 1  # several mineralogy rows share one deposit


def assert_one_sentence(reason: str) -> None:
    assert reason and "\n" not in reason and reason.endswith(".")


# --- hostile input ----------------------------------------------------------------

LONG = 100_000


@pytest.mark.parametrize(
    "locator",
    [
        "book=" + "a " * LONG + "x",
        "page=2, lines=" + " " * LONG + "x",
        "MINERAL=Malachite, columns" + " " * LONG + "x",
        "MINERAL=Malachite, MINERAL_TYPE" + " " * LONG + "and" + " " * LONG + "x",
        "MINERAL=Malachite, " + " ," * LONG + "x",
        "MINERAL" + " " * LONG + "x",
    ],
    ids=["book", "lines", "column-prefix", "column-split", "commas", "key"],
)
def test_long_adversarial_locators_are_answered(docs: list[ParsedDocument], locator: str) -> None:
    for source in ("reports/1894_yudnamutana.txt", "mineralogy.csv"):
        result = resolve_locator(source, locator, docs)
        assert result.status is LocatorStatus.UNRESOLVED and result.reason


def test_column_list_with_long_runs_of_spaces_still_resolves(docs: list[ParsedDocument]) -> None:
    locator = "MINERAL=Malachite, columns" + " " * LONG + "MINERAL_TYPE" + " " * LONG + "and WEATHERING_PRODUCT"
    result = resolve_locator("mineralogy.csv", locator, docs)
    assert result.status is LocatorStatus.RESOLVED
    assert result.cells[0].values == ("ORE", "Y")


@pytest.mark.parametrize("digits", ["1234567890", "9" * 5000])
def test_huge_page_or_line_number_is_unresolved_not_a_crash(docs: list[ParsedDocument], digits: str) -> None:
    for locator in (f"page={digits}, lines=1", f"page=2, lines=1-{digits}"):
        result = resolve_locator("reports/1894_yudnamutana.txt", locator, docs)
        assert result.status is LocatorStatus.UNRESOLVED
        assert_one_sentence(result.reason)
