"""What the installed llama.cpp build is, read in a throwaway child process.

A llama-cpp-python wheel compiled with ``-march=native`` on another CPU can die on an
illegal instruction as soon as its library loads, so even asking it its version happens
in a spawned child: a crash there is reported, with its likely cause, and the caller
(``gtreview doctor``, the About box) carries on.
"""

from __future__ import annotations

import multiprocessing
import signal
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

from gtreview.inference.amx_guard import amx_verdict, deny_tile_permission, likely_cause

_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class LlamaBuild:
    """The llama.cpp build as it describes itself; ``error`` when it could not be read."""

    python_package: str = ""  # llama-cpp-python's version
    llama_cpp: str = ""  # llama.cpp's own version string
    backends: dict[str, dict[str, str]] = field(default_factory=dict)  # "CPU" -> {"AVX2": "1", ...}
    gpu_offload: bool = False
    max_devices: int = 0
    system_info: str = ""
    error: str | None = None

    @property
    def cpu_features(self) -> list[str]:
        """The CPU features the build uses (those its system info reports as on)."""
        return [name for name, value in self.backends.get("CPU", {}).items() if value == "1"]

    def lines(self) -> list[str]:
        if self.error:
            return [f"llama.cpp: {self.error}"]
        others = [
            f"{name} ({', '.join(f'{k}={v}' for k, v in values.items())})" for name, values in self.backends.items()
        ]
        return [
            f"llama-cpp-python {self.python_package}, llama.cpp {self.llama_cpp}",
            f"backends: {'; '.join(name for name in self.backends) or 'none reported'}",
            f"CPU features used: {', '.join(self.cpu_features) or 'none reported'}",
            f"GPU offload: {'yes' if self.gpu_offload else 'no (a CPU build)'}"
            + (f", up to {self.max_devices} devices" if self.gpu_offload else ""),
            *(f"  {text}" for text in others if not text.startswith("CPU ")),
        ]


def parse_system_info(text: str) -> dict[str, dict[str, str]]:
    """``llama_print_system_info()`` as {backend: {key: value}}:
    ``"CUDA : ARCHS = 890 | USE_GRAPHS = 1 | CPU : SSE3 = 1 | AVX = 1 |"``."""
    backends: dict[str, dict[str, str]] = {}
    current: dict[str, str] | None = None
    for part in text.split("|"):
        part = part.strip()
        if not part:
            continue
        if " : " in part:
            name, _, part = part.partition(" : ")
            current = backends.setdefault(name.strip(), {})
        if current is None:
            current = backends.setdefault("", {})
        key, _, value = part.partition("=")
        if key.strip():
            current[key.strip()] = value.strip()
    return backends


def _read_build(conn: Connection, deny_amx: bool) -> None:
    """The child: load llama.cpp, read what it says of itself, send it back."""
    if deny_amx:
        deny_tile_permission()
    import llama_cpp

    llama_cpp.llama_backend_init()
    info = llama_cpp.llama_print_system_info()
    conn.send(
        {
            "python_package": str(llama_cpp.__version__),
            "llama_cpp": llama_cpp.llama_version().decode("utf-8", errors="replace"),
            "system_info": info.decode("utf-8", errors="replace") if isinstance(info, bytes) else str(info),
            "gpu_offload": bool(llama_cpp.llama_supports_gpu_offload()),
            "max_devices": int(llama_cpp.llama_max_devices()),
        }
    )
    conn.close()


def read_llama_build() -> LlamaBuild:
    """The installed build's versions, backends and CPU features, read in a spawned child."""
    context = multiprocessing.get_context("spawn")
    parent, child_end = context.Pipe(duplex=False)
    verdict = amx_verdict()
    child = context.Process(
        target=_read_build, args=(child_end, verdict.deny), name="gtreview-llama-build", daemon=True
    )
    child.start()
    child_end.close()
    reply: dict[str, Any] | None = None
    if parent.poll(_TIMEOUT_S):
        try:
            reply = parent.recv()
        except (EOFError, OSError):
            reply = None
    child.join(5.0)
    if child.exitcode is None:
        child.kill()
        child.join()
    parent.close()
    if reply is None:
        code = child.exitcode
        if code is not None and code < 0:
            cause = likely_cause(-code, verdict)
            name = signal.Signals(-code).name if -code in signal.Signals._value2member_map_ else str(-code)
            return LlamaBuild(
                error=f"loading llama.cpp killed its process (signal {name})" + (f"; {cause}" if cause else "")
            )
        if code is None:
            return LlamaBuild(error=f"llama.cpp did not answer within {_TIMEOUT_S:g} s")
        return LlamaBuild(error=f"cannot load llama.cpp (exit code {code}): is llama-cpp-python installed?")
    text = str(reply["system_info"])
    return LlamaBuild(
        python_package=str(reply["python_package"]),
        llama_cpp=str(reply["llama_cpp"]),
        backends=parse_system_info(text),
        gpu_offload=bool(reply["gpu_offload"]),
        max_devices=int(reply["max_devices"]),
        system_info=text.strip(),
    )
