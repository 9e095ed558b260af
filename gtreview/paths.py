"""Where gtreview finds its shipped data and keeps the user's projects.

``resources`` and ``sample_corpus`` live at the top of the source tree and are
installed into the wheel as ``gtreview/resources`` and ``gtreview/sample_corpus``;
both layouts are looked up so an installed copy and a checkout behave alike.
"""

from __future__ import annotations

from pathlib import Path

from platformdirs import user_data_path

_PACKAGE_DIR = Path(__file__).resolve().parent


def _shipped(name: str) -> Path:
    for candidate in (_PACKAGE_DIR / name, _PACKAGE_DIR.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"gtreview's {name} folder is missing from this installation")


def resources_dir() -> Path:
    return _shipped("resources")


def sample_corpus_dir() -> Path:
    return _shipped("sample_corpus")


def default_project_dir() -> Path:
    return user_data_path("gtreview", appauthor=False) / "projects" / "default"


def sample_project_dir() -> Path:
    return user_data_path("gtreview", appauthor=False) / "projects" / "sample"
