"""Passages shown to the drafting model, and the per-stage price table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gtreview.authoring.passages import document_chunks, render_passage, select_passages, shown_in, spread_order
from gtreview.authoring.pricing import (
    DEFAULT_PRICES,
    ModelPrice,
    PriceTable,
    PriceTableError,
    StageUsage,
    load_price_table,
    model_names,
    total_cost,
)
from gtreview.corpus.locators import CorpusIndex
from gtreview.corpus.readers import parse_file
from gtreview.inference.backend import CompletionResult
from gtreview.paths import sample_corpus_dir
from tests.authoring.fakes import REPORT, TABLE, corpus


def test_spread_order_visits_the_middle_early() -> None:
    assert spread_order(5) == [0, 2, 1, 3, 4]
    assert spread_order(0) == [] and spread_order(1) == [0]
    for n in (2, 7, 33, 100):
        assert sorted(spread_order(n)) == list(range(n))


def test_every_passage_locator_resolves_to_exactly_its_text() -> None:
    documents = [parse_file(path, str(path.relative_to(sample_corpus_dir()))) for path in _sample_files()]
    index = CorpusIndex(documents)
    chosen = select_passages(documents, max_chars=12_000, chunk_chars=800)
    assert sum(len(p.text) for p in chosen) <= 12_000
    assert {p.document for p in chosen} == {d.name for d in documents}  # every document contributes
    for passage in chosen:
        resolution = index.resolve(
            passage.document, passage.locator if not passage.is_row else f"{passage.locator}, {_column(passage.text)}"
        )
        assert resolution.resolved, resolution.reason
        assert shown_in([passage], resolution) and shown_in(chosen, resolution)
        if not passage.is_row:
            assert resolution.spans[0].text == passage.text
    report_pages = {p.page for p in chosen if p.document.startswith("reports/1903")}
    assert len(report_pages) > 1  # spread over the report, not its first pages only


def _sample_files() -> list[Path]:
    root = sample_corpus_dir()
    return sorted([*root.glob("reports/*"), *root.glob("tables/*.csv")])


def _column(text: str) -> str:
    return text.split("\n")[1].split(":")[0]


def test_lines_are_shown_numbered_and_rows_keyed() -> None:
    report, table = corpus()
    page_one = document_chunks(report)[0]
    shown = render_passage("P1", page_one)
    assert shown.splitlines()[0] == f"[P1] {REPORT} | page 1, lines 1-7"
    assert shown.splitlines()[3] == "3 | The Garibaldi shaft reached water at 186 feet."
    row = document_chunks(table)[1]
    assert row.locator == "SAMPLE_NO=S02" and render_passage("P4", row).splitlines()[0].endswith(
        "(cite as SAMPLE_NO=S02, COLUMN)"
    )
    index = CorpusIndex([report, table])
    assert not shown_in([page_one], index.resolve(REPORT, "page=2, lines=1"))
    assert not shown_in([row], index.resolve(TABLE, "SAMPLE_NO=S01, LEVEL_FT"))
    assert not shown_in([page_one], index.resolve(REPORT, "page=9, lines=1"))


def test_prices_match_model_names_then_specs() -> None:
    table = PriceTable()
    assert table.price_for(["claude-sonnet-4-6", "anthropic:claude-sonnet-4-6"]) == ModelPrice(
        input_per_mtok=3.0, output_per_mtok=15.0
    )
    assert table.price_for(["claude-opus-4-1-20250805"]) == DEFAULT_PRICES["claude-opus-4-1*"]
    assert table.cost(["llama:/models/q.gguf"], 10**6, 10**6) == 0.0
    assert table.cost(["mystery-model", "openai:http://h/v1#mystery-model"], 1, 1) == "unknown"
    assert model_names("anthropic:claude-haiku-4-5", {"model": "claude-haiku-4-5"}) == [
        "claude-haiku-4-5",
        "anthropic:claude-haiku-4-5",
    ]
    assert table.cost(model_names("anthropic:claude-haiku-4-5", {"model": "claude-haiku-4-5"}), 2000, 1000) == 0.007


def test_a_price_file_extends_or_replaces_the_defaults(tmp_path: Path) -> None:
    path = tmp_path / "prices.json"
    path.write_text(json.dumps({"mystery-*": {"input_per_mtok": 1, "output_per_mtok": 2}}))
    assert load_price_table(path).cost(["mystery-model"], 10**6, 10**6) == 3.0
    assert load_price_table(path).price_for(["claude-sonnet-4-6"]) is not None
    assert load_price_table(path, extend_defaults=False).price_for(["claude-sonnet-4-6"]) is None
    path.write_text("[1, 2]")
    with pytest.raises(PriceTableError, match="expected a JSON object"):
        load_price_table(path)
    with pytest.raises(PriceTableError, match=r"missing\.json: no such file"):
        load_price_table(tmp_path / "missing.json")


def test_stage_usage_counts_every_reply() -> None:
    usage = StageUsage(stage="cards")
    usage.add(CompletionResult(text="{}", prompt_tokens=100, completion_tokens=10))
    usage.add(CompletionResult(finish_reason="error", error="HTTP 500"))
    assert (usage.requests, usage.prompt_tokens, usage.completion_tokens, usage.uncounted_requests) == (2, 100, 10, 1)
    priced = usage.priced(PriceTable(prices={"x": ModelPrice(input_per_mtok=10, output_per_mtok=100)}), ["x"])
    assert priced.cost_usd == 0.002 and usage.cost_usd == 0.0
    assert total_cost([priced, priced]) == 0.004
    assert total_cost([priced, usage.priced(PriceTable(prices={}), ["x"])]) == "unknown"


def test_a_deeply_nested_or_endless_price_file_is_one_line(tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000, encoding="utf-8")
    with pytest.raises(PriceTableError, match=r"deep\.json: not valid JSON \(nested deeper than 200 levels\)"):
        load_price_table(deep)
    with pytest.raises(PriceTableError, match=r"/dev/zero: is not a regular file \(a device\)"):
        load_price_table(Path("/dev/zero"))
