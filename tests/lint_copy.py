"""Run import-linter on a copy of the package with imports added, to show a contract catches them."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "gtreview"


def lint_with_imports(tmp_path: Path, added: Mapping[str, str]) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` on a copy of gtreview and pyproject.toml where each module (a path
    below gtreview/, e.g. ``cli/judging.py``) ends with its added import line."""
    copy = tmp_path / "src"
    shutil.copytree(PACKAGE, copy / "gtreview", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(PACKAGE.parent / "pyproject.toml", copy / "pyproject.toml")
    for module, line in added.items():
        with (copy / "gtreview" / module).open("a", encoding="utf-8") as handle:
            handle.write(f"\n{line}  # noqa: E402,F401\n")
    return subprocess.run(
        [str(Path(sys.executable).with_name("lint-imports")), "--no-cache"],
        cwd=copy,
        capture_output=True,
        text=True,
        timeout=300,
        env={"PYTHONPATH": str(copy), "PATH": ""},
    )
