"""A URL password typed in the GUI is kept in the keyring, never in the project.

Edit > Judge model and the Run dialog both keep what was typed in the project (the
``judge_spec`` and ``last_pass`` settings); they had kept ``user:password@`` as typed.
Here both are typed with a password, a pass runs from the Run dialog, its results are
exported every way the app exports them, and then the project folder (the database, its
WAL), the log file and every export are searched for the password: none has it. The
keyring (an in-memory one here) has it, and the Run dialog opened again shows the specs
masked.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pypdf import PdfReader
from PySide6.QtWidgets import QApplication

from gtreview import logging_setup
from gtreview.app.exports import export_csv, export_leaderboard
from gtreview.app.project_settings import last_pass, project_judge
from gtreview.app.reports import write_report
from gtreview.app.results import run_figures_of
from gtreview.app.rubrics import export_set
from gtreview.core.redaction import redact
from gtreview.ui.dialogs.judge_spec import JudgeSpecDialog
from gtreview.ui.dialogs.run_dialog import RunDialog
from tests.judging.scripted import ScriptedBackend
from tests.keyrings import MemoryKeyring, keyring_in_use
from tests.ui.test_runs_ui import scripted_open
from tests.ui.waiting import settle

PASSWORD = "secret-pw-7Q"
JUDGE = f"openai:http://lab:{PASSWORD}@judge.test/v1#j"
BASE = f"openai:http://lab:{PASSWORD}@base.test/v1#m"
LORA = f"openai:http://lab:{PASSWORD}@lora.test/v1#m"


@pytest.fixture()
def memory_keyring() -> Iterator[MemoryKeyring]:
    with keyring_in_use(MemoryKeyring()) as ring:
        yield ring


@pytest.fixture()
def log_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The app's log file, in this test's folder, taking every record."""
    path = tmp_path / "logs" / "gtreview.log"
    monkeypatch.setattr(logging_setup, "_configured", None)
    monkeypatch.setattr(logging_setup, "log_path", lambda: path)
    root = logging.getLogger("gtreview")
    handlers, level = list(root.handlers), root.level
    logging_setup.configure_logging(logging.DEBUG)
    yield path
    for handler in root.handlers:
        if handler not in handlers:
            root.removeHandler(handler)
            handler.close()
    root.setLevel(level)


def server_of(spec: str) -> str:
    return re.sub(r"//[^@/]*@", "//", spec)


def visible(kind: type) -> Any:
    return next((w for w in QApplication.topLevelWidgets() if isinstance(w, kind) and w.isVisible()), None)


def containing(folder: Path, needle: bytes) -> list[str]:
    """The files under ``folder`` whose bytes, or whose PDF text, contain ``needle``."""
    found = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        data = path.read_bytes()
        if path.suffix == ".pdf":
            data += "".join(page.extract_text() for page in PdfReader(path).pages).encode()
        if needle in data:
            found.append(str(path))
    return found


def test_passwords_typed_for_the_judge_and_a_pass_stay_out_of_the_project_log_and_exports(  # type: ignore[no-untyped-def]
    qtbot, sample_window, tmp_path: Path, memory_keyring: MemoryKeyring, log_file: Path
) -> None:
    window = sample_window
    engine = window.project.engine
    opened: list[str] = []
    scripted = scripted_open(window)

    def opener(spec: str) -> ScriptedBackend:
        opened.append(spec)
        backend: ScriptedBackend = scripted(server_of(spec))
        backend.spec = redact(spec)  # a real backend describes itself redacted
        return backend

    window.run_controller.open_backend = opener

    window.menu_actions["judge"].trigger()  # Edit > Judge model
    qtbot.waitUntil(lambda: visible(JudgeSpecDialog) is not None)
    judge_dialog = visible(JudgeSpecDialog)
    judge_dialog.spec_edit.setText(JUDGE)
    judge_dialog.ok.click()
    qtbot.waitUntil(lambda: project_judge(engine) != "", timeout=5000)
    assert project_judge(engine) == "openai:http://lab:***@judge.test/v1#j"

    window.menu_actions["run_pass"].trigger()  # Run > Run a pass, the judge filled in from the project
    qtbot.waitUntil(lambda: visible(RunDialog) is not None)
    run_dialog = visible(RunDialog)
    assert run_dialog.judge.text() == "openai:http://lab:***@judge.test/v1#j"
    run_dialog.judge.setText(JUDGE)
    run_dialog.models.setPlainText(f"base={BASE}\nlora={LORA}")
    run_dialog.repeats.setValue(1)
    run_dialog.drift_every.setValue(0)
    run_dialog.max_tokens.setValue(32)
    with qtbot.waitSignal(window.run_controller.finished, timeout=30000) as outcome:
        run_dialog._accept()
    assert outcome.args[0].startswith("Run 1 finished")
    settle(qtbot, window)
    assert {BASE, LORA, JUDGE} <= set(opened)  # the pass ran with the passwords as typed

    remembered = last_pass(engine)
    assert remembered is not None
    assert [m.spec for m in remembered.models] == [re.sub(PASSWORD, "***", s) for s in (BASE, LORA)]
    assert set(memory_keyring.passwords.values()) == {PASSWORD}  # the keyring has it instead

    window.menu_actions["run_pass"].trigger()  # opened again, the dialog shows the specs masked
    qtbot.waitUntil(lambda: visible(RunDialog) not in (None, run_dialog))
    again = visible(RunDialog)
    shown = again.models.toPlainText() + again.judge.text()
    assert "lab:***@" in shown and PASSWORD not in shown
    again.reject()

    exports = tmp_path / "exports"
    exports.mkdir()
    export_csv(engine, 1, exports / "results.csv")
    export_leaderboard(engine, 1, "lora", exports / "leaderboard", rubric_key="k")
    write_report(engine, 1, exports / "report.pdf")
    export_set(engine, exports / "rubric.json")
    (exports / "results.json").write_text(run_figures_of(engine, 1).model_dump_json(), encoding="utf-8")
    settle(qtbot, window)

    project_folder = window.project.folder
    assert window.project.db_path.with_name(window.project.db_path.name + "-wal").exists()
    assert log_file.stat().st_size > 0
    leaks = (
        containing(project_folder, PASSWORD.encode())
        + containing(log_file.parent, PASSWORD.encode())
        + containing(exports, PASSWORD.encode())
    )
    assert leaks == []
