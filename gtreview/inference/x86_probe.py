"""What an x86-64 CPU and the Linux kernel say about AMX, read with a few instructions.

llama.cpp's native build compiles ggml's AMX kernels when the compiler sees AMX on the
build machine, asks the kernel for tile permission (``arch_prctl(ARCH_REQ_XCOMP_PERM,
XFEATURE_XTILEDATA)``) and, when that succeeds, runs its quantized matrix products on
the tile unit. Some virtual machines advertise AMX and let the kernel grant the
permission, yet fault on the first tile instruction (``docs/llama-cpp-amx-fault.md``).
Python cannot ask the CPU directly, so this module maps a page of executable memory
with a handful of machine instructions:

* ``cpuid`` and ``xgetbv``: what the CPU advertises and what the OS enabled in XCR0;
* a tile probe: ``ldtilecfg`` (palette 1, tiles 0-2 of 16 rows x 64 bytes, as ggml
  configures them), ``tilezero``, one ``tdpbssd`` and ``tilerelease``. Where the tile
  unit faults, this kills the process that runs it, so :func:`run_tile_probe` is only
  ever called in a throwaway child (:mod:`gtreview.inference.amx_guard`).

Only Linux on x86-64 is handled; everywhere else the readers return None.
"""

from __future__ import annotations

import ctypes
import mmap
import os
import platform
import sys
from dataclasses import dataclass
from functools import cache
from typing import Any

ARCH_GET_XCOMP_SUPP = 0x1021
ARCH_GET_XCOMP_PERM = 0x1022
ARCH_REQ_XCOMP_PERM = 0x1023
XFEATURE_XTILECFG = 17
XFEATURE_XTILEDATA = 18
SYS_ARCH_PRCTL = 158  # x86-64

# void cpuid(uint32 leaf, uint32 subleaf, uint32 out[4]): eax, ebx, ecx, edx into out.
_CPUID = bytes.fromhex(
    "53"  # push rbx (callee-saved, cpuid writes it)
    "89f8"  # mov eax, edi
    "89f1"  # mov ecx, esi
    "4989d0"  # mov r8, rdx
    "0fa2"  # cpuid
    "418900"  # mov [r8], eax
    "41895804"  # mov [r8+4], ebx
    "41894808"  # mov [r8+8], ecx
    "4189500c"  # mov [r8+12], edx
    "5b"  # pop rbx
    "c3"  # ret
)
# uint64 xgetbv(uint32 index)
_XGETBV = bytes.fromhex(
    "89f9"  # mov ecx, edi
    "0f01d0"  # xgetbv
    "48c1e220"  # shl rdx, 32
    "4809d0"  # or rax, rdx
    "c3"  # ret
)
# void tiles(const uint8 cfg[64])
_TILES = bytes.fromhex(
    "c4e2784907"  # ldtilecfg [rdi]
    "c4e27b49c0"  # tilezero tmm0
    "c4e27b49c8"  # tilezero tmm1
    "c4e27b49d0"  # tilezero tmm2
    "c4e26b5ec1"  # tdpbssd tmm0, tmm1, tmm2
    "c4e27849c0"  # tilerelease
    "c3"  # ret
)


def supported() -> bool:
    """Linux on x86-64, where the instructions and the arch_prctl calls exist."""
    return sys.platform.startswith("linux") and platform.machine().lower() in ("x86_64", "amd64")


class _Code:
    """Machine code in a private executable page, callable through ctypes."""

    def __init__(self) -> None:
        self._page = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
        self._offset = 0
        self._base = ctypes.addressof(ctypes.c_char.from_buffer(self._page))

    def add(self, code: bytes, prototype: Any) -> Any:
        start = self._offset
        self._page[start : start + len(code)] = code
        self._offset = (start + len(code) + 15) // 16 * 16
        return prototype(self._base + start)


_pages: list[_Code] = []  # the executable page lives as long as the functions in it


@cache
def _functions() -> tuple[Any, Any, Any]:
    code = _Code()
    _pages.append(code)
    cpuid = code.add(_CPUID, ctypes.CFUNCTYPE(None, ctypes.c_uint32, ctypes.c_uint32, ctypes.c_void_p))
    xgetbv = code.add(_XGETBV, ctypes.CFUNCTYPE(ctypes.c_uint64, ctypes.c_uint32))
    tiles = code.add(_TILES, ctypes.CFUNCTYPE(None, ctypes.c_void_p))
    return cpuid, xgetbv, tiles


def cpuid(leaf: int, subleaf: int = 0) -> tuple[int, int, int, int] | None:
    """(eax, ebx, ecx, edx) of one CPUID leaf; None off x86-64 Linux."""
    if not supported():
        return None
    out = (ctypes.c_uint32 * 4)()
    _functions()[0](leaf, subleaf, ctypes.addressof(out))
    return out[0], out[1], out[2], out[3]


def xcr0() -> int | None:
    """The OS-enabled state components (XCR0); None where XGETBV is not usable."""
    leaf1 = cpuid(1)
    if leaf1 is None or not leaf1[2] >> 27 & 1:  # CPUID.1:ECX.OSXSAVE
        return None
    return int(_functions()[1](0))


def _libc() -> Any:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc


def arch_prctl(option: int, arg: int | None = None) -> tuple[int, int, int]:
    """(return value, errno, value written) of ``arch_prctl(option, arg)``; with ``arg``
    None a 64-bit word is passed by address and read back (the GET_* options)."""
    libc = _libc()
    word = ctypes.c_uint64(0)
    argument = ctypes.c_ulong(arg if arg is not None else ctypes.addressof(word))
    result = int(libc.syscall(ctypes.c_long(SYS_ARCH_PRCTL), ctypes.c_long(option), argument))
    return result, ctypes.get_errno() if result else 0, int(word.value)


