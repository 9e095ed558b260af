"""Check a GGUF file in Python before llama.cpp touches it.

llama.cpp reads whatever it is given in native code: a truncated download, an HTML
error page saved as ``model.gguf`` or a Git LFS pointer can end in an abort that takes
the process down, or in a log line nobody sees. This module reads the GGUF header,
metadata and tensor table with ``struct`` over a memory map (the ``gguf`` package's
constants, but not its ``GGUFReader``, which builds a numpy view per vocabulary entry
and takes seconds on a 150k-token vocabulary, and fails on truncation with an opaque
reshape error) and raises :class:`ModelFileError` with a one-line reason, or returns
a :class:`GgufInfo` with what the rest of the program records about the model.
"""

from __future__ import annotations

import mmap
import struct
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gguf import GGML_QUANT_SIZES, GGUF_MAGIC, GGMLQuantizationType, GGUFValueType, LlamaFileType

from gtreview.core.errors import UserError

SUPPORTED_VERSIONS = (2, 3)
MAX_TENSORS = 1_000_000
MAX_KV = 1_000_000
MAX_DIMS = 4

_SCALARS: dict[int, str] = {
    GGUFValueType.UINT8: "<B",
    GGUFValueType.INT8: "<b",
    GGUFValueType.UINT16: "<H",
    GGUFValueType.INT16: "<h",
    GGUFValueType.UINT32: "<I",
    GGUFValueType.INT32: "<i",
    GGUFValueType.FLOAT32: "<f",
    GGUFValueType.BOOL: "<?",
    GGUFValueType.UINT64: "<Q",
    GGUFValueType.INT64: "<q",
    GGUFValueType.FLOAT64: "<d",
}
# Arrays longer than this keep only their length (vocabularies, merges, scores).
_KEEP_ARRAY_ITEMS = 64


class ModelFileError(UserError):
    """A model or adapter file that llama.cpp must not be given; the message is one line."""


@dataclass(frozen=True)
class GgufInfo:
    """What a GGUF file says about itself, read without loading weights."""

    path: Path
    size: int
    version: int
    architecture: str
    general_type: str  # "model" or "adapter"
    name: str | None
    tensor_count: int
    n_params: int
    file_type: int | None
    quantisation: str | None  # e.g. "MOSTLY_Q4_K_M", from general.file_type
    tensor_types: dict[str, int]  # ggml type name -> number of tensors
    chat_template: str | None
    context_length: int | None
    embedding_length: int | None
    block_count: int | None
    vocab_size: int | None
    adapter_type: str | None
    lora_alpha: float | None
    metadata: dict[str, Any] = field(repr=False)  # scalars, strings, short arrays; long arrays as lengths

    @property
    def is_adapter(self) -> bool:
        return self.general_type == "adapter"


class _Truncated(Exception):
    pass


class _Cursor:
    """Little-endian reads from a byte buffer that fail cleanly at the end."""

    def __init__(self, data: mmap.mmap | bytes) -> None:
        self.data = data
        self.offset = 0

    def unpack(self, fmt: str) -> Any:
        size = struct.calcsize(fmt)
        if self.offset + size > len(self.data):
            raise _Truncated
        (value,) = struct.unpack_from(fmt, self.data, self.offset)
        self.offset += size
        return value

    def string(self) -> str:
        length = self.unpack("<Q")
        if self.offset + length > len(self.data):
            raise _Truncated
        raw = self.data[self.offset : self.offset + length]
        self.offset += length
        return bytes(raw).decode("utf-8", errors="replace")

    def skip_string(self) -> None:
        length = self.unpack("<Q")
        self.offset += length
        if self.offset > len(self.data):
            raise _Truncated

    def value(self, vtype: int) -> Any:
        if vtype == GGUFValueType.STRING:
            return self.string()
        if vtype == GGUFValueType.ARRAY:
            return self.array()
        fmt = _SCALARS.get(vtype)
        if fmt is None:
            raise ModelFileError(f"unknown metadata value type {vtype} at byte {self.offset}")
        return self.unpack(fmt)

    def array(self) -> Any:
        itype = self.unpack("<I")
        count = self.unpack("<Q")
        if count <= _KEEP_ARRAY_ITEMS:
            return [self.value(itype) for _ in range(count)]
        if itype == GGUFValueType.STRING:
            for _ in range(count):
                self.skip_string()
        elif itype in _SCALARS:
            self.offset += count * struct.calcsize(_SCALARS[itype])
            if self.offset > len(self.data):
                raise _Truncated
        else:
            for _ in range(count):
                self.value(itype)
        return {"array_length": count}


