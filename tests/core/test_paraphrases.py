"""The paraphrase rules: ids the harness can tell apart, a rubric copied whole, findings."""

from __future__ import annotations

import copy

from gtreview.core.paraphrases import (
    brought_up_to_date,
    new_paraphrase,
    next_paraphrase_id,
    normalised_wording,
    rubric_differs,
)
from gtreview.core.validation import validate_rubric
from tests.rubric_factory import question, rubric


def test_ids_are_the_next_free_ones_whose_digits_the_harness_can_tell_apart() -> None:
    assert next_paraphrase_id("Q12", {"Q12"}) == "Q12-P1"
    assert next_paraphrase_id("Q12", {"Q12", "Q12-P1"}) == "Q12-P2"
    # the harness keeps digits only: Q12-P1 would be 121, which Q121 already is
    assert next_paraphrase_id("Q12", {"Q12", "Q121"}) == "Q12-P2"


def test_wording_is_compared_without_case_spacing_or_punctuation() -> None:
    assert normalised_wording("  Why does GOLD grade fall?\n") == normalised_wording("why does gold  grade fall")


def test_a_paraphrase_copies_the_rubric_renames_fixtures_and_leaves_provenance_behind() -> None:
    original = {**question("Q12"), "x_provenance": {"drafted_by": "anthropic:m"}}
    made = new_paraphrase(original, "Q12-P1", "Reworded?")
    assert made["id"] == "Q12-P1" and made["question"] == "Reworded?" and made["paraphrase_of"] == "Q12"
    for key in ("gate", "components", "required_concepts", "accepted_variants", "do_not_credit", "evidence"):
        assert made[key] == original[key]
    assert made["model_answer"] == original["model_answer"] and made["principle"] == original["principle"]
    assert [f["fixture_id"] for f in made["calibration"]] == ["Q12-P1-F1", "Q12-P1-F2", "Q12-P1-F3"]
    assert [f["response_text"] for f in made["calibration"]] == [f["response_text"] for f in original["calibration"]]
    assert "x_provenance" not in made
    assert rubric_differs(made, original) == []


def test_bringing_up_to_date_keeps_the_wording_and_takes_the_new_rubric() -> None:
    original = question("Q12")
    made = new_paraphrase(original, "Q12-P1", "Reworded?")
    edited = copy.deepcopy(original)
    edited["components"][1]["credit_if"] = "Gold locked in arsenopyrite."
    edited["calibration"][0]["response_text"] = "Another near miss."
    assert rubric_differs(made, edited) == ["components", "calibration"]
    updated = brought_up_to_date(made, edited)
    assert updated["question"] == "Reworded?" and updated["id"] == "Q12-P1"
    assert updated["components"][1]["credit_if"] == "Gold locked in arsenopyrite."
    assert updated["calibration"][0]["fixture_id"] == "Q12-P1-F1"
    assert rubric_differs(updated, edited) == []


def findings_of(data: dict) -> list[tuple[str, str | None, str]]:  # type: ignore[type-arg]
    return [(f.code, f.question_id, f.path) for f in validate_rubric(data) if f.code.startswith("paraphrase-")]


def test_the_validator_names_paraphrases_of_nothing_of_paraphrases_and_stale_ones() -> None:
    data = rubric(1)
    original = data["questions"][0]
    good = new_paraphrase(original, "A1-P1", "How is it that gold grade drops under the water table?")
    assert findings_of({**data, "questions": [original, good]}) == []
    assert [f for f in validate_rubric({**data, "questions": [original, good]}) if f.is_error] == []

    orphan = {**good, "id": "A1-P2", "paraphrase_of": "Z9"}
    chained = {**good, "id": "A1-P3", "paraphrase_of": "A1-P1"}
    same = {**good, "id": "A1-P4", "question": original["question"].upper()}
    stale = copy.deepcopy({**good, "id": "A1-P5"})
    stale["do_not_credit"] = ["Something else."]
    for item in (orphan, chained, same, stale):
        item["calibration"] = [{**f, "fixture_id": f"{item['id']}-{f['fixture_id']}"} for f in item["calibration"]]
    stale_fixed = {**stale, "calibration": new_paraphrase(original, "A1-P5", "x")["calibration"]}
    same_fixed = {**same, "calibration": new_paraphrase(original, "A1-P4", "x")["calibration"]}
    found = findings_of({**data, "questions": [original, good, orphan, chained, same_fixed, stale_fixed]})
    assert ("paraphrase-of-unknown", "A1-P2", "$.questions[2].paraphrase_of") in found
    assert ("paraphrase-of-paraphrase", "A1-P3", "$.questions[3].paraphrase_of") in found
    assert ("paraphrase-same-wording", "A1-P4", "$.questions[4].question") in found
    assert ("paraphrase-rubric-stale", "A1-P5", "$.questions[5]") in found
    assert not any(qid == "A1-P1" for _, qid, _ in found)
