"""The Run dialog's drift setting: every N verdicts into the pass config, 0 for off, and
filled from the last pass, so a judge that fails the start check can still be run."""

from pathlib import Path

from gtreview.ui.dialogs.run_dialog import RunDialog
from tests.ui.test_runs_ui import CONFIG


def test_the_run_dialog_asks_how_often_to_check_drift(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    dialog = RunDialog("Set", model_folders=[tmp_path])
    qtbot.addWidget(dialog)
    dialog.models.setPlainText("base=openai:http://127.0.0.1:8000#base")
    dialog.judge.setText("openai:http://127.0.0.1:8000#judge")
    assert dialog.drift_every.value() == 50 and dialog.drift_every.minimum() == 0
    dialog.drift_every.setValue(0)
    dialog._accept()
    assert dialog.config is not None and dialog.config.drift_every == 0

    again = RunDialog("Set", last=CONFIG.model_copy(update={"drift_every": 7}))
    qtbot.addWidget(again)
    assert again.drift_every.value() == 7  # as the last pass asked
    again._accept()
    assert again.config is not None and again.config.drift_every == 7