def _sniff(head: bytes) -> str:
    """Name what a non-GGUF file most likely is, for the error message."""
    text = head.lstrip().lower()
    if text.startswith(b"version https://git-lfs"):
        return "a Git LFS pointer, not the model (fetch the LFS object)"
    if text.startswith((b"<!doctype html", b"<html")):
        return "an HTML page, not a model (a failed download?)"
    if text.startswith((b"{", b"[")):
        return "a JSON file, not a GGUF model"
    if head.startswith(b"PK\x03\x04"):
        return "a zip archive (a PyTorch/safetensors checkpoint?), not a GGUF model"
    if head and all(32 <= b < 127 or b in b"\t\r\n" for b in head[:64]):
        return "a text file, not a GGUF model"
    return f"not a GGUF file (starts with {head[:4]!r})"


def inspect_gguf(path: str | Path) -> GgufInfo:
    """Read and sanity-check a GGUF file's header, metadata and tensor table.

    Raises :class:`ModelFileError` (one line, naming the file) when the file is missing,
    not GGUF, of an unsupported version, truncated, or lacks an architecture.
    """
    path = Path(path)
    try:
        size = path.stat().st_size
        if not path.is_file():
            raise ModelFileError(f"{path}: not a regular file")
        if size < 24:
            raise ModelFileError(f"{path}: {size} bytes, too small to be a GGUF file")
        with path.open("rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
            return _parse(path, size, data)
    except FileNotFoundError:
        raise ModelFileError(f"{path}: no such file") from None
    except PermissionError:
        raise ModelFileError(f"{path}: permission denied") from None
    except ModelFileError as exc:
        message = str(exc)
        raise ModelFileError(message if message.startswith(str(path)) else f"{path}: {message}") from None
    except OSError as exc:
        raise ModelFileError(f"{path}: cannot read ({exc.strerror or exc})") from None


def _parse(path: Path, size: int, data: mmap.mmap) -> GgufInfo:
    cur = _Cursor(data)
    if cur.unpack("<I") != GGUF_MAGIC:
        raise ModelFileError(_sniff(bytes(data[:256])))
    version = cur.unpack("<I")
    if version not in SUPPORTED_VERSIONS:
        raise ModelFileError(f"GGUF version {version} is not supported (expected one of {SUPPORTED_VERSIONS})")
    tensor_count = cur.unpack("<Q")
    kv_count = cur.unpack("<Q")
    if tensor_count > MAX_TENSORS or kv_count > MAX_KV:
        raise ModelFileError(f"corrupt header ({tensor_count} tensors, {kv_count} metadata keys)")
    try:
        metadata: dict[str, Any] = {}
        for _ in range(kv_count):
            key = cur.string()
            metadata[key] = cur.value(cur.unpack("<I"))
        tensors = [_tensor_info(cur) for _ in range(tensor_count)]
    except _Truncated:
        raise ModelFileError(f"truncated or corrupt metadata ({size} bytes)") from None

    alignment = metadata.get("general.alignment", 32)
    if not isinstance(alignment, int) or alignment <= 0 or alignment & (alignment - 1):
        raise ModelFileError(f"invalid general.alignment {alignment!r}")
    data_start = -(-cur.offset // alignment) * alignment
    n_params = 0
    type_counts: Counter[str] = Counter()
    for name, n_elements, n_bytes, ggml_type, offset in tensors:
        end = data_start + offset + n_bytes
        if end > size:
            raise ModelFileError(
                f"truncated: tensor {name!r} ends at byte {end} but the file has {size} bytes (incomplete download?)"
            )
        n_params += n_elements
        type_counts[ggml_type] += 1

    arch = metadata.get("general.architecture")
    if not isinstance(arch, str) or not arch:
        raise ModelFileError("no general.architecture in the metadata")
    general_type = str(metadata.get("general.type", "model"))
    if tensor_count == 0:
        raise ModelFileError("holds no tensors")
    file_type = metadata.get("general.file_type")
    quantisation = None
    if isinstance(file_type, int):
        try:
            quantisation = LlamaFileType(file_type).name
        except ValueError:
            quantisation = f"file_type {file_type}"
    tokens = metadata.get("tokenizer.ggml.tokens")
    vocab_size = (
        tokens["array_length"] if isinstance(tokens, dict) else len(tokens) if isinstance(tokens, list) else None
    )
    template = metadata.get("tokenizer.chat_template")
    alpha = metadata.get("adapter.lora.alpha")

    def arch_int(key: str) -> int | None:
        value = metadata.get(f"{arch}.{key}")
        return value if isinstance(value, int) else None

    return GgufInfo(
        path=path,
        size=size,
        version=version,
        architecture=arch,
        general_type=general_type,
        name=metadata.get("general.name") if isinstance(metadata.get("general.name"), str) else None,
        tensor_count=tensor_count,
        n_params=n_params,
        file_type=file_type if isinstance(file_type, int) else None,
        quantisation=quantisation,
        tensor_types=dict(type_counts),
        chat_template=template if isinstance(template, str) else None,
        context_length=arch_int("context_length"),
        embedding_length=arch_int("embedding_length"),
        block_count=arch_int("block_count"),
        vocab_size=vocab_size,
        adapter_type=str(metadata["adapter.type"]) if "adapter.type" in metadata else None,
        lora_alpha=float(alpha) if isinstance(alpha, int | float) else None,
        metadata=metadata,
    )


def _tensor_info(cur: _Cursor) -> tuple[str, int, int, str, int]:
    """(name, elements, bytes, ggml type name, offset from the data section)."""
    name = cur.string()
    n_dims = cur.unpack("<I")
    if n_dims == 0 or n_dims > MAX_DIMS:
        raise ModelFileError(f"tensor {name!r} has {n_dims} dimensions")
    dims = [cur.unpack("<Q") for _ in range(n_dims)]
    raw_type = cur.unpack("<I")
    offset = cur.unpack("<Q")
    try:
        ggml_type = GGMLQuantizationType(raw_type)
        block_size, type_size = GGML_QUANT_SIZES[ggml_type]
    except (ValueError, KeyError):
        raise ModelFileError(f"tensor {name!r} has unknown ggml type {raw_type}") from None
    n_elements = 1
    for dim in dims:
        n_elements *= dim
    if dims[0] % block_size:
        raise ModelFileError(f"tensor {name!r}: row of {dims[0]} is not a multiple of the {ggml_type.name} block size")
    return name, n_elements, n_elements // block_size * type_size, ggml_type.name, offset


def check_model_file(path: str | Path) -> GgufInfo:
    """The checks before loading a model: a GGUF model, not an adapter."""
    info = inspect_gguf(path)
    if info.is_adapter:
        kind = f"{info.adapter_type} adapter" if info.adapter_type else "adapter"
        raise ModelFileError(f"{info.path}: is a {kind}, not a model")
    return info


def check_adapter_file(path: str | Path, model: GgufInfo) -> GgufInfo:
    """The checks before applying a LoRA adapter to ``model``."""
    info = inspect_gguf(path)
    if not info.is_adapter or info.adapter_type != "lora":
        raise ModelFileError(
            f"{info.path}: not a LoRA adapter (general.type={info.general_type!r}, adapter.type={info.adapter_type!r})"
        )
    if info.architecture != model.architecture:
        raise ModelFileError(f"{info.path}: adapter is for {info.architecture!r}, the model is {model.architecture!r}")
    return info
