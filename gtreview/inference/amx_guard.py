"""Keep llama.cpp off AMX where its tile kernels fault, and say why a model worker died.

Where the CPU advertises AMX, llama.cpp's native build runs its quantized matrix
products on the tile unit, and that can fault on the first tile instruction for two
reasons (``docs/llama-cpp-amx-fault.md``): a virtual machine whose tile unit faults,
or a build whose compiler dropped the tile configuration (GCC 12's ``_tile_loadconfig``
tells the optimizer it reads 8 of its 64 bytes, so the rows and column widths are never
stored and ``ldtilecfg`` loads stack garbage: #GP). Either way every quantized model
dies. ggml uses AMX only when ``arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA)``
succeeds and falls back to its AVX-512/AVX2 kernels when it fails, so the fix is at run
time and whatever the build:

1. :func:`amx_verdict` asks, once per process and only where the CPU advertises AMX, in
   throwaway children (a fault kills only the child): do the tile instructions run
   (:mod:`gtreview.inference.x86_probe`), and then do *this* llama.cpp build's AMX
   kernels run a tiny quantized model (:func:`run_kernel_check`)?
2. where either faulted, every model worker calls :func:`deny_tile_permission` before
   llama.cpp loads: a seccomp filter that answers that one ``arch_prctl`` request with
   EPERM and lets every other system call through.

``GTREVIEW_AMX`` overrides the probe: ``off`` always keeps ggml off AMX, ``on`` never
does (for a machine whose probe is wrong), ``auto`` (the default) follows the probe.
Where AMX works it stays in use, with its speed.
"""

from __future__ import annotations

import ctypes
import errno
import multiprocessing
import os
import signal
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Literal

from gtreview.inference import x86_probe

POLICY_ENV = "GTREVIEW_AMX"
FAULT_DOC = "docs/llama-cpp-amx-fault.md"
_PROBE_TIMEOUT_S = 60.0

AmxState = Literal["absent", "refused", "works", "faults", "unknown"]


@dataclass(frozen=True)
class AmxVerdict:
    """What the tile probe found and whether model workers keep ggml off AMX."""

    state: AmxState
    detail: str  # one line: what was seen
    deny: bool  # model workers refuse ggml's tile permission request

    def line(self) -> str:
        """One line for `gtreview doctor` and the crash messages."""
        action = "model workers keep llama.cpp off AMX" if self.deny else "llama.cpp may use AMX"
        if self.state == "absent":
            action = "nothing to do"
        return f"AMX: {self.detail}; {action}"


def policy() -> Literal["auto", "on", "off"]:
    value = os.environ.get(POLICY_ENV, "auto").strip().lower()
    if value in ("off", "0", "no", "false"):
        return "off"
    if value in ("on", "1", "yes", "true"):
        return "on"
    return "auto"


_REFUSED = 3  # the kernel refused tile permission
_NO_AMX_KERNELS = 4  # the llama.cpp build has no AMX kernels to run


def _probe_child() -> None:
    """The spawned child: its exit code is the probe's; a fault ends it on a signal."""
    os._exit(x86_probe.run_tile_probe())


def run_kernel_check() -> int:
    """Run this llama.cpp build's AMX kernels: the engine answers one prompt on a tiny
    random Q8_0 model (quantized, with shapes ggml's AMX matrix product takes), as a
    model worker would. Returns 0 when it ran, 4 when the build has no AMX kernels. A
    faulting kernel kills the calling process: call this in a child only."""
    import llama_cpp

    from gtreview.inference.backend import ChatMessage, CompletionRequest, Sampling
    from gtreview.inference.llama import BatchedLlamaEngine
    from gtreview.inference.tiny_model import write_tiny_llama_gguf

    if "AMX_INT8 = 1" not in llama_cpp.llama_print_system_info().decode("utf-8", "replace"):
        return _NO_AMX_KERNELS
    prompt = "Where does the gold lie in a saddle reef, and why there? " * 3  # many rows: the tile path
    with tempfile.TemporaryDirectory(prefix="gtreview-amx-") as folder:
        path = write_tiny_llama_gguf(Path(folder) / "amx-check-q8_0.gguf", q8_0=True, ctx=256)
        with BatchedLlamaEngine(path, n_seq_max=1, n_ctx=256, n_threads=1) as engine:
            request = CompletionRequest(
                messages=[ChatMessage(role="user", content=prompt)], sampling=Sampling(max_tokens=2)
            )
            engine.generate([request])
    return 0


