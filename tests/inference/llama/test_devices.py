"""ggml's device list through ctypes, without a GPU and without loading a model.

The real library is read in tests/inference/test_gpu_fit_native.py (in a forked child:
on a CUDA build, asking a device for its memory starts CUDA, which a forking parent
must not have done). Here a stand-in library plays a CUDA build, and a missing
library or symbol gives an empty list instead of an exception.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from pathlib import Path
from typing import Any

import pytest

from gtreview.inference.llama import devices as llama_devices
from gtreview.inference.llama.devices import Device, DeviceType


class FakeGgml:
    """The six functions of ggml's device API over a list of (name, description, type, free, total)."""

    def __init__(self, devices: list[tuple[str, str, int, int, int]]) -> None:
        self.rows = devices

    def ggml_backend_dev_count(self) -> int:
        return len(self.rows)

    def ggml_backend_dev_get(self, index: int) -> int:
        return index + 1  # a non-null handle

    def ggml_backend_dev_name(self, dev: int) -> bytes:
        return self.rows[dev - 1][0].encode()

    def ggml_backend_dev_description(self, dev: int) -> bytes:
        return self.rows[dev - 1][1].encode()

    def ggml_backend_dev_type(self, dev: int) -> int:
        return self.rows[dev - 1][2]

    def ggml_backend_dev_memory(self, dev: int, free: Any, total: Any) -> None:
        free._obj.value, total._obj.value = self.rows[dev - 1][3:5]  # byref() arguments


def use_library(monkeypatch: pytest.MonkeyPatch, lib: Any) -> None:
    api = llama_devices._DeviceApi.__new__(llama_devices._DeviceApi)
    api.error, api._lib = None, lib
    monkeypatch.setattr(llama_devices, "_api", api)


def test_a_cuda_build_lists_its_gpus_with_their_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    use_library(
        monkeypatch,
        FakeGgml(
            [
                ("CUDA0", "NVIDIA H200", 1, 130 * 2**30, 141 * 2**30),
                ("CUDA1", "NVIDIA RTX 4090", 1, 20 * 2**30, 24 * 2**30),
                ("CPU", "AMD EPYC", 0, 100 * 2**30, 128 * 2**30),
                ("BLAS", "OpenBLAS", 3, 0, 0),
                ("X", "from a newer ggml", 9, 0, 0),
            ]
        ),
    )
    devices = llama_devices.list_devices()
    assert [(d.index, d.name, d.type, d.offloads) for d in devices] == [
        (0, "CUDA0", "GPU", True),
        (1, "CUDA1", "GPU", True),
        (2, "CPU", "CPU", False),
        (3, "BLAS", "ACCEL", False),
        (4, "X", "type 9", False),
    ]
    assert devices[0].free == 130 * 2**30 and devices[0].total == 141 * 2**30
    assert [d.name for d in llama_devices.gpu_devices()] == ["CUDA0", "CUDA1"]
    assert devices[0].summary() == "CUDA0 (NVIDIA H200, 130.0 of 141.0 GiB free)"
    assert devices[0].as_dict() == {
        "index": 0,
        "name": "CUDA0",
        "description": "NVIDIA H200",
        "type": "GPU",
        "free": 130 * 2**30,
        "total": 141 * 2**30,
    }


def test_an_integrated_gpu_takes_offloaded_layers() -> None:
    assert Device(0, "Metal", "Apple M3", "IGPU", 1, 2).offloads
    assert {t.value for t in DeviceType} == {0, 1, 2, 3, 4}  # ggml-backend.h of llama-cpp-python 0.3.36


def test_a_cpu_build_has_no_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    use_library(monkeypatch, FakeGgml([("CPU", "AMD EPYC", 0, 25 * 2**30, 25 * 2**30)]))
    assert [d.name for d in llama_devices.list_devices()] == ["CPU"]
    assert llama_devices.gpu_devices() == []


def test_a_missing_library_gives_an_empty_list(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(llama_devices, "_api", None)
    monkeypatch.setattr(llama_devices, "_library_candidates", lambda: [tmp_path / "libggml.so"])
    assert llama_devices.list_devices() == []
    assert llama_devices._api is not None and "not found" in (llama_devices._api.error or "")


def test_a_library_without_the_symbols_gives_an_empty_list(monkeypatch: pytest.MonkeyPatch) -> None:
    libc = ctypes.util.find_library("c")  # loads, but has no ggml_backend_dev_count
    if libc is None:
        pytest.skip("no C library to stand in")
    monkeypatch.setattr(llama_devices, "_api", None)
    monkeypatch.setattr(llama_devices, "_library_candidates", lambda: [libc])
    assert llama_devices.list_devices() == []
    assert "ggml_backend_dev_count" in (llama_devices._api.error or "")  # type: ignore[union-attr]


def test_a_failing_call_gives_an_empty_list(monkeypatch: pytest.MonkeyPatch) -> None:
    class Broken(FakeGgml):
        def ggml_backend_dev_count(self) -> int:
            raise OSError("exception: access violation")

    use_library(monkeypatch, Broken([]))
    assert llama_devices.list_devices() == []
