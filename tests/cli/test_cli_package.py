"""The shape of gtreview.cli: no import cycle, a handler on every command, one-line errors."""

from __future__ import annotations

import argparse
import ast
import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from gtreview import __version__
from gtreview.cli import main as cli_main
from gtreview.cli.common import EXIT_USAGE, CliError
from gtreview.core.errors import Cancelled, UserError
from tests.lint_copy import lint_with_imports

CLI = Path(__file__).resolve().parents[2] / "gtreview" / "cli"
MODULES = sorted(f"gtreview.cli.{p.stem}" for p in CLI.glob("*.py") if p.stem != "__init__")
ENTRY = ("gtreview.cli.main", "gtreview.cli.__main__")


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


def imports_of(path: Path) -> set[str]:
    """Every module a file imports, with ``from gtreview.cli import x`` as gtreview.cli.x."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: resolve against gtreview.cli
                base = "gtreview.cli" + (f".{base}" if base else "")
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def test_the_package_has_its_modules() -> None:
    assert {"gtreview.cli.common", "gtreview.cli.main", "gtreview.cli.__main__", "gtreview.cli.rubric"} <= set(MODULES)
    assert len(MODULES) >= 14


@pytest.mark.parametrize("name", [m for m in MODULES if m not in ENTRY])
def test_a_command_module_imports_alone_and_never_main(name: str) -> None:
    path = CLI / f"{name.rsplit('.', 1)[1]}.py"
    assert "gtreview.cli.main" not in imports_of(path)
    result = run_python(
        f"import importlib, sys; importlib.import_module({name!r});"
        "loaded = [m for m in ('gtreview.cli.main', 'PySide6', 'sqlalchemy') if m in sys.modules];"
        "assert not loaded, loaded"
    )
    assert result.returncode == 0, result.stderr


def test_common_is_a_leaf() -> None:
    assert not {n for n in imports_of(CLI / "common.py") if n.startswith("gtreview.cli")}


def test_main_imports_fresh_and_builds_the_parser_without_the_store_or_qt() -> None:
    result = run_python(
        "import sys; from gtreview.cli.main import build_parser; build_parser();"
        "loaded = [m for m in ('PySide6', 'sqlalchemy') if m in sys.modules]; assert not loaded, loaded"
    )
    assert result.returncode == 0, result.stderr


def leaves(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> list[tuple[str, argparse.ArgumentParser]]:
    found = []
    groups = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    for group in groups:
        for name, sub in group.choices.items():
            found += leaves(sub, (*path, name))
    if not groups:
        found.append((" ".join(path), parser))
    return found


def test_every_leaf_command_has_a_handler_and_typed_options() -> None:
    commands = leaves(cli_main.build_parser())
    names = {name for name, _ in commands}
    assert {"gui", "rubric validate", "corpus inventory", "grades check", "score", "harness import", "run"} <= names
    assert {"report", "release create", "keys list", "export csv", "draft", "probe", "calibrate"} <= names
    untyped = []
    for name, parser in commands:
        assert callable(parser.get_default("handler")), f"{name} has no handler"
        for action in parser._actions:
            takes_value = action.nargs != 0 and not isinstance(action, argparse._HelpAction | argparse._VersionAction)
            if takes_value and action.type is None and action.choices is None:
                untyped.append(f"{name} {action.option_strings or action.dest}")
    assert untyped == []


def test_a_group_without_an_action_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        cli_main.main(["rubric"])
    assert exited.value.code == EXIT_USAGE
    with pytest.raises(SystemExit):
        cli_main.main(["run", "--rubric", "r.json", "--judge", "x", "--repeats", "0"])
    assert "--repeats: must be at least 1, got 0" in capsys.readouterr().err


# --- errors through main ----------------------------------------------------------------


class Odd(UserError):
    exit_status = 3


def with_command(monkeypatch: pytest.MonkeyPatch, error: BaseException) -> None:
    """Add ``boom [--json]``, whose handler raises ``error``, to the parser main builds."""

    def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
        boom = commands.add_parser("boom")
        boom.add_argument("--json", action="store_true")

        def handler(args: argparse.Namespace) -> int:
            raise error

        boom.set_defaults(handler=handler)

    monkeypatch.setattr(cli_main, "GROUPS", (*cli_main.GROUPS, SimpleNamespace(register=register)))


@pytest.mark.parametrize(
    ("error", "status", "line"),
    [
        (Odd("first line\nsecond line"), 3, "first line"),
        (CliError("bad flag"), EXIT_USAGE, "bad flag"),
        (CliError("stopped short", 1), 1, "stopped short"),
        (Cancelled("the pass was cancelled; what finished is stored"), 130, "the pass was cancelled"),
        (Cancelled(), 130, "cancelled"),
    ],
)
def test_user_errors_and_cancels_are_one_line_with_their_status(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], error: Exception, status: int, line: str
) -> None:
    with_command(monkeypatch, error)
    assert cli_main.main(["boom"]) == status
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and err.startswith(f"gtreview: error: {line}")
    assert cli_main.main(["boom", "--json"]) == status
    out, err = capsys.readouterr()
    assert json.loads(out)["ok"] is False and json.loads(out)["error"].startswith(line) and err.count("\n") == 1


def test_a_bug_is_one_line_pointing_at_the_log(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("GTREVIEW_DEBUG", raising=False)
    with_command(monkeypatch, RuntimeError("broken\ninside"))
    assert cli_main.main(["boom"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("gtreview: error: RuntimeError: broken")
    monkeypatch.setenv("GTREVIEW_DEBUG", "1")
    with pytest.raises(RuntimeError, match="broken"):
        cli_main.main(["boom"])


def test_an_error_of_a_lower_layer_is_reported_by_main(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`corpus inventory` no longer wraps the ProjectError: it is a UserError main reports."""
    assert cli_main.main(["corpus", "inventory", "--project", str(tmp_path / "nowhere"), "--json"]) == EXIT_USAGE
    out, err = capsys.readouterr()
    assert "is not a gtreview project" in json.loads(out)["error"] and err.count("\n") == 1
    assert not (tmp_path / "nowhere").exists()


