"""Review > Calibrate with a judge model that aborts in native code: the window stays up."""

import os
from pathlib import Path

from gtreview.inference.worker import WorkerBackend
from gtreview.store import db
from gtreview.store.settings_repo import JUDGE_SPEC, set_setting
from tests.inference.crashing_backend import ABORT_MARKER, open_crashing


def test_an_abort_in_the_judge_during_calibrate_leaves_the_window_up(qtbot, sample_window, tiny_gguf: Path) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    with db.unit_of_work(window.project.engine) as tx:
        set_setting(tx, JUDGE_SPEC, f"llama:{tiny_gguf}?ctx=1024&seq=2&threads=2")
    pids: list[int | None] = []

    def aborting(spec: str) -> WorkerBackend:
        backend = WorkerBackend(spec, opener=open_crashing, overrides={"crash_always": ABORT_MARKER})
        pids.append(backend.pid)
        return backend

    window.controller.open_backend = aborting
    with qtbot.waitSignal(window.controller.calibrated, timeout=60000):
        window.menu_actions["calibrate"].trigger()
    assert pids and os.getpid() not in pids
    assert "0 of 1 question reproduced" in window.statusBar().currentMessage()
    assert window.isVisible() and not window.controller.busy
    items = [window.fixtures.fixture_list.item(n).text() for n in range(window.fixtures.fixture_list.count())]
    assert items and not any("✓ reproduced" in text for text in items)


def test_a_gguf_that_aborts_llama_cpp_fails_calibrate_in_one_line(qtbot, sample_window, aborting_gguf: Path) -> None:  # type: ignore[no-untyped-def]
    """The real factory and a real native abort (not a test hook): the judge's worker
    dies, the window stays up and says why in one line."""
    window = sample_window
    with db.unit_of_work(window.project.engine) as tx:
        set_setting(tx, JUDGE_SPEC, f"llama:{aborting_gguf}?ctx=4096&seq=2&threads=1")
    window.menu_actions["calibrate"].trigger()
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=60000)
    message = window.statusBar().currentMessage()
    assert message.startswith("Calibration failed: llama:") and "\n" not in message
    assert "model worker died (signal SIGABRT) running aborting.gguf: terminate called after throwing" in message
    assert window.isVisible()
