"""What is shown follows what is selected: the Calibration tab after a search, and the
navigator's highlight after turning back to the questions."""

from __future__ import annotations

from PySide6.QtCore import Qt

from tests.ui.waiting import settle


def test_after_clearing_a_search_the_calibration_tab_shows_no_old_fixture(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    listing, fixtures = window.question_list, window.fixtures
    with_fixtures = window.qid  # the sample's first question has calibration fixtures
    qtbot.keyClick(window, Qt.Key.Key_3, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: fixtures.fixture_list.count() > 0 and fixtures.response.toPlainText() != "")
    assert window.qid == with_fixtures
    listing.search.setText("no question says this")
    settle(qtbot, window)
    listing.search.clear()
    settle(qtbot, window)
    assert window.qid is None and listing.current_qid() is None  # nothing selected
    assert fixtures.fixture_list.count() == 0
    assert fixtures.response.toPlainText() == "" and fixtures.fixture_id.text() == ""
    assert fixtures.awards.rowCount() == 0 and fixtures.role.text() == ""


def test_the_navigator_highlights_the_set_when_the_questions_are_shown(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    navigator = window.navigator
    window.show_runs()
    settle(qtbot, window)
    assert navigator.currentItem() is navigator.runs_item
    qtbot.keyClick(window, Qt.Key.Key_1, Qt.KeyboardModifier.ControlModifier)
    assert window.pages.currentWidget() is window.work_splitter
    current = navigator.currentItem()
    assert current is not None and current.parent() is navigator.sets_item
    window.show_corpus()
    settle(qtbot, window)
    assert navigator.currentItem() is navigator.corpus_item
