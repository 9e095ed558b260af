"""The Calibration tab says what the judge did with each fixture: its awards, "unscored"
when it broke its contract (never "not judged yet" or "total None"), or nothing yet."""

from __future__ import annotations

from typing import Any

from gtreview.core.calibration import FixtureRole
from gtreview.judging.calibration import FixtureCheck, QuestionCalibration
from gtreview.ui.widgets.fixture_editor import FixtureEditor
from tests.rubric_factory import question


def check(fixture: dict[str, Any], **judged: Any) -> FixtureCheck:
    return FixtureCheck(
        question_id="A1",
        fixture_id=fixture["fixture_id"],
        role=FixtureRole.OTHER,
        judgmental=False,
        expected_gate_passed=fixture["expected_gate_passed"],
        expected_total=fixture["expected_total"],
        expected_awards={},
        **judged,
    )


def test_an_unscored_fixture_reads_unscored(qtbot) -> None:  # type: ignore[no-untyped-def]
    content = question("A1")
    first = content["calibration"][0]
    editor = FixtureEditor()
    qtbot.addWidget(editor)
    reason = "the judge broke its contract after 3 re-asks"
    calibration = QuestionCalibration(question_id="A1", fixtures=[check(first, reproduced=False, reason=reason)])
    editor.load(content, ("judge:x", calibration))
    editor.fixture_list.setCurrentRow(0)
    judged = {editor.awards.item(r, 3).text() for r in range(editor.awards.rowCount())}
    assert judged == {"unscored"}
    summary = editor.sum_label.text()
    assert "judged by judge:x: unscored" in summary and reason in summary
    assert "None" not in summary and "not judged yet" not in summary


def test_a_fixture_never_judged_says_so(qtbot) -> None:  # type: ignore[no-untyped-def]
    editor = FixtureEditor()
    qtbot.addWidget(editor)
    editor.load(question("A1"))
    editor.fixture_list.setCurrentRow(0)
    assert {editor.awards.item(r, 3).text() for r in range(editor.awards.rowCount())} == {"not judged yet"}
    assert "judged by" not in editor.sum_label.text()
