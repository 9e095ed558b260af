"""Two writers on one question set (two engines are two processes to SQLite)."""

import sqlite3
from pathlib import Path

import pytest

from gtreview.app import editing
from gtreview.core.rubric import Rubric
from gtreview.store import sets
from gtreview.store.db import BUSY_TIMEOUT_MS, reading, unit_of_work
from gtreview.store.project import DB_FILE, Project, open_project
from tests.projects import new_project
from tests.rubric_factory import rubric


@pytest.fixture()
def two(tmp_path: Path):  # type: ignore[no-untyped-def]
    alice = open_project(new_project(tmp_path / "p"))
    with unit_of_work(alice.engine) as tx:
        set_id = sets.import_rubric(
            tx, Rubric.model_validate(rubric(2)), source_name="r.json", source_sha256="s", actor="setup"
        )
    bob = open_project(new_project(tmp_path / "p"))
    yield alice, bob, set_id
    alice.close()
    bob.close()


def titles(project: Project, set_id: int) -> list[str | None]:
    with reading(project.engine) as session:
        return [
            sets.load_version(session, set_id, "A1", v.version).title for v in sets.list_versions(session, set_id, "A1")
        ]


def test_a_stale_edit_is_refused_naming_the_newer_version_and_keeps_the_text(two) -> None:  # type: ignore[no-untyped-def]
    alice, bob, set_id = two
    editing.apply_edit(bob.engine, set_id, "A1", ("title",), "Bob's title", author="bob", base_version=1)
    with pytest.raises(editing.EditConflictError, match=r"A1 was changed by bob \(now version 2\)") as refused:
        editing.apply_edit(
            alice.engine, set_id, "A1", ("principle",), "Alice's principle", author="alice", base_version=1
        )
    assert "\n" not in str(refused.value)
    assert refused.value.current_version == 2 and refused.value.content["principle"] == "Alice's principle"
    assert titles(alice, set_id) == ["Question A1", "Bob's title"]  # nothing written, bob's value stands
    # made again on the version now shown, it is saved on top of bob's
    saved = editing.apply_edit(
        alice.engine, set_id, "A1", ("principle",), "Alice's principle", author="alice", base_version=2
    )
    with reading(alice.engine) as session:
        current = sets.load_question(session, set_id, "A1")
    assert saved.version == 3 and current.title == "Bob's title" and current.principle == "Alice's principle"


def test_a_stale_whole_question_save_is_refused(two) -> None:  # type: ignore[no-untyped-def]
    alice, bob, set_id = two
    with reading(alice.engine) as session:
        seen = sets.load_question(session, set_id, "A1").to_json_dict()
    editing.apply_edit(bob.engine, set_id, "A1", ("title",), "Bob's title", author="bob")
    with pytest.raises(editing.EditConflictError, match="now version 2"):
        editing.save_content(
            alice.engine, set_id, "A1", {**seen, "model_answer": "Alice's"}, author="alice", base_version=1
        )
    with reading(alice.engine) as session:
        assert sets.load_question(session, set_id, "A1").title == "Bob's title"


def test_a_stale_edit_that_changes_nothing_is_no_conflict(two) -> None:  # type: ignore[no-untyped-def]
    alice, bob, set_id = two
    editing.apply_edit(bob.engine, set_id, "A1", ("title",), "Same", author="bob")
    result = editing.apply_edit(alice.engine, set_id, "A1", ("title",), "Same", author="alice", base_version=1)
    assert result.version == 2


def test_a_unit_of_work_holds_the_write_lock_from_its_start(two) -> None:  # type: ignore[no-untyped-def]
    alice, _bob, _set_id = two
    other = sqlite3.connect(alice.folder / DB_FILE, timeout=0)
    try:
        with unit_of_work(alice.engine):
            with pytest.raises(sqlite3.OperationalError, match="locked"):
                other.execute("BEGIN IMMEDIATE")
        other.execute("BEGIN IMMEDIATE")  # released when the unit of work ends
        other.rollback()
    finally:
        other.close()


def test_writers_wait_for_each_other_rather_than_fail(two) -> None:  # type: ignore[no-untyped-def]
    """The wait is long enough for another writer's batch on a busy machine (5 s was not)."""
    alice, _bob, _set_id = two
    with alice.engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA busy_timeout").scalar() == BUSY_TIMEOUT_MS >= 30_000


def test_an_approval_of_a_version_no_longer_current_is_refused(two) -> None:  # type: ignore[no-untyped-def]
    from gtreview.app import workflow
    from gtreview.store.settings_repo import APPROVAL_REQUIRES_CALIBRATION, set_setting

    alice, bob, set_id = two
    with unit_of_work(alice.engine) as tx:
        set_setting(tx, APPROVAL_REQUIRES_CALIBRATION, False)
    editing.apply_edit(bob.engine, set_id, "A1", ("title",), "Bob's title", author="bob")
    with pytest.raises(sets.ReviewConflictError, match=r"changed by bob \(now version 2\).*not approved"):
        workflow.approve(alice.engine, set_id, "A1", reviewer="alice", version=1)
    with reading(alice.engine) as session:
        statuses = {q.qid: q.review_status for q in sets.list_questions(session, set_id)}
    assert statuses["A1"] is sets.ReviewStatus.DRAFT
    workflow.approve(alice.engine, set_id, "A1", reviewer="alice", version=2)  # the version now shown
    approval = workflow.history(alice.engine, set_id, "A1")[-1]
    assert approval.action == "approved" and approval.version == 2


def test_a_review_decision_is_recorded_only_on_the_version_it_names(two) -> None:  # type: ignore[no-untyped-def]
    """What an approval checked is what it approves: an edit saved between the check and
    the record makes the record refuse."""
    alice, bob, set_id = two
    editing.apply_edit(bob.engine, set_id, "A1", ("title",), "Bob's title", author="bob")
    with pytest.raises(sets.ReviewConflictError, match="now version 2"):
        with unit_of_work(alice.engine) as tx:
            sets.record_review(tx, set_id, "A1", sets.ReviewStatus.APPROVED, actor="a", version=1)


def test_two_processes_setting_new_project_settings_at_once_both_succeed(two) -> None:  # type: ignore[no-untyped-def]
    import threading

    from gtreview.store.settings_repo import get_setting, set_setting

    alice, bob, _set_id = two
    errors: list[BaseException] = []

    def write(engine, value: str) -> None:  # type: ignore[no-untyped-def]
        try:
            for n in range(40):
                with unit_of_work(engine) as tx:
                    set_setting(tx, f"key {n}", value)
        except Exception as exc:  # noqa: BLE001 - any error is what this test looks for
            errors.append(exc)

    threads = [
        threading.Thread(target=write, args=(p.engine, p.folder.name + str(i))) for i, p in enumerate((alice, bob))
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    with reading(alice.engine) as session:
        assert all(get_setting(session, f"key {n}") in {"p0", "p1"} for n in range(40))
