"""`gtreview review approve|request-changes|retire|reopen|sign-off`: the review rules from the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gtreview.app import workflow
from gtreview.cli.common import EXIT_OK, EXIT_USAGE, actor
from gtreview.cli.main import main
from gtreview.store import db
from gtreview.store.project import open_project
from gtreview.store.settings_repo import APPROVAL_REQUIRES_CALIBRATION, set_setting
from tests.projects import new_project
from tests.rubric_factory import rubric


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    folder = new_project(tmp_path / "p")
    source = tmp_path / "r.json"
    source.write_text(json.dumps(rubric(3), indent=2), encoding="utf-8")
    assert main(["rubric", "import", str(source), "--project", str(folder)]) == EXIT_OK
    opened = open_project(folder)
    try:
        with db.unit_of_work(opened.engine) as tx:
            set_setting(tx, APPROVAL_REQUIRES_CALIBRATION, False)  # calibration has its own tests
    finally:
        opened.close()
    return folder


def review(capsys: pytest.CaptureFixture[str], project: Path, *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    status = main(["review", *argv, "--project", str(project)])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def trail(project: Path, qid: str) -> list[tuple[str, str, str]]:
    """The question's trail after the import it starts with."""
    opened = open_project(project)
    try:
        origin, *rest = workflow.history(opened.engine, 1, qid)
        assert (origin.action, origin.comment) == ("import", "imported r.json")
        return [(e.actor, e.action, e.comment) for e in rest]
    finally:
        opened.close()


def test_approve_prints_what_changed(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = review(
        capsys, project, "approve", "A1", "--reviewer", "Dr Geo", "--comment", "checked", "--json"
    )
    assert status == EXIT_OK and err == ""
    assert json.loads(out) == {
        "ok": True,
        "set_id": 1,
        "changed": [
            {"set_id": 1, "qid": "A1", "action": "approve", "before": "draft", "after": "approved", "version": 1}
        ],
        "refused": [],
    }
    assert trail(project, "A1") == [("Dr Geo", "approved", "checked")]
    status, out, _ = review(capsys, project, "reopen", "A1")  # the reviewer is the login name by default
    assert status == EXIT_OK and out == "A1: approved -> draft (version 1, set 1)\n"
    assert trail(project, "A1")[-1] == (actor(), "draft", "")


@pytest.mark.parametrize(
    ("command", "message"),
    [
        ("request-changes", "requesting changes needs a comment saying what to change"),
        ("retire", "retiring a question needs a comment saying why"),
    ],
)
def test_a_comment_is_required(project: Path, capsys: pytest.CaptureFixture[str], command: str, message: str) -> None:
    status, out, err = review(capsys, project, command, "A2")
    assert status == EXIT_USAGE and out == ""
    assert err == f"gtreview: error: {message}\n"
    assert trail(project, "A2") == []
    status, out, _ = review(capsys, project, command, "A2", "--comment", "cite the 1883 report")
    assert status == EXIT_OK and out.startswith("A2: draft -> ")


def test_retired_stays_retired(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, _ = review(capsys, project, "retire", "A3", "--comment", "duplicates A2")
    assert status == EXIT_OK
    for command in (["approve"], ["reopen"], ["request-changes", "--comment", "x"], ["retire", "--comment", "x"]):
        status, out, err = review(capsys, project, command[0], "A3", *command[1:])
        assert status == EXIT_USAGE and out == ""
        assert err == "gtreview: error: A3 is retired; retired questions stay retired\n"
    assert [action for _, action, _ in trail(project, "A3")] == ["retired"]


def test_several_questions_are_decided_one_by_one(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    review(capsys, project, "retire", "A2", "--comment", "out of scope")
    status, out, err = review(capsys, project, "approve", "A1", "A2", "A3", "--json")
    assert status == EXIT_USAGE
    assert err == "gtreview: error: A2 is retired; retired questions stay retired\n"
    shown = json.loads(out)
    assert shown["ok"] is False and [c["qid"] for c in shown["changed"]] == ["A1", "A3"]
    assert shown["refused"] == [{"qid": "A2", "error": "A2 is retired; retired questions stay retired"}]


def test_sign_off_is_refused_while_a_question_is_not_approved(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    review(capsys, project, "approve", "A1", "A2")
    status, out, err = review(capsys, project, "sign-off", "--json")
    assert status == EXIT_USAGE
    assert json.loads(out) == {"ok": False, "error": "1 active question is not approved: A3"}
    assert err == "gtreview: error: 1 active question is not approved: A3\n"
    review(capsys, project, "request-changes", "A3", "--comment", "the gate is too lenient")
    status, _, err = review(capsys, project, "sign-off")
    assert status == EXIT_USAGE and err == "gtreview: error: 1 active question is not approved: A3\n"
    review(capsys, project, "retire", "A3", "--comment", "no fix in sight")
    status, out, err = review(capsys, project, "sign-off", "--set", "1", "--reviewer", "Dr Geo", "--comment", "v1")
    assert status == EXIT_OK and err == ""
    assert out.startswith("set 1 signed off as #1 by Dr Geo: 2 questions, hash ")
    status, out, _ = review(capsys, project, "sign-off", "--json")
    signed = json.loads(out)
    assert status == EXIT_OK and (signed["ok"], signed["number"], signed["question_count"]) == (True, 2, 2)
    assert signed["reviewer"] == actor()


def test_bad_input_is_one_line(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = review(capsys, project, "approve", "Z9")
    assert status == EXIT_USAGE and err == "gtreview: error: the set has no question Z9\n"
    status, _, err = review(capsys, project, "approve", "A1", "--set", "7")
    assert status == EXIT_USAGE and err == "gtreview: error: the project has no set 7\n"
    with pytest.raises(SystemExit) as exited:
        main(["review", "approve", "--project", str(project)])  # no question named
    assert exited.value.code == EXIT_USAGE
