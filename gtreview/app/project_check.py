"""Check a whole project and name what is wrong (``gtreview project check``).

Opening a project checks its schema only; this reads everything the store can verify
(``store.integrity``): SQLite's pages, the schema with its indexes and triggers, rows
that point nowhere, and every question version, sign-off and corpus page against the
hash stored with it. Nothing is written, except that an older project is first brought
to the current revision, as opening it would.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from gtreview.store.integrity import project_problems


class ProjectCheck(BaseModel):
    """The project checked and its problems, one line each (none: it is sound)."""

    project: str
    problems: list[str]

    @property
    def ok(self) -> bool:
        return not self.problems


def check_project(folder: Path) -> ProjectCheck:
    """The problems of the project in ``folder``; a folder that is no project, or one that
    cannot be read or migrated, is refused in one line (a ``UserError``)."""
    return ProjectCheck(project=str(folder), problems=project_problems(folder))


__all__ = ["ProjectCheck", "check_project"]
