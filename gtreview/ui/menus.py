"""Menus, keyboard shortcuts and the shortcut sheet of the main window."""

from __future__ import annotations

from collections.abc import Callable
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QFileDialog, QInputDialog, QMenu, QMessageBox, QWidget
from sqlalchemy import Engine

from gtreview import __version__
from gtreview.app.project_settings import (
    JudgeGateSettings,
    judge_gate_settings,
    project_judge,
    set_approval_requires_calibration,
    set_judge_gate_settings,
    set_project_judge,
)
from gtreview.app.question_calibration import approval_requires_calibration
from gtreview.logging_setup import log_path
from gtreview.ui.dialogs.judge_gate_dialog import JudgeGateDialog
from gtreview.ui.dialogs.new_folder import ask_new_folder, unused
from gtreview.ui.dialogs.shortcut_sheet import ShortcutSheet
from gtreview.ui.keyboard import show_tab
from gtreview.ui.ops import CollectionOp, OpChanges, QueryOp

if TYPE_CHECKING:
    from gtreview.ui.main_window import MainWindow

RECENT_KEY = "projects/recent"
MAX_RECENT = 8


def recent_projects(settings: QSettings) -> list[str]:
    value = settings.value(RECENT_KEY) or []
    return [str(v) for v in (value if isinstance(value, list) else [value])]


def remember_project(settings: QSettings, folder: Path) -> None:
    entries = [str(folder), *[p for p in recent_projects(settings) if p != str(folder)]]
    settings.setValue(RECENT_KEY, entries[:MAX_RECENT])


def _action(
    window: MainWindow, menu: QMenu, text: str, shortcut: str | QKeySequence.StandardKey | None, slot: object
) -> QAction:
    action = QAction(text, window)
    if shortcut is not None:
        action.setShortcut(QKeySequence(shortcut))
    action.triggered.connect(slot)
    menu.addAction(action)
    window.addAction(action)  # shortcuts work wherever the focus is
    return action


