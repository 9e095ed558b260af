"""Fixtures shared across the test suite."""

from __future__ import annotations

from pathlib import Path

import pytest

INTEROP_DIR = Path(__file__).resolve().parents[2] / "shared" / "interop" / "groundtruth"


@pytest.fixture(scope="session")
def interop_dir() -> Path:
    """The Groundtruth interop fixtures (../shared/interop/groundtruth); tests that
    need them skip cleanly on checkouts without the shared folder."""
    if not INTEROP_DIR.is_dir():
        pytest.skip(f"interop fixtures not found at {INTEROP_DIR}")
    return INTEROP_DIR
