"""The log file: a full disk is one warning line, never logging's traceback per record."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from gtreview import logging_setup

DEV_FULL = Path("/dev/full")  # every write fails with ENOSPC, as on a full disk


@pytest.fixture
def log_on_a_full_disk(monkeypatch: pytest.MonkeyPatch) -> Iterator[logging.Logger]:
    if not DEV_FULL.exists():
        pytest.skip("no /dev/full on this system")
    monkeypatch.setattr(logging_setup, "_configured", None)
    monkeypatch.setattr(logging_setup, "log_path", lambda: DEV_FULL)
    root = logging.getLogger("gtreview")
    before = list(root.handlers)
    logging_setup.configure_logging()
    yield logging.getLogger("gtreview.cli")
    for handler in root.handlers[len(before) :]:
        root.removeHandler(handler)
        handler.close()


def test_a_full_disk_is_one_warning_line(
    log_on_a_full_disk: logging.Logger, capsys: pytest.CaptureFixture[str]
) -> None:
    try:
        raise ValueError("boom")
    except ValueError:
        log_on_a_full_disk.exception("unexpected failure")
    log_on_a_full_disk.info("and again")
    err = capsys.readouterr().err
    assert err.splitlines() == [
        "gtreview: warning: cannot write the log /dev/full (No space left on device); logging stopped"
    ]