def build_menus(window: MainWindow) -> dict[str, QAction]:
    bar = window.menuBar()
    actions: dict[str, QAction] = {}

    file_menu = bar.addMenu("&File")
    actions["new_project"] = _action(
        window, file_menu, "&New project…", QKeySequence.StandardKey.New, lambda: _new_project(window)
    )
    actions["open"] = _action(
        window, file_menu, "&Open project…", QKeySequence.StandardKey.Open, lambda: _open_project(window)
    )
    recent_menu = file_menu.addMenu("Open &recent")
    recent_menu.aboutToShow.connect(lambda: _fill_recent(window, recent_menu))
    file_menu.addSeparator()
    actions["import_corpus"] = _action(
        window, file_menu, "Import &corpus…", "Ctrl+Shift+I", lambda: window.ask_import_corpus()
    )
    actions["import_corpus_files"] = _action(
        window, file_menu, "Import corpus &files…", None, lambda: window.ask_import_corpus(files=True)
    )
    actions["import_rubric"] = _action(window, file_menu, "Import r&ubric…", "Ctrl+I", window.ask_import_rubric)
    file_menu.addSeparator()
    actions["export_report"] = _action(window, file_menu, "&Export report…", "Ctrl+E", lambda: window.export_report())
    actions["export_csv"] = _action(window, file_menu, "Export C&SV…", "Ctrl+Shift+E", lambda: window.export_csv())
    actions["release"] = _action(window, file_menu, "Publish signed re&lease…", None, lambda: window.publish_release())
    file_menu.addSeparator()
    actions["quit"] = _action(window, file_menu, "&Quit", QKeySequence.StandardKey.Quit, window.close)

    edit_menu = bar.addMenu("&Edit")
    undo = window.session.undo_stack.createUndoAction(window, "&Undo")
    undo.setShortcut(QKeySequence(QKeySequence.StandardKey.Undo))
    redo = window.session.undo_stack.createRedoAction(window, "&Redo")
    redo.setShortcut(QKeySequence(QKeySequence.StandardKey.Redo))
    edit_menu.addActions([undo, redo])
    actions["undo"], actions["redo"] = undo, redo
    edit_menu.addSeparator()
    actions["reviewer"] = _action(window, edit_menu, "Reviewer &name…", None, lambda: _ask_reviewer(window))
    actions["preferences"] = _action(
        window, edit_menu, "&Preferences…", QKeySequence.StandardKey.Preferences, lambda: _preferences(window)
    )
    actions["judge"] = _action(window, edit_menu, "&Judge model…", None, lambda: _ask_judge(window))
    actions["judge_gate"] = _action(window, edit_menu, "Judge &gate…", None, lambda: _ask_judge_gate(window))
    edit_menu.addSeparator()
    paraphrases = window.paraphrases
    actions["new_paraphrase"] = _action(
        window, edit_menu, "New &paraphrase…", "Ctrl+Shift+R", paraphrases.new_paraphrase
    )
    actions["update_paraphrase"] = _action(
        window, edit_menu, "&Update paraphrase from its original", "Ctrl+Shift+U", paraphrases.update_from_original
    )

    review_menu = bar.addMenu("&Review")
    controller = window.controller
    actions["start_review"] = _action(window, review_menu, "&Start review", "Ctrl+R", controller.start_review)
    actions["approve"] = _action(window, review_menu, "&Approve", "Ctrl+Return", controller.approve)
    move_on = _action(window, review_menu, "&Move on after approving", None, lambda: None)
    move_on.setCheckable(True)
    move_on.setChecked(window.settings.value(MOVE_ON_KEY, False, type=bool))
    move_on.toggled.connect(lambda on: window.settings.setValue(MOVE_ON_KEY, on))
    actions["move_on"] = move_on
    actions["request_changes"] = _action(
        window, review_menu, "Request &changes…", "Ctrl+Shift+Return", controller.request_changes
    )
    actions["reopen"] = _action(window, review_menu, "Re&open as draft", "Ctrl+Shift+D", controller.reopen)
    actions["retire"] = _action(window, review_menu, "Re&tire…", "Ctrl+Shift+X", controller.retire)
    review_menu.addSeparator()
    actions["calibrate"] = _action(window, review_menu, "&Calibrate question", "Ctrl+K", controller.calibrate_question)
    actions["calibrate_set"] = _action(window, review_menu, "Calibrate &set", "Ctrl+Shift+K", controller.calibrate_set)
    require = _action(window, review_menu, "Require calibration before approval", None, lambda: None)
    require.setCheckable(True)
    require.toggled.connect(lambda on: _switch_requirement(window, require, on))
    _show_requirement(window, require)
    actions["require_calibration"] = require
    review_menu.addSeparator()
    actions["sign_off"] = _action(window, review_menu, "Sign &off set…", "Ctrl+Shift+S", controller.sign_off)

    run_menu = bar.addMenu("R&un")
    actions["run_pass"] = _action(window, run_menu, "Run a &pass…", "Ctrl+Shift+P", window.start_pass)
    actions["show_runs"] = _action(window, run_menu, "Show &runs", "Ctrl+5", window.show_runs)
    actions["resume_pass"] = _action(window, run_menu, "R&esume the selected pass", "F5", window.resume_selected_pass)
    actions["cancel_pass"] = _action(window, run_menu, "&Cancel the pass", "Shift+F5", window.run_controller.cancel)
    run_menu.addSeparator()
    actions["draft"] = _action(window, run_menu, "&Draft a set from the corpus…", "Ctrl+Shift+N", window.start_drafting)
    actions["cancel_draft"] = _action(window, run_menu, "Cancel &drafting", None, window.draft_controller.cancel)

    def can_cancel() -> None:  # only what is running can be cancelled (read as the menu opens)
        actions["cancel_pass"].setEnabled(window.run_controller.running)
        actions["cancel_draft"].setEnabled(window.draft_controller.running)

    run_menu.aboutToShow.connect(can_cancel)
    actions["authority"] = _action(
        window, run_menu, "Source a&uthority…", None, lambda: window.draft_controller.edit_authority(window)
    )
    run_menu.addSeparator()
    actions["adjudication"] = _action(window, run_menu, "&Adjudication queue", "Ctrl+6", window.show_adjudication)
    actions["grading"] = _action(window, run_menu, "&Blind grading", "Ctrl+7", window.show_grading)

    go_menu = bar.addMenu("&Go")
    actions["next"] = _action(window, go_menu, "&Next question", "Alt+Down", lambda: window.go_next(1))
    actions["previous"] = _action(window, go_menu, "&Previous question", "Alt+Up", lambda: window.go_next(-1))
    actions["next_unreviewed"] = _action(window, go_menu, "Next &unreviewed", "Ctrl+J", window.go_next_unreviewed)
    actions["go_original"] = _action(
        window, go_menu, "&Original of this paraphrase", "Ctrl+Shift+O", window.paraphrases.go_to_original
    )
    actions["navigator"] = _action(window, go_menu, "Na&vigator", "Ctrl+0", window.navigator.setFocus)
    actions["search"] = _action(
        window, go_menu, "&Search questions", QKeySequence.StandardKey.Find, _focus_search(window)
    )
    for number, name in enumerate(("question", "edit", "calibration", "history"), start=1):
        actions[f"tab_{name}"] = _action(
            window, go_menu, f"Questions: {name} tab", f"Ctrl+{number}", _tab(window, number - 1)
        )

    help_menu = bar.addMenu("&Help")
    actions["shortcuts"] = _action(
        window, help_menu, "&Keyboard shortcuts", "F1", lambda: show_shortcut_sheet(window, _every_key(window, actions))
    )
    actions["doctor"] = _action(
        window, help_menu, "Check &local inference…", None, lambda: _check_local_inference(window)
    )
    actions["about"] = _action(window, help_menu, "&About gtreview", None, lambda: _about(window))
    return actions


