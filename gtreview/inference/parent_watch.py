"""A model worker that ends when the app that started it is gone."""

from __future__ import annotations

import os
import threading
import time

PARENT_WATCH_S = 0.5  # how often a child looks whether its parent is still there


def end_with_parent(parent_pid: int) -> None:
    """End this child as soon as its parent is gone (killed, crashed): a child busy
    loading a model or in a batch never reads the closed pipe, and would otherwise go on
    for minutes for nobody, holding the model's memory (an orphaned worker). A thread
    watches the parent's id, which changes when the parent dies and the child is
    adopted (POSIX; on Windows the pipe's end is all it sees)."""

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(PARENT_WATCH_S)
        os._exit(0)

    if os.name != "nt":
        threading.Thread(target=watch, name="gtreview-worker-parent-watch", daemon=True).start()
