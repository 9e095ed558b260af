"""Keyboard-first: tab mnemonics that do not collide with the menus, and one shortcut
back to the questions from any page."""

from __future__ import annotations

import re

from PySide6.QtCore import Qt

from tests.ui.waiting import settle


def mnemonic(text: str) -> str | None:
    found = re.search(r"&([^&])", text)
    return found.group(1).casefold() if found else None


def test_tab_mnemonics_do_not_open_a_menu_instead(sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    menus = {mnemonic(action.text()) for action in window.menuBar().actions()} - {None}
    tabs = [mnemonic(window.tabs.tabText(i)) for i in range(window.tabs.count())]
    assert None not in tabs and len(set(tabs)) == len(tabs)
    assert not menus & set(tabs), menus & set(tabs)


def test_ctrl_number_returns_to_the_questions_from_any_page(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    for show in (window.show_runs, window.show_corpus):
        show()
        settle(qtbot, window)
        assert window.pages.currentWidget() is not window.work_splitter
        qtbot.keyClick(window, Qt.Key.Key_3, Qt.KeyboardModifier.ControlModifier)
        assert window.pages.currentWidget() is window.work_splitter
        assert window.tabs.currentWidget() is window.fixtures


def test_enter_in_the_navigator_opens_the_item(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    navigator = window.navigator
    navigator.setCurrentItem(navigator.runs_item)
    navigator.setFocus()
    qtbot.keyClick(navigator, Qt.Key.Key_Return)
    assert window.pages.currentWidget() is window.runs_view
    navigator.setCurrentItem(navigator.sets_item.child(0))
    qtbot.keyClick(navigator, Qt.Key.Key_Enter)
    settle(qtbot, window)
    assert window.pages.currentWidget() is window.work_splitter


def test_cancel_actions_are_offered_only_while_something_runs(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    run_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "R&un")
    run_menu.aboutToShow.emit()
    assert not window.menu_actions["cancel_pass"].isEnabled()
    assert not window.menu_actions["cancel_draft"].isEnabled()
