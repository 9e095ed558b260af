"""Whether a process of this machine is still running (a run's owner, a release's stager)."""

from __future__ import annotations

import os


def pid_alive(pid: int) -> bool:
    """True unless ``pid`` is known to be gone. On Windows ``os.kill(pid, 0)`` would end
    the process, so there every process counts as alive (callers go by heartbeat or age)."""
    if os.name == "nt":
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True  # someone else's process
    return True
