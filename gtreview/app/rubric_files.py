"""Reading a rubric file the user names, and checking it, before any project is opened.

Every front-end that takes a rubric file (``gtreview rubric validate|import|locators``,
``run --rubric``, ``export --rubric``, ``harness import``, a file dialog) reads it
here, so a file that cannot be read is the same one line everywhere: the file's name
and why. Nothing here touches the store, so ``rubric validate`` starts without
loading SQLAlchemy and works with no project at all.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from gtreview.core.errors import UserError
from gtreview.core.findings import Finding, count_errors, count_warnings
from gtreview.core.rubric import Rubric
from gtreview.core.rubric_text import RubricReadError
from gtreview.interop.rubric_files import RubricFile, read_rubric_file, to_rubric


class RubricFileError(UserError):
    """A rubric file that cannot be read or modelled; the message names the file."""


class RubricValidation(BaseModel):
    """What ``rubric validate`` found: every finding, and how many of each kind."""

    file: Path
    questions: int
    errors: int
    warnings: int
    findings: list[Finding]

    @property
    def ok(self) -> bool:
        """Warnings alone do not fail a rubric; an error does."""
        return self.errors == 0


class RubricSource(BaseModel):
    """A rubric file read and modelled, with the findings and hash an import keeps."""

    path: Path
    sha256: str
    rubric: Rubric
    findings: list[Finding]
    text: str = ""  # the file as read, kept with an imported set for its exports

    @property
    def errors(self) -> int:
        return count_errors(self.findings)

    @property
    def warnings(self) -> int:
        return count_warnings(self.findings)


def _read(path: Path) -> RubricFile:
    try:
        return read_rubric_file(path)
    except RubricReadError as exc:
        raise RubricFileError(f"{path}: {exc}") from None


def _model(path: Path, rubric_file: RubricFile) -> Rubric:
    try:
        return to_rubric(rubric_file)
    except RubricReadError as exc:
        raise RubricFileError(f"{path}: {exc}") from None


def validate_rubric_file(path: Path) -> RubricValidation:
    """Check every rule of the file; only a file that cannot be read at all raises."""
    rubric_file = _read(path)
    questions = rubric_file.data.get("questions")
    return RubricValidation(
        file=path,
        questions=len(questions) if isinstance(questions, list) else 0,
        errors=count_errors(rubric_file.findings),
        warnings=count_warnings(rubric_file.findings),
        findings=rubric_file.findings,
    )


def read_rubric_source(path: Path) -> RubricSource:
    """The typed rubric with its findings and file hash (what an import records)."""
    rubric_file = _read(path)
    return RubricSource(
        path=path,
        sha256=rubric_file.sha256,
        rubric=_model(path, rubric_file),
        findings=rubric_file.findings,
        text=rubric_file.text,
    )


def read_rubric(path: Path) -> Rubric:
    """The typed rubric in ``path``; a file that cannot be read is one line naming it."""
    return _model(path, _read(path))