@dataclass(frozen=True)
class AmxFacts:
    """What the CPU advertises and the kernel allows, bit by bit (docs/llama-cpp-amx-fault.md)."""

    cpu_model: str
    cpuid_amx_tile: bool  # CPUID.(7,0):EDX[24]
    cpuid_amx_int8: bool  # CPUID.(7,0):EDX[25]
    cpuid_amx_bf16: bool  # CPUID.(7,0):EDX[22]
    cpuid_xsave_tile_components: bool  # CPUID.(0xD,0):EAX[17] and [18]
    palette1: tuple[int, int, int, int] | None  # CPUID.(0x1D,1): total bytes, bytes/tile, bytes/row, names, rows
    xcr0: int | None
    kernel_xcomp_supported: int | None  # arch_prctl(ARCH_GET_XCOMP_SUPP)
    kernel_xcomp_permitted: int | None  # arch_prctl(ARCH_GET_XCOMP_PERM) before any request

    @property
    def advertised(self) -> bool:
        return self.cpuid_amx_tile and self.cpuid_amx_int8

    @property
    def xcr0_tiles(self) -> bool:
        return self.xcr0 is not None and (self.xcr0 >> XFEATURE_XTILECFG) & 3 == 3

    def lines(self) -> list[str]:
        """The facts in the words the upstream report uses."""

        def bit(flag: bool) -> str:
            return "1" if flag else "0"

        xcr0 = "unreadable" if self.xcr0 is None else f"{self.xcr0:#x} (bits 17-18: {(self.xcr0 >> 17) & 3:02b})"
        supp = "unreadable" if self.kernel_xcomp_supported is None else f"{self.kernel_xcomp_supported:#x}"
        perm = "unreadable" if self.kernel_xcomp_permitted is None else f"{self.kernel_xcomp_permitted:#x}"
        palette = "none" if self.palette1 is None else ", ".join(str(v) for v in self.palette1)
        return [
            f"CPU: {self.cpu_model or 'unknown'}",
            f"CPUID.7.0:EDX AMX-TILE={bit(self.cpuid_amx_tile)} AMX-INT8={bit(self.cpuid_amx_int8)} "
            f"AMX-BF16={bit(self.cpuid_amx_bf16)}; CPUID.D.0:EAX tile state components="
            f"{bit(self.cpuid_xsave_tile_components)}",
            f"CPUID.1D.1 palette 1 (total bytes, bytes per tile, bytes per row, tile names): {palette}",
            f"XCR0: {xcr0}",
            f"arch_prctl(ARCH_GET_XCOMP_SUPP): {supp}; ARCH_GET_XCOMP_PERM: {perm}",
        ]


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.partition(":")[2].strip()
    except OSError:
        pass
    return platform.processor()


def amx_facts() -> AmxFacts | None:
    """Read the CPUID leaves, XCR0 and the kernel's XCOMP masks; None off x86-64 Linux.
    Reading them asks for nothing: the permission stays as it was."""
    leaf7 = cpuid(7, 0)
    if leaf7 is None:
        return None
    max_leaf = cpuid(0)
    leaf_d = cpuid(0xD, 0)
    edx = leaf7[3]
    palette: tuple[int, int, int, int] | None = None
    if max_leaf is not None and max_leaf[0] >= 0x1D and edx >> 24 & 1:
        eax, ebx, ecx, _ = cpuid(0x1D, 1) or (0, 0, 0, 0)
        palette = (eax & 0xFFFF, eax >> 16, ebx & 0xFFFF, ebx >> 16)
        del ecx
    supp, supp_errno, supp_value = arch_prctl(ARCH_GET_XCOMP_SUPP)
    perm, perm_errno, perm_value = arch_prctl(ARCH_GET_XCOMP_PERM)
    del supp_errno, perm_errno
    return AmxFacts(
        cpu_model=_cpu_model(),
        cpuid_amx_tile=bool(edx >> 24 & 1),
        cpuid_amx_int8=bool(edx >> 25 & 1),
        cpuid_amx_bf16=bool(edx >> 22 & 1),
        cpuid_xsave_tile_components=leaf_d is not None and (leaf_d[0] >> 17) & 3 == 3,
        palette1=palette,
        xcr0=xcr0(),
        kernel_xcomp_supported=supp_value if supp == 0 else None,
        kernel_xcomp_permitted=perm_value if perm == 0 else None,
    )


def tile_config() -> ctypes.Array[ctypes.c_uint8]:
    """A 64-byte tile configuration: palette 1, tiles 0-2 of 16 rows x 64 bytes (ggml's shape)."""
    cfg = (ctypes.c_uint8 * 64)()
    cfg[0] = 1  # palette_id
    for tile in range(3):
        ctypes.c_uint16.from_buffer(cfg, 16 + 2 * tile).value = 64  # colsb
        cfg[48 + tile] = 16  # rows
    return cfg


def run_tile_probe() -> int:
    """Ask for tile permission as ggml does, then run the tile instructions. Returns 0
    when they ran, 3 when the kernel refused the permission (ggml then stays off AMX by
    itself). A faulting tile unit kills the calling process: call this in a child only."""
    result, _errno, _ = arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA)
    if result != 0:
        return 3
    cfg = tile_config()
    _functions()[2](ctypes.addressof(cfg))
    return 0


if __name__ == "__main__":  # python -m gtreview.inference.x86_probe: the facts, then the tile probe
    facts = amx_facts()
    for text in facts.lines() if facts else ["not Linux on x86-64"]:
        print(text, flush=True)
    if facts is not None and facts.advertised and "--tiles" in sys.argv:
        print("running the tile probe (a fault kills this process)...", flush=True)
        os._exit(run_tile_probe())