def _every_key(window: MainWindow, actions: dict[str, QAction]) -> dict[str, QAction]:
    """The menus' keys and those of the pages that have their own (blind grading)."""
    return {**actions, **window.adjudication.grading_view.shortcut_actions()}


def _focus_search(window: MainWindow) -> object:
    def focus() -> None:
        window.question_list.search.setFocus()
        window.question_list.search.selectAll()

    return focus


MOVE_ON_KEY = "review/move_on_after_approving"


def _tab(window: MainWindow, position: int) -> object:
    """Back to the questions page (from Runs, Results, Adjudication…) on that tab."""

    def show() -> None:
        window.pages.setCurrentWidget(window.work_splitter)
        show_tab(window.tabs, position)

    return show


def shortcut_sheet_html(actions: dict[str, QAction]) -> str:
    rows = "".join(
        f"<tr><td><b>{escape(a.shortcut().toString(QKeySequence.SequenceFormat.NativeText))}</b></td>"
        f"<td>{escape(a.text().replace('&', '').rstrip('…'))}</td></tr>"
        for a in actions.values()
        if not a.shortcut().isEmpty()
    )
    return f"<table cellspacing=6>{rows}</table>"


def show_shortcut_sheet(window: MainWindow, actions: dict[str, QAction]) -> ShortcutSheet:
    sheet = ShortcutSheet(shortcut_sheet_html(actions), window)
    sheet.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    sheet.open()
    return sheet


def versions() -> dict[str, str]:
    """gtreview, llama.cpp and Qt versions, for the About box and bug reports."""
    from PySide6 import __version__ as pyside_version
    from PySide6.QtCore import qVersion

    from gtreview.inference.build_info import read_llama_build  # in a child: a bad build dies there, not here

    build = read_llama_build()
    if build.error:
        llama = f"unavailable ({build.error})"
    else:
        llama = f"llama-cpp-python {build.python_package}, llama.cpp {build.llama_cpp} — " + ", ".join(build.backends)
        llama += " with GPU offload" if build.gpu_offload else ""
    return {"gtreview": __version__, "llama.cpp": llama, "Qt": qVersion(), "PySide6": pyside_version}


def _check_local_inference(window: MainWindow) -> None:
    from gtreview.ui.dialogs.doctor_dialog import DoctorDialog

    dialog = DoctorDialog(window.project.engine, window)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.open()
    dialog.start()


def _about(window: MainWindow) -> None:
    rows = "".join(f"<tr><td><b>{escape(k)}</b></td><td>{escape(v)}</td></tr>" for k, v in versions().items())
    QMessageBox.about(
        window,
        "About gtreview",
        f"<h3>gtreview</h3><p>A desktop workstation for source-grounded LLM benchmarks.</p><table>{rows}</table>"
        f"<p>Log file: {escape(str(log_path()))}</p>",
    )


def _preferences(window: MainWindow) -> None:
    from gtreview.ui.dialogs.preferences import PreferencesDialog

    if PreferencesDialog(window.settings, window).exec():
        window.set_reviewer_name(window.reviewer_name())


def _ask_reviewer(window: MainWindow) -> None:
    name, ok = QInputDialog.getText(
        window, "Reviewer name", "Name recorded with every review action:", text=window.reviewer_name()
    )
    if ok and name.strip():
        window.set_reviewer_name(name)


