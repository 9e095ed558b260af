"""The open project a front-end holds: its folder and the engine every use case takes.

Re-exported from ``store.project`` so that a GUI controller or view can name the type
without importing the store (the GUI's forbidden contract). Opening and creating a
project stays with the front-end's entry point (``cli/common.py``, ``ui/app.py``), the
one store import each contract allows.
"""

from __future__ import annotations

from gtreview.store.project import Project

__all__ = ["Project"]
