"""A native abort in the model during calibration or drafting: the use case records it
as the failure it is, in one line, and the calling process (the GUI's, the CLI's)
carries on. The model runs in a worker child whose backend aborts on every call."""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterator
from pathlib import Path

import pytest

from gtreview.app.drafting import draft_from_project
from gtreview.app.question_calibration import calibrate_questions, latest_calibration
from gtreview.app.sample_project import ensure_sample_project
from gtreview.inference.backend import Sampling
from gtreview.inference.worker import WorkerBackend
from gtreview.judging.pointwise import JudgeSettings
from gtreview.store import sets
from gtreview.store.db import reading
from gtreview.store.project import Project
from tests.inference.crashing_backend import ABORT_MARKER, open_crashing

DIED = "model worker died (signal SIGABRT)"


def children() -> set[int | None]:
    return {p.pid for p in multiprocessing.active_children()}


@pytest.fixture()
def project(tmp_path: Path) -> Iterator[Project]:
    project = ensure_sample_project(tmp_path / "sample")
    yield project
    project.close()


@pytest.fixture()
def aborting(tiny_gguf: Path) -> Iterator[WorkerBackend]:
    """A worker whose child aborts (SIGABRT, as a failed GGML_ASSERT) on every call."""
    before = children()
    backend = WorkerBackend(
        f"llama:{tiny_gguf}?ctx=1024&seq=2&threads=2", opener=open_crashing, overrides={"crash_always": ABORT_MARKER}
    )
    yield backend
    backend.close()
    assert children() == before


def test_an_abort_while_calibrating_is_recorded_per_fixture(project: Project, aborting: WorkerBackend) -> None:
    with reading(project.engine) as session:
        set_id = sets.list_sets(session)[0].id
    settings = JudgeSettings(reasks=1, sampling=Sampling(max_tokens=8))
    (result,) = calibrate_questions(project.engine, aborting, set_id, ["A1"], settings=settings)
    assert not result.reproduced and result.fixtures
    for fixture in result.fixtures:
        assert not fixture.reproduced and fixture.judged_total is None
        assert DIED in fixture.reason and "\n" not in fixture.reason
    stored = latest_calibration(project.engine, set_id, "A1")
    assert stored is not None and stored[1] == result  # the failed calibration is kept, as any other


def test_an_abort_while_drafting_is_recorded_as_failures(project: Project, aborting: WorkerBackend) -> None:
    from gtreview.authoring.pipeline import NothingToSaveError, save_drafts

    result = draft_from_project(project.engine, aborting, n_questions=2, context_chars=2000)
    assert result.drafts == [] and result.failures
    for failure in result.failures:
        assert DIED in failure.reason and "\n" not in failure.reason
    with pytest.raises(NothingToSaveError, match=DIED.replace("(", r"\(").replace(")", r"\)")):
        save_drafts(project.engine, result, set_name="crashed draft", actor="t")