def _show_requirement(window: MainWindow, action: QAction) -> None:
    """Tick the action as the project says, unless the expert has toggled it meanwhile."""
    engine = window.project.engine

    def show(required: bool) -> None:
        if not getattr(action, "touched", False):
            action.blockSignals(True)
            action.setChecked(required)
            action.blockSignals(False)

    action.toggled.connect(lambda _on: setattr(action, "touched", True))
    QueryOp(window, op=lambda: approval_requires_calibration(engine), success=show).run_in_background()


UNCALIBRATED_WARNING = (
    "Approvals made while this is off need no reproduced calibration. Each of them is marked "
    '"calibration not required" in the history, and so are the sign-offs and signed releases '
    "of them; switching it off is recorded in the review log with your name.\n\nSwitch it off?"
)


def _switch_requirement(window: MainWindow, action: QAction, required: bool) -> None:
    """Require calibration before approval, or (after a confirmation) stop requiring it;
    either is recorded in the review log with the reviewer's name."""
    if not required and not confirm_uncalibrated(window):
        action.blockSignals(True)
        action.setChecked(True)
        action.blockSignals(False)
        return
    actor = window.reviewer_name()
    _save_setting(window, lambda engine: set_approval_requires_calibration(engine, required, actor=actor))
    window.notify(
        "Calibration is required before approval again."
        if required
        else f"Calibration no longer required before approval (recorded as {actor}'s decision).",
        "info" if required else "warning",
    )


def confirm_uncalibrated(parent: QWidget) -> bool:
    answer = QMessageBox.question(
        parent,
        "Stop requiring calibration?",
        UNCALIBRATED_WARNING,
        QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
        QMessageBox.StandardButton.No,
    )
    return answer == QMessageBox.StandardButton.Yes


def _save_setting(window: MainWindow, change: Callable[[Engine], OpChanges]) -> None:
    """Run one settings use case (it returns what it changed) as a change op."""
    engine = window.project.engine

    def save() -> OpChanges:
        return change(engine)

    CollectionOp(window, save).run_in_background(initiator=window)


def _ask_judge(window: MainWindow) -> None:
    engine = window.project.engine

    def ask(current: object) -> None:
        from gtreview.ui.dialogs.judge_spec import JudgeSpecDialog
        from gtreview.ui.dialogs.preferences import model_folders

        dialog = JudgeSpecDialog(current if isinstance(current, str) else "", model_folders(window.settings), window)
        dialog.accepted.connect(lambda: _save_setting(window, lambda engine: set_project_judge(engine, dialog.spec())))
        dialog.open()

    QueryOp(window, op=lambda: project_judge(engine), success=ask).run_in_background()


def _ask_judge_gate(window: MainWindow) -> None:
    """The gate's threshold and measure, read and saved off the GUI thread."""
    engine = window.project.engine

    def save(threshold: float, measure: str) -> None:
        def change() -> OpChanges:
            return set_judge_gate_settings(engine, threshold=threshold, measure=measure)

        CollectionOp(window, change).run_in_background(initiator=window)

    def ask(current: JudgeGateSettings) -> None:
        dialog = JudgeGateDialog(current, window)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)  # the window keeps no closed dialogs
        dialog.accepted.connect(lambda: save(*dialog.chosen()))
        dialog.open()

    QueryOp(window, op=lambda: judge_gate_settings(engine), success=ask).run_in_background()


def _open_project(window: MainWindow) -> None:
    """Open an existing project; a folder that is not one is refused (the window stays)."""
    folder = QFileDialog.getExistingDirectory(window, "Open a project folder")
    if folder:
        window.request_open(Path(folder), create=False)


def _new_project(window: MainWindow) -> None:
    folder = ask_new_folder(
        window,
        "New project",
        "The new project's folder (a new one is made; an existing one must be empty):",
        unused(window.project.folder.parent / "new project"),
    )
    if folder is not None:
        window.request_open(folder, create=True)


def _fill_recent(window: MainWindow, menu: QMenu) -> None:
    menu.clear()
    for entry in recent_projects(window.settings):
        action = menu.addAction(entry)
        action.triggered.connect(lambda _checked=False, path=entry: window.request_open(Path(path), create=False))
    if menu.isEmpty():
        menu.addAction("(none)").setEnabled(False)
