"""A flipped bit in a stored question version is caught wherever the version leaves the
project or is vouched for: export, approval, sign-off, a pass, a release. ``PRAGMA
integrity_check`` says ok (the page is sound, the text is not); the content hash says
otherwise, and the refusal is one line naming the version."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

from gtreview.app import workflow
from gtreview.app.releases import create_release_bundle
from gtreview.app.rubrics import export_set
from gtreview.core.rubric import Rubric
from gtreview.report.release import ReleaseError
from gtreview.report.signing import ensure_reviewer_key
from gtreview.store import sets
from gtreview.store.db import reading, unit_of_work
from gtreview.store.project import create_project
from gtreview.store.sets import DamagedVersionError
from gtreview.store.settings_repo import APPROVAL_REQUIRES_CALIBRATION, set_setting
from tests.rubric_factory import rubric

DAMAGED_A2 = r"set 1 question A2 version 1 is damaged: its stored content no longer matches its content hash \w{12}"


@pytest.fixture()
def project(tmp_path: Path) -> Iterator[tuple[Engine, Path]]:
    opened = create_project(tmp_path / "project")
    with unit_of_work(opened.engine) as tx:
        sets.import_rubric(
            tx, Rubric.model_validate(rubric(3)), source_name="r.json", source_sha256="s", actor="importer"
        )
    with unit_of_work(opened.engine) as tx:
        set_setting(tx, APPROVAL_REQUIRES_CALIBRATION, False)
    yield opened.engine, opened.db_path
    opened.close()


def flip_a_bit(db_path: Path, qid: str = "A2", column: str = "content_json") -> None:
    """One bit of one character of the question's stored text, as a failing disk would."""
    connection = sqlite3.connect(db_path)
    (version_id, stored) = connection.execute(
        f"SELECT v.id, v.{column} FROM question_version v JOIN question q ON q.id = v.question_id WHERE q.qid = ?",
        (qid,),
    ).fetchone()
    at = stored.index('"question": "') + len('"question": "')
    damaged = stored[:at] + chr(ord(stored[at]) ^ 1) + stored[at + 1 :]
    connection.execute(f"UPDATE question_version SET {column} = ? WHERE id = ?", (damaged, version_id))
    connection.commit()
    assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    connection.close()


def test_an_export_refuses_a_damaged_version_and_keeps_the_previous_file(
    project: tuple[Engine, Path], tmp_path: Path
) -> None:
    engine, db_path = project
    out = tmp_path / "rubric.json"
    export_set(engine, out)
    good = out.read_bytes()
    flip_a_bit(db_path)
    for format in ("json", "md"):
        with pytest.raises(DamagedVersionError, match=DAMAGED_A2) as info:
            export_set(engine, out, format=format)
        assert "\n" not in str(info.value) and info.value.exit_status == 2
    assert out.read_bytes() == good
    with reading(engine) as session:
        assert sets.load_question(session, 1, "A1").id == "A1"  # the sound questions still open


def test_the_cli_export_exits_2_in_one_line(project: tuple[Engine, Path], tmp_path: Path) -> None:
    _, db_path = project
    flip_a_bit(db_path)
    out = tmp_path / "o.json"
    result = subprocess.run(
        [sys.executable, "-m", "gtreview.cli", "rubric", "export", "-o", str(out), "--project", str(db_path.parent)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2 and not out.exists()
    assert result.stderr.startswith("gtreview: error: set 1 question A2 version 1 is damaged")
    assert len(result.stderr.splitlines()) == 1


def test_approval_and_sign_off_refuse_a_damaged_version(project: tuple[Engine, Path]) -> None:
    engine, db_path = project
    workflow.approve(engine, 1, "A1", reviewer="geo")
    workflow.approve(engine, 1, "A3", reviewer="geo")
    workflow.approve(engine, 1, "A2", reviewer="geo")
    flip_a_bit(db_path)
    with pytest.raises(DamagedVersionError, match=DAMAGED_A2):
        workflow.sign_off(engine, 1, reviewer="Dr Geo")
    with reading(engine) as session:
        assert sets.list_signoffs(session, 1) == []
    with pytest.raises(DamagedVersionError, match=DAMAGED_A2):
        workflow.reopen(engine, 1, "A2", reviewer="geo")  # no audit entry vouches for the damaged text
    with pytest.raises(DamagedVersionError, match=DAMAGED_A2):
        workflow.frozen_rubric(engine, 1)  # what a pass over the set would run


def test_a_damaged_hash_is_caught_as_well_as_damaged_text(project: tuple[Engine, Path]) -> None:
    engine, db_path = project
    connection = sqlite3.connect(db_path)
    connection.execute("UPDATE question_version SET content_hash = '0' || substr(content_hash, 2) WHERE id = 2")
    connection.commit()
    connection.close()
    with pytest.raises(DamagedVersionError, match=r"set 1 question A2 version 1 is damaged"):
        with reading(engine) as session:
            sets.export_rubric(session, 1)


def test_a_release_of_a_damaged_sign_off_is_one_line(project: tuple[Engine, Path], tmp_path: Path) -> None:
    engine, db_path = project
    for qid in ("A1", "A2", "A3"):
        workflow.approve(engine, 1, qid, reviewer="geo")
    workflow.sign_off(engine, 1, reviewer="Dr Geo")
    connection = sqlite3.connect(db_path)
    connection.execute("DROP TRIGGER set_signoff_no_update")  # a failing disk heeds no trigger
    connection.execute("UPDATE set_signoff SET rubric_json = substr(rubric_json, 2)")  # no longer JSON
    connection.commit()
    connection.close()
    ensure_reviewer_key("geo", tmp_path / "keys")
    with pytest.raises(ReleaseError, match=r"sign-off 1's stored rubric does not match its hash"):
        create_release_bundle(engine, 1, key="geo", key_dir=tmp_path / "keys", out_dir=tmp_path / "bundle")
    assert not (tmp_path / "bundle").exists()
