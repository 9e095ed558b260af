"""The Run dialog's "Judge repeats" spin box: J verdicts per answer into the pass config."""

from pathlib import Path

from gtreview.ui.dialogs.run_dialog import RunDialog
from tests.ui.test_runs_ui import CONFIG


def test_the_run_dialog_asks_for_judge_repeats(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    dialog = RunDialog("Set", model_folders=[tmp_path])
    qtbot.addWidget(dialog)
    dialog.models.setPlainText("base=openai:http://127.0.0.1:8000#base")
    dialog.judge.setText("openai:http://127.0.0.1:8000#judge")
    assert dialog.judge_repeats.value() == 1 and dialog.judge_repeats.minimum() == 1
    dialog._accept()
    assert dialog.config is not None and dialog.config.judge_repeats == 1
    dialog.judge_repeats.setValue(3)
    dialog._accept()
    assert (dialog.config.judge_repeats, dialog.config.judge_repeat_mode) == (3, "shuffled")

    again = RunDialog("Set", last=CONFIG.model_copy(update={"judge_repeats": 4, "judge_repeat_mode": "seeded"}))
    qtbot.addWidget(again)
    assert again.judge_repeats.value() == 4  # as the last pass asked
    again._accept()
    assert again.config is not None
    assert (again.config.judge_repeats, again.config.judge_repeat_mode) == (4, "seeded")
