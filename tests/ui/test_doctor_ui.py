"""Help > Check local inference shows the doctor's report in a window."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication

from gtreview.ui.dialogs.doctor_dialog import DoctorDialog


def test_the_help_menus_check_shows_the_report_the_cli_prints(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    sample_window.menu_actions["doctor"].trigger()
    qtbot.waitUntil(lambda: any(isinstance(w, DoctorDialog) for w in QApplication.topLevelWidgets()))
    (dialog,) = [w for w in QApplication.topLevelWidgets() if isinstance(w, DoctorDialog)]
    qtbot.waitUntil(lambda: dialog.report is not None, timeout=60_000)
    assert dialog.report is not None
    assert dialog.report_view.toPlainText() == "\n".join(dialog.report.lines())
    assert dialog.status.text() == "Local inference works here."
    dialog.close()
