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


kernels_that_fault, kernels_that_run = probe_that_faults, probe_that_runs  # a child's fate is its exit


def build_without_kernels() -> None:
    os._exit(4)


def kernels_never_asked() -> None:
    os._exit(7)  # an exit code the verdict does not know: "unknown" if this ever ran


@pytest.mark.parametrize(
    ("target", "kernels", "state", "deny", "said"),
    [
        (probe_that_faults, kernels_never_asked, "faults", True, "tile instructions fault (SIGSEGV)"),
        (probe_that_is_refused, kernels_never_asked, "refused", False, "refuses tile permission"),
        (probe_that_runs, kernels_that_run, "works", False, "llama.cpp's AMX kernels run"),
        (probe_that_runs, build_without_kernels, "absent", False, "this llama.cpp build has no AMX kernels"),
        (probe_that_runs, kernels_that_fault, "faults", True, "this llama.cpp build's AMX kernels fault (SIGSEGV"),
    ],
)
def test_the_probe_childrens_fate_is_the_verdict(
    monkeypatch: pytest.MonkeyPatch, target: object, kernels: object, state: str, deny: bool, said: str
) -> None:
    """The tile instructions first; only where they run, this build's AMX kernels: a tile
    unit that works under a build whose kernels fault (GCC 12's dropped tile
    configuration) is kept off AMX as a faulting tile unit is."""
    monkeypatch.setattr(x86_probe, "amx_facts", advertised_facts)
    found, detail = amx_guard.run_probe(target, kernels)  # type: ignore[arg-type]
    assert found == state
    monkeypatch.setattr(amx_guard, "_probe", lambda: (found, detail))
    verdict = amx_guard.amx_verdict()
    assert verdict.deny is deny
    assert said in verdict.line()
    if deny:
        assert "model workers keep llama.cpp off AMX" in verdict.line()


def test_the_kernel_check_runs_a_quantized_model_here_under_the_verdict(tmp_path: Path) -> None:
    """The real check, in a child as the guard runs it: where this machine's verdict
    keeps llama.cpp off AMX (the filter installed first), the check's tiny Q8_0 model
    runs; where the verdict leaves AMX on, the build's AMX kernels ran it."""
    script = tmp_path / "check.py"
    script.write_text(
        "import os\n"
        "from gtreview.inference import amx_guard\n"
        "if __name__ == '__main__':\n"
        "    amx_guard.guard_this_process()\n"
        "    os._exit(amx_guard.run_kernel_check())\n"
    )
    done = subprocess.run([sys.executable, str(script)], capture_output=True, timeout=120, check=False)
    assert done.returncode in (0, 4), done.stderr.decode()[-2000:]


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
    assert "AMX kernels faulting" in amx and "GTREVIEW_AMX=off" in amx and "docs/llama-cpp-amx-fault.md" in amx
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