def _kernel_child() -> None:
    os._exit(run_kernel_check())


def _run_child(target: Callable[[], None]) -> int | None:
    """``target`` in a spawned child: its exit code (negative: the signal that ended it),
    None when it did not finish in time."""
    context = multiprocessing.get_context("spawn")
    child = context.Process(target=target, name="gtreview-amx-probe", daemon=True)
    child.start()
    child.join(_PROBE_TIMEOUT_S)
    if child.exitcode is None:
        child.kill()
        child.join()
        return None
    return child.exitcode


def run_probe(
    target: Callable[[], None] = _probe_child, kernels: Callable[[], None] = _kernel_child
) -> tuple[AmxState, str]:
    """Where the CPU advertises AMX, run the tile probe (``target``) and then, where the
    tile instructions run, this build's AMX kernels (``kernels``), each in a spawned
    child, and read their fate: (state, one line saying what was seen)."""
    facts = x86_probe.amx_facts()
    if facts is None:
        return "absent", "not Linux on x86-64"
    if not facts.advertised:
        return "absent", "the CPU does not advertise AMX"
    code = _run_child(target)
    if code is None:
        return "unknown", "the tile probe did not finish"
    if code == _REFUSED:
        return (
            "refused",
            "the CPU advertises AMX but the kernel refuses tile permission (llama.cpp falls back by itself)",
        )
    if code < 0:
        return "faults", (
            f"the CPU advertises AMX and the kernel grants tile permission, but the tile instructions fault "
            f"({_signal_name(-code)})"
        )
    if code != 0:
        return "unknown", f"the tile probe exited with code {code}"
    code = _run_child(kernels)
    if code is None:
        return "unknown", "the tile instructions run; the check of llama.cpp's AMX kernels did not finish"
    if code == 0:
        return "works", "the CPU advertises AMX; its tile instructions and llama.cpp's AMX kernels run"
    if code == _NO_AMX_KERNELS:
        # Nothing of AMX in the build (the README's portable install): no AMX to suspect.
        return "absent", "the CPU advertises AMX, but this llama.cpp build has no AMX kernels"
    if code < 0:
        return "faults", (
            f"the CPU advertises AMX and its tile instructions run, but this llama.cpp build's AMX kernels fault "
            f"({_signal_name(-code)}; {FAULT_DOC} says why)"
        )
    return "unknown", f"the check of llama.cpp's AMX kernels exited with code {code}"


@cache
def _probe() -> tuple[AmxState, str]:
    return run_probe()


def amx_verdict() -> AmxVerdict:
    """The probe's finding (run once per process, only where AMX is advertised) and the
    policy's decision."""
    chosen = policy()
    if not x86_probe.supported():
        return AmxVerdict("absent", "not Linux on x86-64", deny=False)
    if chosen == "off":
        return AmxVerdict("unknown", f"{POLICY_ENV}=off", deny=True)
    state, detail = _probe()
    if chosen == "on":
        return AmxVerdict(state, f"{detail} ({POLICY_ENV}=on)", deny=False)
    return AmxVerdict(state, detail, deny=state == "faults")


# -- the seccomp filter -----------------------------------------------------------------

_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2
_SYS_SECCOMP = 317  # x86-64
_SECCOMP_SET_MODE_FILTER = 1
_SECCOMP_FILTER_FLAG_TSYNC = 1
_AUDIT_ARCH_X86_64 = 0xC000003E
_SECCOMP_RET_ALLOW = 0x7FFF0000
_SECCOMP_RET_ERRNO = 0x00050000
_BPF_LD_W_ABS = 0x20
_BPF_JEQ_K = 0x15
_BPF_RET_K = 0x06


