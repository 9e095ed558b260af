"""The AMX guard: the probe's reading, the seccomp filter, and the workers that use it.

This machine may have no AMX at all, so the probe's fates are played by stand-in probe
children (a fault is a real SIGSEGV in a real child); the filter and the worker are the
real ones, checked through the kernel (``/proc/PID/status`` and the arch_prctl answer).
"""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from gtreview.inference import amx_guard, x86_probe
from gtreview.inference.amx_guard import AmxVerdict, likely_cause
from gtreview.inference.backend import ChatMessage, CompletionRequest, Sampling
from gtreview.inference.worker import WorkerBackend

pytestmark = pytest.mark.skipif(not x86_probe.supported(), reason="the AMX guard is for Linux on x86-64")


def advertised_facts() -> x86_probe.AmxFacts:
    return x86_probe.AmxFacts(
        cpu_model="test CPU",
        cpuid_amx_tile=True,
        cpuid_amx_int8=True,
        cpuid_amx_bf16=True,
        cpuid_xsave_tile_components=True,
        palette1=(8192, 1024, 64, 8),
        xcr0=0x602E7,
        kernel_xcomp_supported=0x602E7,
        kernel_xcomp_permitted=0x202E7,
    )


def probe_that_faults() -> None:
    os.kill(os.getpid(), signal.SIGSEGV)


def probe_that_runs() -> None:
    os._exit(0)


def probe_that_is_refused() -> None:
    os._exit(3)


@pytest.mark.parametrize(
    ("target", "state", "deny"),
    [(probe_that_faults, "faults", True), (probe_that_runs, "works", False), (probe_that_is_refused, "refused", False)],
)
def test_the_probe_childs_fate_is_the_verdict(
    monkeypatch: pytest.MonkeyPatch, target: object, state: str, deny: bool
) -> None:
    monkeypatch.setattr(x86_probe, "amx_facts", advertised_facts)
    found, detail = amx_guard.run_probe(target)  # type: ignore[arg-type]
    assert found == state
    monkeypatch.setattr(amx_guard, "_probe", lambda: (found, detail))
    verdict = amx_guard.amx_verdict()
    assert verdict.deny is deny
    if state == "faults":
        assert "tile instructions fault (SIGSEGV)" in verdict.line()
        assert "model workers keep llama.cpp off AMX" in verdict.line()


def test_no_amx_advertised_means_no_probe_and_nothing_denied(monkeypatch: pytest.MonkeyPatch) -> None:
    facts = advertised_facts()
    monkeypatch.setattr(
        x86_probe, "amx_facts", lambda: x86_probe.AmxFacts(**{**facts.__dict__, "cpuid_amx_tile": False})
    )
    assert amx_guard.run_probe(probe_that_faults) == ("absent", "the CPU does not advertise AMX")


