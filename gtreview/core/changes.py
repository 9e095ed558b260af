"""What an intent changed: the value a change hands back so views refresh only that.

Plain frozen data, no Qt: ids, never rows or sessions, so it crosses threads freely. An
intent's result says what it changed itself (a ``changes`` property, see
:class:`Changing`), so the GUI passes it on and never works it out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar, runtime_checkable

T = TypeVar("T")


@dataclass(frozen=True)
class OpChanges:
    """What a change touched, so each view refreshes only that."""

    questions: frozenset[tuple[int, str]] = frozenset()  # (set id, question id): content or status
    sets: frozenset[int] = frozenset()  # membership, ids, sign-offs: the whole set's rows
    runs: frozenset[int] = frozenset()  # passes added, resumed or finished
    adjudications: frozenset[int] = frozenset()  # runs whose expert decisions or grades changed
    corpus: bool = False
    settings: frozenset[str] = frozenset()  # project setting keys

    @classmethod
    def of_questions(cls, set_id: int, *qids: str) -> OpChanges:
        return cls(questions=frozenset((set_id, qid) for qid in qids))

    def __or__(self, other: OpChanges) -> OpChanges:
        return OpChanges(
            questions=self.questions | other.questions,
            sets=self.sets | other.sets,
            runs=self.runs | other.runs,
            adjudications=self.adjudications | other.adjudications,
            corpus=self.corpus or other.corpus,
            settings=self.settings | other.settings,
        )

    @property
    def empty(self) -> bool:
        return self == OpChanges()

    def question_ids(self, set_id: int) -> set[str]:
        return {qid for s, qid in self.questions if s == set_id}


@dataclass(frozen=True)
class OpResult(Generic[T]):
    """A change's own answer (a saved version, a new queue) beside what it changed."""

    value: T
    changes: OpChanges = field(default_factory=OpChanges)


@runtime_checkable
class Changing(Protocol):
    """A result that says what its intent changed."""

    @property
    def changes(self) -> OpChanges: ...


def changes_of(result: object) -> OpChanges:
    if isinstance(result, OpChanges):
        return result
    if isinstance(result, (OpResult, Changing)):
        return result.changes
    return OpChanges()


__all__ = ["Changing", "OpChanges", "OpResult", "changes_of"]