class _SockFilter(ctypes.Structure):
    _fields_ = (("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8), ("k", ctypes.c_uint32))


class _SockFprog(ctypes.Structure):
    _fields_ = (("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_SockFilter)))


def _filter_program() -> list[tuple[int, int, int, int]]:
    """arch_prctl(ARCH_REQ_XCOMP_PERM, ...) -> EPERM; everything else allowed.
    Offsets into struct seccomp_data: nr 0, arch 4, args[0] 16 (low half, little-endian)."""
    return [
        (_BPF_LD_W_ABS, 0, 0, 4),
        (_BPF_JEQ_K, 0, 5, _AUDIT_ARCH_X86_64),
        (_BPF_LD_W_ABS, 0, 0, 0),
        (_BPF_JEQ_K, 0, 3, x86_probe.SYS_ARCH_PRCTL),
        (_BPF_LD_W_ABS, 0, 0, 16),
        (_BPF_JEQ_K, 0, 1, x86_probe.ARCH_REQ_XCOMP_PERM),
        (_BPF_RET_K, 0, 0, _SECCOMP_RET_ERRNO | errno.EPERM),
        (_BPF_RET_K, 0, 0, _SECCOMP_RET_ALLOW),
    ]


def deny_tile_permission() -> None:
    """From now on this process (all its threads, and its children) is refused AMX tile
    permission, so llama.cpp loaded here uses its AVX kernels. Raises OSError when the
    filter cannot be installed; a no-op off x86-64 Linux."""
    if not x86_probe.supported():
        return
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    program = _filter_program()
    filters = (_SockFilter * len(program))(*(_SockFilter(*row) for row in program))
    fprog = _SockFprog(len(program), filters)
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"prctl(PR_SET_NO_NEW_PRIVS): {os.strerror(error)}")
    result = libc.syscall(
        ctypes.c_long(_SYS_SECCOMP),
        ctypes.c_long(_SECCOMP_SET_MODE_FILTER),
        ctypes.c_long(_SECCOMP_FILTER_FLAG_TSYNC),
        ctypes.byref(fprog),
    )
    if result != 0 and ctypes.get_errno() == errno.ENOSYS:  # an old kernel: this thread only
        result = libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0)
    if result != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"seccomp filter: {os.strerror(error)}")


def guard_this_process() -> AmxVerdict:
    """Probe (once) and, where the tile unit faults, deny tile permission here: for code
    that runs llama.cpp in its own process (benchmarks, a test's forked child)."""
    verdict = amx_verdict()
    if verdict.deny:
        deny_tile_permission()
    return verdict


# -- why a worker died ------------------------------------------------------------------


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


REINSTALL_HERE = (
    'CMAKE_ARGS="-DGGML_NATIVE=OFF" pip install --force-reinstall --no-cache-dir --no-deps '
    "--no-binary llama-cpp-python llama-cpp-python==0.3.36"
)


def likely_cause(signal_number: int, amx: AmxVerdict | None) -> str | None:
    """'likely cause: ...; fix: ...' for a model worker that ended on this signal, or None
    when nothing specific is known. ``amx`` is the verdict the worker ran under."""
    amx_suspect = amx is not None and not amx.deny and amx.state in ("faults", "works", "unknown")
    if signal_number in (signal.SIGSEGV, signal.SIGILL) and amx_suspect:
        return (
            f"likely cause: llama.cpp's AMX kernels faulting on this machine ({FAULT_DOC}); "
            f"fix: set {POLICY_ENV}=off and run `gtreview doctor`"
        )
    if signal_number == signal.SIGILL:
        return (
            "likely cause: llama.cpp was built for another CPU (a wheel compiled with -march=native elsewhere); "
            f"fix: rebuild it here: {REINSTALL_HERE}"
        )
    if signal_number == signal.SIGKILL:
        return (
            "likely cause: the out-of-memory killer; fix: a smaller model, context or parallelism "
            "(for example ?ctx=4096&seq=4 on the spec)"
        )
    if signal_number == signal.SIGBUS:
        return "likely cause: the model file changed or shrank while it was open; fix: copy it whole, then run again"
    if signal_number == signal.SIGSEGV:
        return (
            "likely cause: a crash inside llama.cpp (a model file or architecture this build cannot run); "
            "fix: run `gtreview doctor` with this model"
        )
    return None
