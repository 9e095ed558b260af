"""Waiting for the window's operations (reads and changes run off the GUI thread)."""

from __future__ import annotations

from typing import Any


def settle(qtbot: Any, window: Any, timeout: int = 30000) -> None:
    """Until every op of ``window`` has finished, its callbacks and the reads they started included."""
    qtbot.waitUntil(window.ops.idle, timeout=timeout)
