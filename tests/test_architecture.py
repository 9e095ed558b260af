"""Layering rules of ARCHITECTURE.md, checked on the source with the ast module."""

import ast
import re
import tomllib
from pathlib import Path

from tests.lint_copy import lint_with_imports

PACKAGE = Path(__file__).resolve().parents[1] / "gtreview"
QT_MODULES = ("PySide6", "pyqtgraph", "shiboken6")


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_no_qt_outside_ui() -> None:
    offenders = [
        f"{path.relative_to(PACKAGE.parent)} imports {name}"
        for path in PACKAGE.rglob("*.py")
        if "ui" not in path.relative_to(PACKAGE).parts[:1]
        for name in imported_modules(path)
        if name.split(".")[0] in QT_MODULES
    ]
    assert offenders == []


def test_the_check_catches_a_qt_import(tmp_path: Path) -> None:
    module = tmp_path / "bad.py"
    module.write_text("def f():\n    from PySide6.QtCore import QObject\n    return QObject\n")
    assert "PySide6.QtCore" in imported_modules(module)


def test_core_depends_on_nothing_above_it() -> None:
    upper = re.compile(
        r"^gtreview\.(store|corpus|inference|interop|judging|authoring|runs|results|report|app|ui|cli)\b"
    )
    offenders = [
        f"{path.name} imports {name}"
        for path in (PACKAGE / "core").rglob("*.py")
        for name in imported_modules(path)
        if upper.match(name)
    ]
    assert offenders == []


def test_every_package_is_listed_in_pyproject() -> None:
    config = tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(config["tool"]["setuptools"]["packages"])
    found = {".".join(init.parent.relative_to(PACKAGE.parent).parts) for init in PACKAGE.rglob("__init__.py")}
    assert found - listed == set()


def test_the_layering_contracts_hold() -> None:
    """import-linter's contracts in pyproject.toml: ui/cli -> app -> report -> results -> runs,
    judging, authoring -> inference, corpus, store, interop -> core."""
    import subprocess
    import sys

    linter = Path(sys.executable).with_name("lint-imports")
    done = subprocess.run([str(linter), "--no-cache"], cwd=PACKAGE.parent, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "0 broken" in done.stdout


def test_the_contracts_catch_an_upward_import(tmp_path: Path) -> None:
    """The same contracts on a copy of the package with core importing the app layer fail."""
    done = lint_with_imports(tmp_path, {"core/errors.py": "from gtreview.app import exports"})
    assert done.returncode != 0 and "gtreview.core is not allowed to import gtreview.app" in done.stdout
