"""The compute devices ggml sees (CPU, GPUs) and their free memory, read through ctypes.

llama-cpp-python 0.3.36 binds llama.h but not ggml's device API, yet its shared
libraries export it (``ggml-backend.h``): ``ggml_backend_dev_count``/``_get`` in
libggml (the backend registry), ``ggml_backend_dev_name``, ``_description``, ``_type``
and ``_memory`` in libggml-base. This module binds those six functions on the libraries
llama_cpp itself loaded (its ``lib`` folder, or ``LLAMA_CPP_LIB_PATH`` as llama_cpp
honours it), so the registry it reads is the one llama.cpp offloads to.

On a CPU-only build ggml reports one device, the CPU (:func:`gpu_devices` is then
empty); when the library or a symbol cannot be found (another build, another platform)
:func:`list_devices` returns an empty list. Nothing here raises.
"""

from __future__ import annotations

import ctypes
import enum
import logging
import os
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)


class DeviceType(enum.IntEnum):
    """``enum ggml_backend_dev_type`` (vendor/llama.cpp/ggml/include/ggml-backend.h, 0.3.36)."""

    CPU = 0  # system memory
    GPU = 1  # dedicated memory
    IGPU = 2  # integrated GPU using host memory
    ACCEL = 3  # an accelerator used beside the CPU backend (BLAS, AMX)
    META = 4  # wraps several devices for tensor parallelism


OFFLOAD_TYPES = frozenset({DeviceType.GPU, DeviceType.IGPU})
"""The device types llama.cpp puts offloaded layers on (``n_gpu_layers``)."""


@dataclass(frozen=True)
class Device:
    """One ggml device; memory in bytes as the device reports it (free is a snapshot)."""

    index: int
    name: str  # e.g. "CUDA0", "Metal", "CPU"
    description: str  # e.g. "NVIDIA GeForce RTX 4090"
    type: str  # a DeviceType name, or "type N" for one this module does not know
    free: int
    total: int

    @property
    def offloads(self) -> bool:
        """Whether llama.cpp offloads model layers to this device."""
        return self.type in {t.name for t in OFFLOAD_TYPES}

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def summary(self) -> str:
        return f"{self.name} ({self.description}, {self.free / 2**30:.1f} of {self.total / 2**30:.1f} GiB free)"


def _library_candidates() -> list[Path | str]:
    """Where the device API lives: libggml beside libllama in llama_cpp's lib folder."""
    try:
        import llama_cpp.llama_cpp as bindings
    except (ImportError, OSError):
        return []
    base = getattr(bindings, "_base_path", None)
    if base is None:
        override = os.environ.get("LLAMA_CPP_LIB_PATH")
        base = Path(override) if override else Path(bindings.__file__).parent / "lib"
    if sys.platform == "win32":
        names = ["ggml.dll", "libggml.dll"]
    elif sys.platform == "darwin":
        names = ["libggml.dylib", "libggml.so"]
    else:
        names = ["libggml.so"]
    candidates: list[Path | str] = [Path(base) / name for name in names]
    loaded = getattr(getattr(bindings, "_lib", None), "_name", None)  # libllama, whose dependencies hold the API
    if isinstance(loaded, str):
        candidates.append(loaded)
    return candidates


class _DeviceApi:
    """The six bound functions, or an error saying why they could not be bound."""

    def __init__(self) -> None:
        self.error: str | None = None
        self._lib: Any = None
        reasons = []
        for candidate in _library_candidates():
            if isinstance(candidate, Path) and not candidate.exists():
                reasons.append(f"{candidate} not found")
                continue
            try:
                lib = ctypes.CDLL(str(candidate))
                self._bind(lib)
            except (OSError, AttributeError) as exc:
                reasons.append(f"{candidate}: {exc}")
                continue
            self._lib = lib
            return
        self.error = "; ".join(reasons) or "llama_cpp is not importable"

    @staticmethod
    def _bind(lib: Any) -> None:
        lib.ggml_backend_dev_count.argtypes = []
        lib.ggml_backend_dev_count.restype = ctypes.c_size_t
        lib.ggml_backend_dev_get.argtypes = [ctypes.c_size_t]
        lib.ggml_backend_dev_get.restype = ctypes.c_void_p
        for name in ("ggml_backend_dev_name", "ggml_backend_dev_description"):
            function = getattr(lib, name)
            function.argtypes = [ctypes.c_void_p]
            function.restype = ctypes.c_char_p
        lib.ggml_backend_dev_type.argtypes = [ctypes.c_void_p]
        lib.ggml_backend_dev_type.restype = ctypes.c_int
        lib.ggml_backend_dev_memory.argtypes = [
            ctypes.c_void_p,
            ctypes.POINTER(ctypes.c_size_t),
            ctypes.POINTER(ctypes.c_size_t),
        ]
        lib.ggml_backend_dev_memory.restype = None

    def devices(self) -> list[Device]:
        lib = self._lib
        if lib is None:
            return []
        found = []
        for index in range(int(lib.ggml_backend_dev_count())):
            dev = lib.ggml_backend_dev_get(index)
            if not dev:
                continue
            free, total = ctypes.c_size_t(0), ctypes.c_size_t(0)
            lib.ggml_backend_dev_memory(dev, ctypes.byref(free), ctypes.byref(total))
            raw_type = int(lib.ggml_backend_dev_type(dev))
            try:
                type_name = DeviceType(raw_type).name
            except ValueError:
                type_name = f"type {raw_type}"
            found.append(
                Device(
                    index=index,
                    name=_text(lib.ggml_backend_dev_name(dev)),
                    description=_text(lib.ggml_backend_dev_description(dev)),
                    type=type_name,
                    free=int(free.value),
                    total=int(total.value),
                )
            )
        return found


def _text(raw: bytes | None) -> str:
    return raw.decode("utf-8", errors="replace") if raw else ""


_api: _DeviceApi | None = None


def _device_api() -> _DeviceApi:
    global _api
    if _api is None:
        _api = _DeviceApi()
        if _api.error:
            log.info("ggml's device list is not available: %s", _api.error)
    return _api


def list_devices() -> list[Device]:
    """Every device ggml registered (the CPU too), with its free and total memory now;
    an empty list when the device API cannot be bound. Never raises."""
    try:
        return _device_api().devices()
    except Exception as exc:  # noqa: BLE001 - a listing must never take a model load down
        log.warning("listing ggml devices failed: %s", exc)
        return []


def gpu_devices() -> list[Device]:
    """The devices offloaded layers go to (dedicated and integrated GPUs); empty on a CPU build."""
    return [device for device in list_devices() if device.offloads]


def supports_gpu_offload() -> bool:
    """Whether this llama-cpp-python build can offload layers (``llama_supports_gpu_offload``)."""
    try:
        import llama_cpp

        return bool(llama_cpp.llama_supports_gpu_offload())
    except (ImportError, OSError, AttributeError):
        return False
