"""The question list: search over every text of a question, difficulty in its own order,
and a Calibration column that says what the judge reproduced."""

from __future__ import annotations

from PySide6.QtCore import Qt

from gtreview.store import sets
from gtreview.store.db import reading, unit_of_work
from gtreview.store.settings_repo import JUDGE_SPEC, set_setting
from gtreview.ui.models.question_table import COLUMNS
from tests.judging.scripted import ScriptedBackend, verdict_json
from tests.ui.test_calibration_ui import faithful_judge
from tests.ui.waiting import settle


def visible(window) -> list[str]:  # type: ignore[no-untyped-def]
    listing = window.question_list
    return [listing.proxy.index(r, 0).data() for r in range(listing.proxy.rowCount())]


def column_text(window, qid: str, name: str) -> str:  # type: ignore[no-untyped-def]
    listing = window.question_list
    for r in range(listing.proxy.rowCount()):
        if listing.proxy.index(r, 0).data() == qid:
            return str(listing.proxy.index(r, COLUMNS.index(name)).data())
    raise AssertionError(f"{qid} is not shown")


def test_search_finds_words_of_the_answer_and_rubric_not_only_the_title(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    engine, set_id = window.project.engine, window.set_id
    with reading(engine) as session:
        questions = sets.export_rubric(session, set_id).questions
    target = questions[3]
    others = " ".join(f"{q.title} {q.question}" for q in questions if q.id != target.id).casefold()
    word = next(
        w
        for w in (target.model_answer or "").split()
        if len(w) > 6 and w.isalpha() and w.casefold() not in others and w.casefold() not in target.title.casefold()
    )
    window.question_list.search.setText(word.upper())  # case does not matter
    assert target.id in visible(window)
    window.question_list.search.setText("no question says zqxjv")
    assert visible(window) == []


def test_difficulty_sorts_easy_moderate_hard(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    listing = window.question_list
    listing.table.sortByColumn(COLUMNS.index("Difficulty"), Qt.SortOrder.AscendingOrder)
    shown = [listing.proxy.index(r, COLUMNS.index("Difficulty")).data() for r in range(listing.proxy.rowCount())]
    order = {"Easy": 0, "Moderate": 1, "Hard": 2}
    assert [order[d] for d in shown] == sorted(order[d] for d in shown) and len(set(shown)) == 3
    choices = [listing.difficulty.itemText(i) for i in range(1, listing.difficulty.count())]
    assert choices == ["Easy", "Moderate", "Hard"]


def test_the_calibration_column_says_what_the_judge_reproduced(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    engine, set_id = window.project.engine, window.set_id
    with reading(engine) as session:
        question = sets.load_question(session, set_id, "A1")
    count = len(question.calibration)
    assert column_text(window, "A1", "Calibration") == f"{count} not run"
    with unit_of_work(engine) as tx:
        set_setting(tx, JUDGE_SPEC, "scripted:judge")
    window.controller.open_backend = lambda spec: ScriptedBackend(lambda r: verdict_json(question, True, {}), spec=spec)
    with qtbot.waitSignal(window.controller.calibrated, timeout=10000):
        window.menu_actions["calibrate"].trigger()
    settle(qtbot, window)
    partly = column_text(window, "A1", "Calibration")
    assert partly.endswith(f"/{count} reproduced") and partly != f"{count}/{count} reproduced"
    window.controller.open_backend = lambda spec: ScriptedBackend(faithful_judge(question), spec=spec)
    with qtbot.waitSignal(window.controller.calibrated, timeout=10000):
        window.menu_actions["calibrate"].trigger()
    settle(qtbot, window)
    assert column_text(window, "A1", "Calibration") == f"{count}/{count} reproduced"


def test_opening_the_set_again_keeps_the_place_and_updates_rows_in_place(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    from gtreview.app import workflow

    window = sample_window
    listing = window.question_list
    listing.table.selectRow(3)
    settle(qtbot, window)
    chosen = listing.current_qid()
    other = listing.model.rows()[5].qid
    resets: list[int] = []
    changed: list[tuple[int, int]] = []
    listing.model.modelReset.connect(lambda: resets.append(1))
    listing.model.dataChanged.connect(lambda first, last, _roles=(): changed.append((first.row(), last.row())))
    workflow.start_review(window.project.engine, window.set_id, other, reviewer="Someone else")  # another writer
    window.show_runs()
    window.open_set(window.set_id)
    settle(qtbot, window)
    assert listing.current_qid() == chosen and window.qid == chosen  # back where the expert was
    assert resets == [] and changed == [(5, 5)]  # only the row that changed is redrawn
    assert column_text(window, other, "Status") == "in review"
    changed.clear()
    window.open_set(window.set_id)
    settle(qtbot, window)
    assert resets == [] and changed == []  # nothing changed, nothing redrawn


def test_the_same_page_again_keeps_its_scroll_position(qtbot) -> None:  # type: ignore[no-untyped-def]
    from gtreview.ui.widgets.html import HtmlBrowser

    browser = HtmlBrowser()
    qtbot.addWidget(browser)
    browser.resize(300, 200)
    browser.show()
    page = "".join(f"<p>line {n}</p>" for n in range(300))
    browser.setHtml(page)
    browser.verticalScrollBar().setValue(500)
    browser.setHtml(page)
    assert browser.verticalScrollBar().value() == 500
    browser.setHtml(page + "<p>one more</p>")
    assert browser.verticalScrollBar().value() == 0  # a new page starts at its top
    browser.clear()
    browser.setHtml(page)
    assert "line 299" in browser.toPlainText()


def test_a_list_that_shows_nothing_says_why(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    listing = window.question_list
    held = listing.model.rowCount()
    assert listing.empty_hint.text() == ""  # rows shown: no hint
    from gtreview.ui.widgets.question_list import QuestionList

    fresh = QuestionList()
    qtbot.addWidget(fresh)
    assert fresh.empty_hint.text() == ""  # the set still being read says nothing (not "no questions")
    listing.search.setText("zqxjv")
    assert listing.empty_hint.text() == f"No question matches the search “zqxjv” ({held} in the set)."
    listing.findings_only.setChecked(True)
    assert "the search “zqxjv” and the filters" in listing.empty_hint.text()
    listing.search.clear()
    listing.findings_only.setChecked(False)
    assert listing.empty_hint.text() == "" and listing.proxy.rowCount() == held


def test_letters_typed_into_the_list_never_move_the_selection(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    """A reason typed after its dialog has closed lands in the list: Qt's type-ahead would
    select the question starting with those letters, and the next Ctrl+Return approve it."""
    window = sample_window
    listing = window.question_list
    listing.table.selectRow(4)
    settle(qtbot, window)
    chosen = listing.current_qid()
    listing.table.setFocus()
    qtbot.keyClicks(listing.table, "a1 not specific enough")
    settle(qtbot, window)
    assert listing.current_qid() == chosen and window.qid == chosen


def test_the_search_is_keyboard_only_escape_clears_and_down_goes_to_the_results(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtCore import Qt

    window = sample_window
    listing = window.question_list
    listing.search.setFocus()
    qtbot.keyClicks(listing.search, "saddle")
    found = visible(window)
    assert found and len(found) < listing.model.rowCount()
    qtbot.keyClick(listing.search, Qt.Key.Key_Down)
    assert listing.table.hasFocus() and listing.current_qid() in found
    listing.search.setFocus()
    qtbot.keyClick(listing.search, Qt.Key.Key_Escape)
    assert listing.search.text() == "" and len(visible(window)) == listing.model.rowCount()
