"""Projects for tests, made the one way a user makes one: explicitly, as new."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from gtreview.core.rubric import Question
from gtreview.inference.backend import CompletionBackend
from gtreview.runs.execute import run_pass
from gtreview.runs.plan import PassConfig
from gtreview.store import sets
from gtreview.store.db import reading
from gtreview.store.project import DB_FILE, Project, create_project


def new_project(folder: Path) -> Path:
    """``folder`` as an empty project (as ``gtreview project new`` makes it), unless it is one."""
    if not (folder / DB_FILE).exists():
        create_project(folder).close()
    return folder


def scripted_pass(
    project: Project,
    config: PassConfig,
    open_backend: Callable[[str], CompletionBackend],
    questions: list[Question] | None = None,
) -> int:
    """``config`` run over set 1 (or ``questions`` of it) with scripted backends, every model
    identified by its spec (no model file to hash); the run's id."""
    with reading(project.engine) as session:
        rubric = sets.export_rubric(session, 1)
    patch = pytest.MonkeyPatch()
    patch.setattr("gtreview.runs.execute.spec_identity", lambda spec: {"spec": spec})
    try:
        result = run_pass(
            project.engine,
            config,
            rubric.questions if questions is None else questions,
            rubric_hash="h",
            open_backend=open_backend,
            set_id=1,
            global_variants=rubric.global_variants,
        )
    finally:
        patch.undo()
    return result.run_id
