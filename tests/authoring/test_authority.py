"""The source-authority contract: ranking, the rubric's source_authority list, conflicts."""

import pytest

from gtreview.authoring.authority import (
    AuthorityContract,
    Conflict,
    ConflictValue,
    SourceClass,
    default_contract,
    from_source_authority,
    reorder,
    resolve_conflict,
    resolve_conflicts,
    to_source_authority,
    with_class,
    without_class,
)
from gtreview.core.rubric import Rubric, SourceAuthority
from gtreview.core.validation import validate_rubric
from tests.rubric_factory import rubric


def value(v: str, authority: str, locator: str = "page=1, lines=2") -> ConflictValue:
    return ConflictValue(value=v, source=f"reports/{authority}.txt", locator=locator, authority=authority)


def test_default_ranking_and_the_shipped_sample_shape() -> None:
    contract = default_contract()
    assert contract.keys == ["primary_text", "primary_tables", "ocr_text", "human_summary", "generated"]
    items = [a.to_json_dict() for a in to_source_authority(contract)]
    assert [list(item) for item in items] == [["rank", "source_class", "detail", "note"]] * 5
    assert [item["rank"] for item in items] == [1, 2, 3, 4, 5]
    assert items[0]["source_class"] == "Primary report text"
    data = rubric(1)
    data["source_authority"] = items
    assert not [f for f in validate_rubric(data) if f.is_error]
    assert Rubric.model_validate(data).element_shape.value == "shipped-sample"


def test_the_ranking_is_editable() -> None:
    contract = default_contract()
    swapped = reorder(contract, ["ocr_text", "primary_text", "primary_tables", "human_summary", "generated"])
    assert swapped.rank_of("ocr_text") == 1 and swapped.rank_of("primary_text") == 2
    with pytest.raises(ValueError, match="every class once"):
        reorder(contract, ["ocr_text"])
    field_notes = SourceClass(key="field_notes", label="Field notebooks", detail="d", note="n")
    grown = with_class(contract, field_notes, 2)
    assert grown.keys[:3] == ["primary_text", "field_notes", "primary_tables"]
    assert with_class(grown, field_notes, 99).keys[-1] == "field_notes"  # moved, not duplicated
    assert without_class(grown, "field_notes") == contract
    with pytest.raises(ValueError):
        AuthorityContract(classes=(field_notes, field_notes))
    with pytest.raises(ValueError):
        SourceClass(key="Not A Key", label="x")


def test_a_contract_reads_back_from_either_shape() -> None:
    contract = default_contract()
    assert from_source_authority(to_source_authority(contract)) == contract
    skill = [
        SourceAuthority.model_validate({"rank": 2, "class": "Compiled tables", "notes": "keyed by SAMPLE_NO"}),
        SourceAuthority.model_validate({"rank": 1, "class": "Primary reports"}),
    ]
    read = from_source_authority(skill)
    assert read.keys == ["primary_reports", "compiled_tables"]
    assert read.classes[1].note == "keyed by SAMPLE_NO"


def test_the_higher_ranked_source_resolves_a_conflict_and_the_rule_is_cited() -> None:
    conflict = Conflict(
        subject="water level in the Garibaldi shaft",
        values=(value("180 ft", "human_summary", "page=2, lines=1"), value("186 ft", "primary_text")),
    )
    resolution = resolve_conflict(conflict, default_contract())
    assert resolution.outcome == "resolved_by_authority"
    assert resolution.value == "186 ft" and resolution.chosen == conflict.values[1]
    assert "rank 1 (Primary report text)" in resolution.rule
    assert "rank 4 (Human summaries)" in resolution.rule and "'180 ft'" in resolution.rule
    assert resolution.values == conflict.values  # every value stays on record


def test_co_equal_sources_are_kept_with_attribution() -> None:
    conflict = Conflict(
        subject="yield at 180 ft",
        values=(value("6 dwt", "primary_text"), value("8 dwt", "primary_text"), value("1 oz", "generated")),
    )
    resolution = resolve_conflict(conflict, default_contract())
    assert resolution.outcome == "kept_with_attribution"
    assert resolution.value is None and resolution.chosen is None
    assert "co-equal" in resolution.rule and "'6 dwt'" in resolution.rule and "'8 dwt'" in resolution.rule


def test_an_unranked_source_is_never_guessed_at() -> None:
    conflict = Conflict(subject="s", values=(value("1", "primary_text"), value("2", "hearsay")))
    resolution = resolve_conflict(conflict, default_contract())
    assert resolution.outcome == "kept_with_attribution" and "hearsay" in resolution.rule


def test_agreeing_values_need_no_ranking_and_reordering_changes_the_winner() -> None:
    agree = Conflict(subject="s", values=(value("186 ft", "ocr_text"), value("186  FT", "primary_text")))
    assert resolve_conflict(agree, default_contract()).outcome == "resolved_by_authority"
    conflict = Conflict(subject="s", values=(value("186", "primary_text"), value("168", "ocr_text")))
    ocr_first = reorder(
        default_contract(), ["ocr_text", "primary_text", "primary_tables", "human_summary", "generated"]
    )
    assert resolve_conflict(conflict, default_contract()).value == "186"
    assert [r.value for r in resolve_conflicts([conflict], ocr_first)] == ["168"]
