"""Validation findings: what is wrong, where, and how badly."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"


class Finding(BaseModel):
    """One rule broken by a rubric.

    ``code`` is stable across releases so scripts and the UI can key on it;
    ``path`` is a JSONPath into the file (``$.questions[2].components[0].points``).
    """

    model_config = ConfigDict(frozen=True)

    code: str
    severity: Severity
    question_id: str | None
    path: str
    message: str

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    def one_line(self) -> str:
        where = f"[{self.question_id}] " if self.question_id else ""
        return f"{self.severity.value}: {self.code}: {where}{self.path}: {self.message}"


def count_errors(findings: list[Finding]) -> int:
    return sum(1 for f in findings if f.is_error)


def count_warnings(findings: list[Finding]) -> int:
    return sum(1 for f in findings if not f.is_error)