def test_the_policy_overrides_the_probe(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(amx_guard, "_probe", lambda: ("faults", "faulted"))
    monkeypatch.setenv(amx_guard.POLICY_ENV, "on")
    assert amx_guard.amx_verdict().deny is False
    monkeypatch.setattr(amx_guard, "_probe", lambda: ("works", "ran"))
    monkeypatch.setenv(amx_guard.POLICY_ENV, "off")
    assert amx_guard.amx_verdict().deny is True
    monkeypatch.setenv(amx_guard.POLICY_ENV, "auto")
    assert amx_guard.amx_verdict().deny is False


FILTER_CHECK = """
import threading
from gtreview.inference import amx_guard, x86_probe
before = x86_probe.arch_prctl(x86_probe.ARCH_REQ_XCOMP_PERM, x86_probe.XFEATURE_XTILEDATA)
amx_guard.deny_tile_permission()
after = x86_probe.arch_prctl(x86_probe.ARCH_REQ_XCOMP_PERM, x86_probe.XFEATURE_XTILEDATA)
other = x86_probe.arch_prctl(x86_probe.ARCH_GET_XCOMP_SUPP)
seen = []
thread = threading.Thread(target=lambda: seen.append(x86_probe.arch_prctl(x86_probe.ARCH_REQ_XCOMP_PERM, 18)))
thread.start(); thread.join()
print(before[1], after[0], after[1], other[0], seen[0][1])
"""


def test_the_filter_refuses_tile_permission_only(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", FILTER_CHECK], capture_output=True, text=True, timeout=60, check=True)
    before_errno, after_result, after_errno, other_result, thread_errno = (int(x) for x in done.stdout.split())
    assert before_errno != errno.EPERM  # granted (0) where AMX exists, EOPNOTSUPP/EINVAL where not
    assert (after_result, after_errno) == (-1, errno.EPERM)
    assert other_result == 0  # the other arch_prctl requests still answer
    assert thread_errno == errno.EPERM  # and every thread is covered


def seccomp_mode(pid: int) -> str:
    status = Path(f"/proc/{pid}/status").read_text(encoding="utf-8")
    return next(line.split()[1] for line in status.splitlines() if line.startswith("Seccomp:"))


def ask() -> CompletionRequest:
    return CompletionRequest(messages=[ChatMessage(role="user", content="Gold?")], sampling=Sampling(max_tokens=4))


def test_a_worker_runs_its_model_under_the_filter_when_the_tile_unit_faults(
    monkeypatch: pytest.MonkeyPatch, tiny_gguf: Path
) -> None:
    monkeypatch.setattr(
        "gtreview.inference.worker.amx_verdict", lambda: AmxVerdict("faults", "faulted (test)", deny=True)
    )
    with WorkerBackend(f"llama:{tiny_gguf}?ctx=256&seq=1&threads=1") as worker:
        assert worker.pid is not None and seccomp_mode(worker.pid) == "2"  # filter mode
        assert worker.complete_batch([ask()])[0].ok


def test_a_worker_runs_unfiltered_where_amx_is_fine(monkeypatch: pytest.MonkeyPatch, tiny_gguf: Path) -> None:
    monkeypatch.setattr("gtreview.inference.worker.amx_verdict", lambda: AmxVerdict("absent", "none", deny=False))
    with WorkerBackend(f"llama:{tiny_gguf}?ctx=256&seq=1&threads=1") as worker:
        assert worker.pid is not None and seccomp_mode(worker.pid) == "0"


def test_each_deadly_signal_names_its_likely_cause_and_fix() -> None:
    absent = AmxVerdict("absent", "no AMX", deny=False)
    guarded = AmxVerdict("faults", "faulted", deny=True)
    unguarded = AmxVerdict("faults", "faulted (GTREVIEW_AMX=on)", deny=False)
    amx = likely_cause(signal.SIGSEGV, unguarded) or ""
    assert "AMX tile unit" in amx and "GTREVIEW_AMX=off" in amx and "docs/llama-cpp-amx-fault.md" in amx
    assert "AMX" not in (likely_cause(signal.SIGSEGV, guarded) or "")
    assert "gtreview doctor" in (likely_cause(signal.SIGSEGV, absent) or "")
    assert "built for another CPU" in (likely_cause(signal.SIGILL, absent) or "")
    assert "out-of-memory killer" in (likely_cause(signal.SIGKILL, absent) or "")
    assert "changed or shrank" in (likely_cause(signal.SIGBUS, absent) or "")
    assert likely_cause(signal.SIGTERM, absent) is None
    for number in (signal.SIGSEGV, signal.SIGILL, signal.SIGKILL, signal.SIGBUS):
        cause = likely_cause(number, absent) or ""
        assert cause.startswith("likely cause: ") and "; fix: " in cause and "\n" not in cause


def test_the_facts_read_here_are_consistent() -> None:
    facts = x86_probe.amx_facts()
    assert facts is not None
    leaf0 = x86_probe.cpuid(0)
    assert leaf0 is not None and leaf0[0] >= 7  # every x86-64 CPU of this decade has leaf 7
    if facts.xcr0 is not None:
        assert facts.xcr0 & 0b11 == 0b11  # x87 and SSE state are always enabled
        if facts.kernel_xcomp_supported is not None:
            assert facts.kernel_xcomp_supported & ~facts.xcr0 & ~(0b11 << 17) == 0
    assert len(facts.lines()) == 5
