"""The release page: a release in the navigator opens its sign-off and bundles, and Verify
runs the app function ``gtreview release verify`` calls, off the GUI thread."""

from __future__ import annotations

import functools
import re
import shutil
import threading
from pathlib import Path

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices

from gtreview.app import releases, workflow
from gtreview.app.releases import create_release_bundle, create_reviewer_key
from gtreview.store import sets
from gtreview.store.db import reading
from tests.ui.waiting import settle


def signed_off(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    """Sign the open set off (in the project, as another window would) and list it."""
    engine = window.project.engine
    with reading(engine) as session:
        for summary in sets.list_questions(session, window.set_id):
            workflow.approve(engine, window.set_id, summary.qid, reviewer="geo")
    workflow.sign_off(engine, window.set_id, reviewer="geo", comment="field season")
    window.refresh()
    settle(qtbot, window)


def open_release(qtbot, window, keyboard: bool = False) -> None:  # type: ignore[no-untyped-def]
    navigator = window.navigator
    item = navigator.releases_item.child(0)
    if keyboard:
        navigator.setFocus()
        navigator.setCurrentItem(item)
        qtbot.keyClick(navigator, Qt.Key.Key_Return)
    else:
        qtbot.mouseClick(navigator.viewport(), Qt.MouseButton.LeftButton, pos=navigator.visualItemRect(item).center())
    qtbot.waitUntil(lambda: window.pages.currentWidget() is not window.work_splitter, timeout=10000)
    settle(qtbot, window)
    assert window.pages.currentWidget() is window.releases.view


def published(qtbot, window, tmp_path: Path) -> Path:  # type: ignore[no-untyped-def]
    signed_off(qtbot, window)
    create_reviewer_key("Dr-Test", tmp_path / "keys")
    bundle = tmp_path / "bundle"
    create_release_bundle(
        window.project.engine,
        window.set_id,
        key="Dr-Test",
        key_dir=tmp_path / "keys",
        out_dir=bundle,
        project_folder=window.project.folder,
    )
    return bundle


def test_a_release_shows_its_bundle_signer_and_signoff(qtbot, sample_window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    bundle = published(qtbot, window, tmp_path)
    fingerprint = create_reviewer_key("Dr-Test", tmp_path / "keys").fingerprint
    open_release(qtbot, window)
    view = window.releases.view
    shown = view.title.text() + view.detail.toPlainText()
    for text in (str(bundle), "sign-off #1", "Mount Wirrim Goldfield", "Dr-Test", fingerprint, "field season"):
        assert text in shown
    with reading(window.project.engine) as session:
        count = sets.list_signoffs(session, window.set_id)[0].question_count
    rows = view.detail.toPlainText().splitlines()  # each cell of the table on a line
    assert rows[rows.index("Questions") + 1] == str(count) and rows[rows.index("Signed by") + 1] == "Dr-Test"
    assert window.navigator.currentItem() is window.navigator.releases_item.child(0)  # highlighted
    assert view.verify_button.isEnabled() and view.open_button.isEnabled()


def test_verify_runs_the_cli_function_in_a_worker_and_says_valid_or_invalid(
    qtbot, sample_window, tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    bundle = published(qtbot, window, tmp_path)
    threads: list[bool] = []
    real = releases.verify_release_bundle

    @functools.wraps(real)
    def spy(*args, **kwargs):  # type: ignore[no-untyped-def]
        threads.append(threading.current_thread() is threading.main_thread())
        return real(*args, **kwargs)

    monkeypatch.setattr("gtreview.ui.release_controller.verify_release_bundle", spy)
    open_release(qtbot, window, keyboard=True)
    view = window.releases.view
    view.verify_button.click()
    settle(qtbot, window)
    assert threads == [False]  # off the GUI thread
    verdict = view.verdict.toPlainText()
    assert verdict.startswith("VALID") and "trusted as Dr-Test" in verdict
    (bundle / "questions.json").write_text("[]\n", encoding="utf-8")
    view.verify_button.click()
    settle(qtbot, window)
    verdict = view.verdict.toPlainText()
    assert verdict.startswith("INVALID") and "questions.json" in verdict
    assert re.match(r"INVALID \((1 problem|([02-9]|\d\d+) problems)\)", verdict)  # counted in words, never "1 problems"
    shutil.rmtree(bundle)
    view.verify_button.click()
    settle(qtbot, window)
    assert view.verdict.toPlainText().startswith("INVALID") and "no such folder" in view.verdict.toPlainText()


def test_open_folder_hands_the_bundle_to_the_file_manager(qtbot, sample_window, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    bundle = published(qtbot, window, tmp_path)
    opened: list[QUrl] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url) or True)
    said: list[str] = []
    window.ops.notice.connect(said.append)
    open_release(qtbot, window)
    window.releases.view.open_button.click()
    assert [url.toLocalFile() for url in opened] == [str(bundle)]
    shutil.rmtree(bundle)
    window.releases.view.open_button.click()
    assert len(opened) == 1 and said[-1] == f"{bundle} is not there any more (moved or deleted)."


def test_a_signoff_without_a_bundle_says_how_to_publish_and_lists_one_once_published(
    qtbot, sample_window, tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    signed_off(qtbot, window)
    open_release(qtbot, window)
    view = window.releases.view
    assert "No bundle has been published" in view.detail.toPlainText() and not view.verify_button.isEnabled()
    create_reviewer_key("Dr-Test", tmp_path / "keys")
    with_keys = functools.partial(create_release_bundle, key_dir=tmp_path / "keys")
    monkeypatch.setattr("gtreview.ui.flow.create_release_bundle", with_keys)
    window.settings.setValue("reviewer/signing_key", "Dr-Test")
    window.publish_release(tmp_path / "new")
    settle(qtbot, window)
    qtbot.waitUntil(lambda: str(tmp_path / "new") in view.detail.toPlainText(), timeout=10000)
    assert view.verify_button.isEnabled()
