"""The GUI's forbidden contract (pyproject.toml) catches a ui module reaching below the app.

A copy of the package gets a controller importing a store repository, a widget importing
the backend factory, the main window opening the project itself and a view importing
judging; lint-imports must fail and name each. Only ``ui/app.py`` may open the project.
"""

from __future__ import annotations

from pathlib import Path

from tests.lint_copy import lint_with_imports

REACHING = {
    "run_controller.py": (
        "from gtreview.store import runs_repo",
        "gtreview.ui.run_controller -> gtreview.store.runs_repo",
    ),
    "widgets/runs_view.py": (
        "from gtreview.inference.factory import open_backend",
        "gtreview.ui.widgets.runs_view -> gtreview.inference.factory",
    ),
    "main_window.py": (
        "from gtreview.store.project import open_project",
        "gtreview.ui.main_window -> gtreview.store.project",
    ),
    "widgets/grading_view.py": (
        "from gtreview.judging import marking",
        "gtreview.ui.widgets.grading_view -> gtreview.judging.marking",
    ),
}


def test_the_gui_contract_catches_a_ui_module_reaching_below_the_app(tmp_path: Path) -> None:
    done = lint_with_imports(tmp_path, {f"ui/{module}": line for module, (line, _) in REACHING.items()})
    assert done.returncode != 0
    assert "The GUI calls the application layer, not the use cases' parts below it BROKEN" in done.stdout, done.stdout[
        -3000:
    ]
    for _, expected in REACHING.values():
        assert expected in done.stdout, (expected, done.stdout[-3000:])
