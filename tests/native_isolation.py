"""Native inference never runs in the pytest process (a pytest plugin, loaded by conftest).

llama.cpp is C++: a segfault in a kernel (the AMX tile fault of
``docs/llama-cpp-amx-fault.md``), a failed assert or the OOM killer ends the process it
runs in. Run inside pytest, one such crash ends the whole test run with no summary. So:

* a test module that drives llama.cpp itself (engines, in-process backends) marks all its
  tests ``native`` (``pytestmark = pytest.mark.native``); each such test runs in a child
  forked from pytest, with the AMX guard of ``gtreview.inference.amx_guard`` applied
  there, and only its reports come back. A child that dies on a signal fails that one
  test, with the signal and its likely cause in the message, and the run goes on;
* anywhere else, llama.cpp's entry points raise in the pytest process, so a test that
  forgot the mark fails at once instead of crashing the run one day. Tests that use
  models through ``open_backend`` (a spawned worker process) need no mark.

Forking copies the parent, fixtures included. Fixtures of a native module are set up and
torn down in each test's child (session fixtures that make model files check whether the
file is already there); native modules hold native tests only, so the parent never owns a
fixture that a child tears down.
"""

from __future__ import annotations

import os
import pickle
import signal
import time
from typing import Any

import pytest
from _pytest.reports import TestReport
from _pytest.runner import runtestprotocol

MARK = "native"
_in_child = False
_guarded_names = ("llama_backend_init", "llama_model_load_from_file", "llama_load_model_from_file")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", f"{MARK}: drives llama.cpp in this process; runs in a forked child per test")
    _refuse_native_calls_here()


def _refuse_native_calls_here() -> None:
    """Make llama.cpp's entry points raise in the pytest process (not in a forked child)."""
    try:
        import llama_cpp
    except ImportError:  # nothing native to guard
        return
    parent = os.getpid()
    for name in _guarded_names:
        original = getattr(llama_cpp, name, None)
        if original is None:
            continue

        def guarded(*args: Any, _original: Any = original, _name: str = name) -> Any:
            if os.getpid() == parent and not _in_child:
                raise RuntimeError(
                    f"llama_cpp.{_name} called in the pytest process: mark the module "
                    f"`pytestmark = pytest.mark.{MARK}` or open the model with open_backend (a worker)"
                )
            return _original(*args)

        guarded.binding = original  # type: ignore[attr-defined]  # for tests that read the binding
        setattr(llama_cpp, name, guarded)
        llama_cpp_module = getattr(llama_cpp, "llama_cpp", None)
        if llama_cpp_module is not None and getattr(llama_cpp_module, name, None) is original:
            setattr(llama_cpp_module, name, guarded)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A module is native as a whole or not at all (see the module doc)."""
    kinds: dict[str, set[bool]] = {}
    for item in items:
        kinds.setdefault(item.nodeid.split("::")[0], set()).add(item.get_closest_marker(MARK) is not None)
    mixed = sorted(module for module, seen in kinds.items() if len(seen) > 1)
    if mixed:
        raise pytest.UsageError(f"mark whole modules {MARK}, not single tests: {', '.join(mixed)}")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> bool | None:
    if item.get_closest_marker(MARK) is None or not hasattr(os, "fork") or _in_child:
        return None
    hook = item.ihook
    hook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
    for report in _run_in_child(item, nextitem):
        hook.pytest_runtest_logreport(report=report)
    # The parent's own setup stack (session, folders) moves on as it would have.
    item.session._setupstate.teardown_exact(nextitem)
    hook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
    return True


def _run_in_child(item: pytest.Item, nextitem: pytest.Item | None) -> list[TestReport]:
    from gtreview.inference.amx_guard import amx_verdict

    amx_verdict()  # probed once here (where AMX is advertised), so every child inherits the answer
    read_fd, write_fd = os.pipe()
    started = time.monotonic()
    pid = os.fork()
    if pid == 0:  # the child: run the test, send its reports, leave without cleanup
        os.close(read_fd)
        _child(item, nextitem, write_fd)
    os.close(write_fd)
    with os.fdopen(read_fd, "rb") as pipe:
        payload = pipe.read()
    _, status = os.waitpid(pid, 0)
    if payload:
        config = item.config
        data = pickle.loads(payload)
        return [config.hook.pytest_report_from_serializable(config=config, data=d) for d in data]
    return [_crash_report(item, status, time.monotonic() - started)]


def _child(item: pytest.Item, nextitem: pytest.Item | None, write_fd: int) -> None:
    global _in_child
    _in_child = True
    code = 0
    try:
        from gtreview.inference.amx_guard import guard_this_process

        guard_this_process()
        reports = runtestprotocol(item, log=False, nextitem=nextitem)
        config = item.config
        data = [config.hook.pytest_report_to_serializable(config=config, report=r) for r in reports]
        with os.fdopen(write_fd, "wb") as pipe:
            pipe.write(pickle.dumps(data))
    except BaseException:  # noqa: BLE001 - the parent turns an empty pipe into a failure
        code = 1
    finally:
        os._exit(code)


def _crash_report(item: pytest.Item, status: int, duration: float) -> TestReport:
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        from gtreview.inference.amx_guard import amx_verdict, likely_cause

        name = signal.Signals(number).name if number in signal.Signals._value2member_map_ else str(number)
        cause = likely_cause(number, amx_verdict())
        why = f"the test's forked child died (signal {name})" + (f": {cause}" if cause else "")
    else:
        why = f"the test's forked child exited with code {os.WEXITSTATUS(status)} before reporting"
    return TestReport(
        nodeid=item.nodeid,
        location=item.location,
        keywords={name: 1 for name in item.keywords},
        outcome="failed",
        longrepr=f"native crash: {why}",
        when="call",
        sections=[],
        duration=duration,
    )
