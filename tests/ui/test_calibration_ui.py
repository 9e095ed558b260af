"""Calibrate from the Review menu, see judged awards beside the expected ones, approve."""

from gtreview.core.rubric import Question
from gtreview.inference.backend import CompletionRequest
from gtreview.store import sets
from gtreview.store.db import reading, unit_of_work
from gtreview.store.sets import ReviewStatus
from gtreview.store.settings_repo import JUDGE_SPEC, set_setting
from tests.judging.scripted import ScriptedBackend, answer_of, fixture_reply, verdict_json
from tests.ui.waiting import settle


def faithful_judge(question: Question):  # type: ignore[no-untyped-def]
    fixtures = {f.response_text: f for f in question.calibration}

    def respond(request: CompletionRequest) -> str:
        fixture = fixtures.get(answer_of(request))
        return fixture_reply(question, fixture) if fixture else verdict_json(question, False, {})

    return respond


def test_calibrate_question_then_approve(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    engine, set_id = window.project.engine, window.set_id
    with reading(engine) as session:
        question = sets.load_question(session, set_id, "A1")
    with unit_of_work(engine) as tx:
        set_setting(tx, JUDGE_SPEC, "scripted:judge")
    window.menu_actions["require_calibration"].setChecked(True)

    window.menu_actions["approve"].trigger()  # runs after the setting is saved: changes run in order
    settle(qtbot, window)
    assert "not been calibrated" in window.statusBar().currentMessage()

    window.controller.open_backend = lambda spec: ScriptedBackend(lambda r: verdict_json(question, True, {}), spec=spec)
    with qtbot.waitSignal(window.controller.calibrated, timeout=10000):
        window.menu_actions["calibrate"].trigger()
    settle(qtbot, window)
    items = [window.fixtures.fixture_list.item(n).text() for n in range(window.fixtures.fixture_list.count())]
    assert any("✗" in text for text in items) and any("✓ reproduced" in text for text in items)
    window.menu_actions["approve"].trigger()
    settle(qtbot, window)
    assert "did not reproduce" in window.statusBar().currentMessage()

    window.controller.open_backend = lambda spec: ScriptedBackend(faithful_judge(question), spec=spec)
    with qtbot.waitSignal(window.controller.calibrated, timeout=10000):
        window.menu_actions["calibrate"].trigger()
    settle(qtbot, window)
    fixtures = window.fixtures
    assert all("✓ reproduced" in fixtures.fixture_list.item(n).text() for n in range(fixtures.fixture_list.count()))
    fixtures.fixture_list.setCurrentRow(fixtures.fixture_list.count() - 1)
    expected = [fixtures.awards.item(r, 2).text() for r in range(fixtures.awards.rowCount())]
    judged = [fixtures.awards.item(r, 3).text() for r in range(fixtures.awards.rowCount())]
    assert judged == expected and "judged by scripted:judge" in fixtures.sum_label.text()

    window.menu_actions["approve"].trigger()
    settle(qtbot, window)
    with reading(engine) as session:
        assert {s.qid: s.review_status for s in sets.list_questions(session, set_id)}["A1"] is ReviewStatus.APPROVED


def test_switching_calibration_off_asks_is_logged_and_marks_the_approval(qtbot, sample_window, monkeypatch) -> None:  # type: ignore[no-untyped-def]

    window = sample_window
    engine = window.project.engine
    require = window.menu_actions["require_calibration"]
    require.setChecked(True)
    settle(qtbot, window)
    asked: list[bool] = []
    monkeypatch.setattr("gtreview.ui.menus.confirm_uncalibrated", lambda _parent: asked.append(False) or False)
    require.setChecked(False)  # "No": it stays required, nothing is logged
    settle(qtbot, window)
    assert asked == [False] and require.isChecked()
    assert [e.action for e in _project_log(engine)] == ["calibration required"]

    monkeypatch.setattr("gtreview.ui.menus.confirm_uncalibrated", lambda _parent: asked.append(True) or True)
    require.setChecked(False)
    settle(qtbot, window)
    assert asked == [False, True] and not require.isChecked()
    switch = _project_log(engine)[-1]
    assert (switch.actor, switch.action) == ("Dr Test", "calibration not required")
    assert "recorded as Dr Test's decision" in window.statusBar().currentMessage()

    window.menu_actions["approve"].trigger()  # A1, never calibrated: allowed now, and marked
    settle(qtbot, window)
    with reading(engine) as session:
        assert sets.list_questions(session, window.set_id)[0].review_status is ReviewStatus.APPROVED
    window.tabs.setCurrentWidget(window.history)  # the history is drawn when its tab is shown
    qtbot.waitUntil(lambda: window.history.log.rowCount() > 0 and "approved" in window.history.log.item(0, 2).text())
    assert window.history.log.item(0, 2).text() == "approved (calibration not required)"


def _project_log(engine):  # type: ignore[no-untyped-def]
    from gtreview.store import sets
    from gtreview.store.db import reading

    with reading(engine) as session:
        return sets.project_log(session)
