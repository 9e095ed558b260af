"""A question's place in its set: what its findings need from the other questions
(``core.validation.validate_in_set``), read off the GUI thread and held with the
question, so the editor's live findings, the question list and ``rubric validate`` agree."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine

from gtreview.core.findings import Finding
from gtreview.core.validation import SetIndex, validate_in_set
from gtreview.store import sets
from gtreview.store.db import reading


@dataclass(frozen=True)
class InSet:
    questions: Sequence[dict[str, Any]]  # the set in order (others may be cut to what the check reads)
    position: int  # the question's
    index: SetIndex | None = None  # made once when a whole set's rows are checked

    def findings(self, content: dict[str, Any]) -> list[Finding]:
        """``content`` (the question's, saved or being typed) checked as a question of its set."""
        if self.index is not None and self.questions[self.position] is content:
            return validate_in_set(self.questions, self.position, "$", self.index)
        questions = [*self.questions[: self.position], content, *self.questions[self.position + 1 :]]
        return validate_in_set(questions, self.position)


def alone(content: dict[str, Any]) -> InSet:
    """A question outside any set (or whose set is not read yet): its own findings only."""
    return InSet([content], 0)


def whole_set(contents: Sequence[dict[str, Any]]) -> list[InSet]:
    """Each question of a set read whole, with one index for them all."""
    index = SetIndex.of(contents)
    return [InSet(contents, position, index) for position in range(len(contents))]


def cut(content: dict[str, Any]) -> dict[str, Any]:
    """What the check reads of another question: its id, what it paraphrases, its fixture ids."""
    kept: dict[str, Any] = {key: content[key] for key in ("id", "paraphrase_of") if key in content}
    fixtures = content.get("calibration")
    if isinstance(fixtures, list):
        kept["calibration"] = [{"fixture_id": f.get("fixture_id")} if isinstance(f, dict) else f for f in fixtures]
    return kept


def read_in_set(engine: Engine, set_id: int, content: dict[str, Any]) -> InSet:
    """The question ``content`` (by its id) in its set as saved: the others cut, the
    original it paraphrases kept whole; alone when the set no longer has it."""
    qid = content.get("id")
    with reading(engine) as session:
        contents = [saved for _summary, saved in sets.current_contents(session, set_id)]
    position = next((n for n, saved in enumerate(contents) if saved.get("id") == qid), None)
    if position is None:
        return alone(content)
    original = content.get("paraphrase_of")
    questions = [
        content if n == position else saved if original is not None and saved.get("id") == original else cut(saved)
        for n, saved in enumerate(contents)
    ]
    return InSet(questions, position)
