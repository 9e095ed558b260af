"""Rubrics and the project's sets: importing a file as a set, exporting a set, and
resolving a rubric's evidence locators against the project corpus.

An import says at once which evidence locators do not resolve in the corpus, so the
expert learns of a citation gone wrong when the set arrives, not when a question is
reviewed. Reading the file is :mod:`gtreview.app.rubric_files`' job, done before the
project is opened.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel
from sqlalchemy import Engine

from gtreview.app.review import EvidenceCheck, check_rubric_evidence, checks_locators, corpus_index
from gtreview.app.rubric_files import RubricFileError, RubricSource
from gtreview.core.changes import OpChanges
from gtreview.core.errors import UserError
from gtreview.core.rubric import Rubric, rubric_to_json_text
from gtreview.corpus.locators import CorpusIndex
from gtreview.files import write_text_atomic
from gtreview.interop.grading_guide import render_grading_guide
from gtreview.store import sets
from gtreview.store.db import reading, unit_of_work

ExportFormat = Literal["json", "md"]


class SetChoiceError(UserError):
    """No set, or no single set, to act on."""


class LocatorReport(BaseModel):
    """Every evidence locator of a rubric, resolved or with the reason it is not."""

    checks: list[EvidenceCheck]

    @property
    def unresolved(self) -> list[EvidenceCheck]:
        return [c for c in self.checks if not c.resolution.resolved]

    @property
    def resolved(self) -> int:
        return len(self.checks) - len(self.unresolved)


class RubricImport(BaseModel):
    """The new set (or the set already imported from the same file), the file's findings,
    and the locators the corpus cannot resolve."""

    set_id: int
    questions: int
    errors: int
    warnings: int
    locators: LocatorReport
    already_in_project: bool = False  # the same file was imported before: nothing was added
    set_name: str = ""

    corpus_checked: bool = True  # the project has documents to check the locators against

    def findings_text(self) -> str:
        """The set's findings as the question list counts them: the file's errors and,
        once the project has a corpus, one error per evidence locator it does not resolve
        (the one wording of the CLI and the app)."""
        if not self.corpus_checked:
            return (
                f"{self.errors} errors, {self.warnings} warnings; no corpus yet: its "
                f"{len(self.locators.checks)} evidence locators are checked once one is imported"
            )
        unresolved = len(self.locators.unresolved)
        of_them = f" ({unresolved} of them evidence locators the corpus does not resolve)" if unresolved else ""
        return f"{self.errors + unresolved} errors{of_them}, {self.warnings} warnings"

    @property
    def changes(self) -> OpChanges:
        return OpChanges(sets=frozenset({self.set_id}))


class RubricExport(BaseModel):
    set_id: int
    format: ExportFormat
    path: Path
    retired_left_out: list[str] = []  # the retired questions the file does not hold


def check_locators(engine: Engine, rubric: Rubric, index: CorpusIndex | None = None) -> LocatorReport:
    """Resolve every evidence locator of ``rubric`` against the project's documents."""
    return LocatorReport(checks=check_rubric_evidence(index or corpus_index(engine), rubric))


def import_rubric(engine: Engine, source: RubricSource, *, actor: str, as_new: bool = False) -> RubricImport:
    """Store the rubric as a new set (every question in draft) and check its locators.

    Importing is idempotent: a file already imported (same sha256) adds nothing and says
    which set it is, so an import rerun after it was killed, or two run at once, leaves
    one set. ``as_new`` asks for a second, independent copy anyway.
    """
    already = False
    try:
        with unit_of_work(engine) as tx:
            set_id = sets.import_rubric(
                tx,
                source.rubric,
                source_name=source.path.name,
                source_sha256=source.sha256,
                actor=actor,
                source_text=source.text or None,
                if_absent=not as_new,
            )
    except sets.SetAlreadyImportedError as exc:
        set_id, already = exc.set_id, True
    except sets.SetImportError as exc:
        raise RubricFileError(f"{source.path}: {exc}") from None
    index = corpus_index(engine)
    locators = check_locators(engine, source.rubric, index)
    with reading(engine) as session:
        return RubricImport(
            set_id=set_id,
            questions=len(source.rubric.questions),
            errors=source.errors,
            warnings=source.warnings,
            locators=locators,
            corpus_checked=checks_locators(index),
            already_in_project=already,
            set_name=next((s.name for s in sets.list_sets(session) if s.id == set_id), ""),
        )


def chosen_set(engine: Engine, set_id: int | None) -> int:
    """``set_id`` when the project has it; with None, the project's only set."""
    with reading(engine) as session:
        summaries = sets.list_sets(session)
    if set_id is None:
        if len(summaries) != 1:
            raise SetChoiceError(f"the project has {len(summaries)} sets; name one with --set")
        return summaries[0].id
    if set_id not in {s.id for s in summaries}:
        raise SetChoiceError(f"the project has no set {set_id}")
    return set_id


def export_set(
    engine: Engine,
    out: Path,
    *,
    set_id: int | None = None,
    format: ExportFormat = "json",
    include_retired: bool = False,
) -> RubricExport:
    """Write the set's current versions as a rubric file (json) or a grading guide (md).

    Retired questions are left out (the file has no place to say a question is retired:
    imported again, one would come back as a draft), unless ``include_retired``. A set
    nobody edited or retired from is written as the file it was imported from, byte for
    byte; an edited one in that file's layout (indentation, one-line objects, line ends)."""
    from gtreview.app.workflow import frozen_rubric

    chosen = chosen_set(engine, set_id)
    with reading(engine) as session:
        everything = sets.export_rubric(session, chosen)
    rubric = everything if include_retired else frozen_rubric(engine, chosen)
    kept = {q.id for q in rubric.questions}
    retired = [q.id for q in everything.questions if q.id not in kept]
    if format == "md":
        text = render_grading_guide(rubric)
    else:
        with reading(engine) as session:
            text = rubric_to_json_text(rubric, like=sets.source_text(session, chosen))
    write_text_atomic(out, text)
    return RubricExport(set_id=chosen, format=format, path=out, retired_left_out=retired)
