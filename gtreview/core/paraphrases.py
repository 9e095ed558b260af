"""Paraphrased variants of a question: the rules that tie one to the question it rewords.

A paraphrase is a question of its own in the set (its own id, review and history) that
names its original in ``paraphrase_of`` and asks the same thing in other words. Its
marking is the original's, copied whole, so a model's score on the two is comparable:
a model that learned the geology keeps its score under rewording, one that memorised
the source's sentences loses it. Pure functions on question objects (JSON dicts), so the
validator, the store's use cases and the drafting model share one definition of "the
same rubric".
"""

from __future__ import annotations

import copy
import re
from collections.abc import Collection
from typing import Any

#: What a paraphrase shares with its original: everything the judge marks against.
RUBRIC_FIELDS = (
    "model_answer",
    "principle",
    "gate",
    "components",
    "required_concepts",
    "accepted_variants",
    "indicative_terms",
    "do_not_credit",
    "evidence",
    "calibration",
)
#: Copied when a paraphrase is made (where it sits and how hard it is), not kept in step.
DESCRIPTIVE_FIELDS = ("section", "title", "type", "mode", "difficulty")
_DIGITS = re.compile(r"\D")
_WORD = re.compile(r"\w+")


def normalised_wording(text: str) -> str:
    """The words of ``text``, casefolded, without punctuation: what "the same wording" means."""
    return " ".join(_WORD.findall(text.casefold()))


def same_wording(first: str, second: str) -> bool:
    return normalised_wording(first) == normalised_wording(second)


def _digits(qid: str) -> str:
    return _DIGITS.sub("", qid)


def next_paraphrase_id(original_id: str, taken: Collection[str]) -> str:
    """``Q12-P1``, ``Q12-P2``…: the first free one. The harness keeps only the digits of an
    id, so a candidate whose digits another question already has (``Q12-P1`` and ``Q121``
    are both 121 there) is passed over too: answers would be filed under the wrong question."""
    used_digits = {_digits(qid) for qid in taken if _digits(qid)}
    number = 1
    while True:
        candidate = f"{original_id}-P{number}"
        if candidate not in taken and _digits(candidate) not in used_digits:
            return candidate
        number += 1


def paraphrase_fixture_id(original_id: str, paraphrase_id: str, fixture_id: str) -> str:
    """Fixture ids are unique across a rubric, so a copied fixture is renamed after its
    question: ``Q12-F1`` becomes ``Q12-P1-F1`` (any other id gets the prefix)."""
    stem = fixture_id.removeprefix(f"{original_id}-")
    return f"{paraphrase_id}-{stem}"


def derived_rubric(original: dict[str, Any], paraphrase_id: str) -> dict[str, Any]:
    """The rubric fields a paraphrase of ``original`` has: copies, fixtures renamed."""
    original_id = str(original.get("id", ""))
    shared = {key: copy.deepcopy(original[key]) for key in RUBRIC_FIELDS if key in original}
    fixtures = shared.get("calibration")
    if isinstance(fixtures, list):
        for fixture in fixtures:
            if isinstance(fixture, dict) and isinstance(fixture.get("fixture_id"), str):
                fixture["fixture_id"] = paraphrase_fixture_id(original_id, paraphrase_id, fixture["fixture_id"])
    return shared


def new_paraphrase(original: dict[str, Any], paraphrase_id: str, wording: str) -> dict[str, Any]:
    """A paraphrase of ``original`` in the original's key order: its id, its wording, the
    original's rubric and description, and ``paraphrase_of``. Extension keys (``x_…``:
    the original's drafting provenance, flags) are the original's own and stay behind."""
    content: dict[str, Any] = {"id": paraphrase_id}
    shared = derived_rubric(original, paraphrase_id)
    for key, value in original.items():
        if key == "question":
            content["question"] = wording
        elif key in shared:
            content[key] = shared[key]
        elif key in DESCRIPTIVE_FIELDS:
            content[key] = copy.deepcopy(value)
    content.setdefault("question", wording)
    content["paraphrase_of"] = str(original.get("id", ""))
    return content


def rubric_differs(paraphrase: dict[str, Any], original: dict[str, Any]) -> list[str]:
    """The rubric fields in which ``paraphrase`` no longer matches ``original`` (empty: in step)."""
    expected = derived_rubric(original, str(paraphrase.get("id", "")))
    return [key for key in RUBRIC_FIELDS if paraphrase.get(key) != expected.get(key)]


def brought_up_to_date(paraphrase: dict[str, Any], original: dict[str, Any]) -> dict[str, Any]:
    """``paraphrase`` with the original's current rubric, keeping its own wording, id,
    description and any other key it has."""
    updated = copy.deepcopy(paraphrase)
    shared = derived_rubric(original, str(paraphrase.get("id", "")))
    for key in RUBRIC_FIELDS:
        if key in shared:
            updated[key] = shared[key]
        else:
            updated.pop(key, None)
    return updated


def paraphrases_of(questions: list[dict[str, Any]], original_id: str) -> list[str]:
    """The ids of the questions that name ``original_id`` as their original, in set order."""
    return [str(q.get("id")) for q in questions if q.get("paraphrase_of") == original_id]
