"""A native crash in a test fails that test and the run goes on (tests/native_isolation.py).

Each check runs pytest in a subprocess on a few generated test modules, with the plugin
loaded as the suite loads it, and reads the outcome from pytest's own summary.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

NATIVE_MODULE = """
import ctypes
import os

import pytest

pytestmark = pytest.mark.native


def test_crashes_like_a_bad_kernel():
    ctypes.string_at(0)  # SIGSEGV, as a faulting tile instruction would


def test_runs_in_a_child_of_pytest():
    assert os.getpid() != int(os.environ["PYTEST_PARENT_PID"])


def test_fails_as_a_test_fails():
    assert 1 == 2
"""

PLAIN_MODULE = """
import llama_cpp
import pytest


def test_llama_in_the_pytest_process_is_refused():
    with pytest.raises(RuntimeError, match="mark the module"):
        llama_cpp.llama_backend_init()


def test_after_the_crash_the_run_goes_on():
    assert True
"""

MIXED_MODULE = """
import pytest


@pytest.mark.native
def test_native():
    pass


def test_plain():
    pass
"""


def run_pytest(tmp_path: Path, modules: dict[str, str]) -> subprocess.CompletedProcess[str]:
    for name, text in modules.items():
        (tmp_path / name).write_text(textwrap.dedent(text), encoding="utf-8")
    (tmp_path / "conftest.py").write_text('pytest_plugins = ["tests.native_isolation"]\n', encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYTEST_PARENT_PID": "0"}
    script = "import os, sys, pytest; os.environ['PYTEST_PARENT_PID'] = str(os.getpid()); sys.exit(pytest.main())"
    return subprocess.run(
        [sys.executable, "-c", script, "-p", "no:cacheprovider", "-q", "-rf", str(tmp_path)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_a_segfault_fails_its_test_with_the_signal_and_the_run_reports_the_rest(tmp_path: Path) -> None:
    done = run_pytest(tmp_path, {"test_native_mod.py": NATIVE_MODULE, "test_plain_mod.py": PLAIN_MODULE})
    out = done.stdout
    assert done.returncode == 1, out + done.stderr
    assert "2 failed, 3 passed" in out.splitlines()[-1]
    assert "FAILED test_native_mod.py::test_crashes_like_a_bad_kernel - native crash" in out
    assert "native crash: the test's forked child died (signal SIGSEGV): likely cause:" in out
    assert "FAILED test_native_mod.py::test_fails_as_a_test_fails" in out and "assert 1 == 2" in out


def test_a_module_that_mixes_native_and_plain_tests_is_refused(tmp_path: Path) -> None:
    done = run_pytest(tmp_path, {"test_mixed.py": MIXED_MODULE})
    assert done.returncode != 0
    assert "mark whole modules native, not single tests: test_mixed.py" in done.stdout + done.stderr
