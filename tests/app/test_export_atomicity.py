"""A write that fails half-way (a full disk) keeps the previous output of ``score -o``,
``compare -o`` and the rubric export whole, and leaves no partial file beside it.
(The PDF, CSV and leaderboard writers are covered in tests/report/test_atomic_writes.py.)"""

from __future__ import annotations

import errno
import json
from pathlib import Path
from typing import Any

import pytest

from gtreview.app.judging import compare_answer_files, score_answer_file
from gtreview.app.rubrics import export_set
from gtreview.core.rubric import Rubric
from gtreview.files import OutputFileError
from gtreview.store import sets
from gtreview.store.db import unit_of_work
from gtreview.store.project import create_project
from tests.app.test_judging import RUBRIC, opener
from tests.rubric_factory import rubric

PREVIOUS = '["the previous good output"]\n'


def write(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.fixture()
def disk_fills_half_way(monkeypatch: pytest.MonkeyPatch) -> None:
    """From now on every text write stores half its text, then the disk is full."""

    def half_then_full(self: Path, data: str, *args: Any, **kwargs: Any) -> int:
        with self.open("w", encoding="utf-8") as handle:
            handle.write(data[: len(data) // 2])
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Path, "write_text", half_then_full)


def files_in(folder: Path) -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in folder.iterdir() if p.is_file()}


def test_a_failed_score_output_keeps_the_previous_one(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    answers = write(tmp_path / "a.json", [{"id": "A1", "answer": "An answer."}])
    out = tmp_path / "out" / "scores.json"
    out.parent.mkdir()
    out.write_text(PREVIOUS, encoding="utf-8")
    request.getfixturevalue("disk_fills_half_way")
    with pytest.raises(OutputFileError, match=r"cannot write .*scores\.json: No space left on device"):
        score_answer_file(RUBRIC, answers, "judge", drift_every=0, output=out, open_backend=opener())
    assert files_in(out.parent) == {"scores.json": PREVIOUS}


def test_a_failed_compare_output_keeps_the_previous_one(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    a = write(tmp_path / "a.json", [{"id": "A1", "answer": "strong answer"}])
    b = write(tmp_path / "b.json", [{"id": "A1", "answer": "weak answer"}])
    out = tmp_path / "out" / "pairs.json"
    out.parent.mkdir()
    out.write_text(PREVIOUS, encoding="utf-8")
    request.getfixturevalue("disk_fills_half_way")
    with pytest.raises(OutputFileError, match=r"cannot write .*pairs\.json: No space left on device"):
        compare_answer_files(RUBRIC, a, b, "judge", output=out, open_backend=opener())
    assert files_in(out.parent) == {"pairs.json": PREVIOUS}


@pytest.mark.parametrize("format", ["json", "md"])
def test_a_failed_rubric_export_keeps_the_previous_one(
    tmp_path: Path, request: pytest.FixtureRequest, format: str
) -> None:
    project = create_project(tmp_path / "project")
    try:
        with unit_of_work(project.engine) as tx:
            sets.import_rubric(tx, Rubric.model_validate(rubric(2)), source_name="r.json", source_sha256="s", actor="t")
        out = tmp_path / "out" / f"rubric.{format}"
        out.parent.mkdir()
        export_set(project.engine, out, format=format)  # type: ignore[arg-type]
        good = out.read_text(encoding="utf-8")
        request.getfixturevalue("disk_fills_half_way")
        with pytest.raises(OutputFileError, match=rf"cannot write .*rubric\.{format}: No space left on device"):
            export_set(project.engine, out, format=format)  # type: ignore[arg-type]
        assert files_in(out.parent) == {f"rubric.{format}": good}
    finally:
        project.close()