def test_no_command_or_only_project_opens_the_gui(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from gtreview.cli import gui

    opened: list[dict[str, Any]] = []
    monkeypatch.setattr(gui, "run_gui", lambda args: opened.append(vars(args)) or 0)
    assert cli_main.main([]) == 0
    assert cli_main.main(["--project", str(tmp_path)]) == 0
    assert cli_main.main(["--sample"]) == 0
    assert [(o["command"], o["project"], o["sample"]) for o in opened] == [
        ("gui", None, False),
        ("gui", tmp_path, False),
        ("gui", None, True),
    ]


def test_messages_meant_for_the_user_are_user_errors() -> None:
    from gtreview.authoring.pipeline import DraftingCancelled, NothingToSaveError
    from gtreview.authoring.pricing import PriceTableError
    from gtreview.core.rubric_text import RubricReadError
    from gtreview.corpus.readers import CorpusImportError
    from gtreview.inference.gguf_check import ModelFileError
    from gtreview.inference.model_configs import ModelConfigError
    from gtreview.inference.specs import BackendOpenError, ModelSpecError
    from gtreview.inference.worker import GenerationCancelled
    from gtreview.interop.harness_files import HarnessFileError
    from gtreview.judging.calibration import DriftError
    from gtreview.judging.pointwise import JudgingCancelled
    from gtreview.report.release import ReleaseError
    from gtreview.report.signing import SigningKeyError
    from gtreview.runs.execute import PassCancelled
    from gtreview.store.corpus_repo import DocumentConflictError
    from gtreview.store.project import ProjectError
    from gtreview.store.sets import SetImportError

    for error in (RubricReadError, CorpusImportError, ModelConfigError, ModelSpecError, BackendOpenError):
        assert issubclass(error, UserError) and issubclass(error, ValueError), error
    for error in (HarnessFileError, ReleaseError, SigningKeyError, DocumentConflictError, ProjectError):
        assert issubclass(error, UserError) and issubclass(error, ValueError), error
    assert issubclass(SetImportError, ValueError) and issubclass(PriceTableError, ValueError)
    assert issubclass(NothingToSaveError, UserError) and issubclass(ModelFileError, UserError)
    assert issubclass(DriftError, UserError) and issubclass(DriftError, RuntimeError)
    for cancelled in (PassCancelled, DraftingCancelled, JudgingCancelled):
        assert issubclass(cancelled, Cancelled) and issubclass(cancelled, RuntimeError), cancelled
    assert issubclass(GenerationCancelled, Cancelled)
    assert ProjectError("x").exit_status == 2 and PassCancelled("x").exit_status == 130


@pytest.mark.parametrize("module", ["gtreview.cli", "gtreview"])
def test_python_dash_m_prints_the_version(module: str) -> None:
    result = subprocess.run([sys.executable, "-m", module, "--version"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"gtreview {__version__}"


# --- the CLI calls the application layer ------------------------------------------------

FORBIDDEN = (
    "gtreview.runs.execute",
    "gtreview.judging",
    "gtreview.authoring",
    "gtreview.store",
    "gtreview.inference.factory",
)


def test_command_modules_import_the_application_layer_not_what_is_below_it() -> None:
    """What pyproject.toml's forbidden contract states, read straight off the source."""
    reached = {
        f"{path.stem} imports {name}"
        for path in CLI.glob("*.py")
        for name in imports_of(path)
        if name.startswith(FORBIDDEN)
    }
    opening = {
        "gtreview.store.project",
        "gtreview.store.project.open_project",
        "gtreview.store.project.create_project",
        "gtreview.store.project.NoProjectError",
        "gtreview.store.project.Project",
        "gtreview.store.project.DB_FILE",  # whether the default project exists (commands that need none)
    }
    assert reached == {f"common imports {name}" for name in opening}  # opening (or creating) the project, only there


def test_the_forbidden_contract_catches_a_command_reaching_below_the_app(tmp_path: Path) -> None:
    done = lint_with_imports(tmp_path, {"cli/judging.py": "from gtreview.judging import calibration"})
    assert done.returncode != 0
    assert "gtreview.cli.judging -> gtreview.judging.calibration" in done.stdout, done.stdout[-2000:]
