"""The GGUF pre-load check: real files pass with their facts, broken ones fail in one line."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from gtreview.inference.gguf_check import (
    ModelFileError,
    check_adapter_file,
    check_model_file,
    inspect_gguf,
)


def one_line_error(path: Path) -> str:
    with pytest.raises(ModelFileError) as caught:
        inspect_gguf(path)
    message = str(caught.value)
    assert "\n" not in message
    assert str(path) in message
    return message


def test_reads_the_tiny_model(tiny_gguf: Path) -> None:
    info = inspect_gguf(tiny_gguf)
    assert info.architecture == "llama"
    assert info.general_type == "model" and not info.is_adapter
    assert info.version == 3
    assert info.tensor_count == 2 * 9 + 3
    assert info.quantisation == "ALL_F32" and info.tensor_types == {"F32": 21}
    assert info.chat_template is not None and "<|im_start|>" in info.chat_template
    assert info.context_length == 512 and info.embedding_length == 64 and info.block_count == 2
    assert info.vocab_size is not None and info.vocab_size > 256 + 5
    assert info.size == tiny_gguf.stat().st_size
    assert info.n_params > 100_000
    assert info.metadata["tokenizer.ggml.model"] == "llama"
    assert info.metadata["tokenizer.ggml.tokens"] == {"array_length": info.vocab_size}


def test_reads_the_lora_adapter(tiny_gguf: Path, tiny_lora: Path) -> None:
    info = check_adapter_file(tiny_lora, inspect_gguf(tiny_gguf))
    assert info.is_adapter and info.adapter_type == "lora"
    assert info.lora_alpha == 8.0
    assert info.architecture == "llama"


def test_a_model_is_not_an_adapter_and_back(tiny_gguf: Path, tiny_lora: Path) -> None:
    model = check_model_file(tiny_gguf)
    with pytest.raises(ModelFileError, match="adapter, not a model"):
        check_model_file(tiny_lora)
    with pytest.raises(ModelFileError, match="not a LoRA adapter"):
        check_adapter_file(tiny_gguf, model)


def test_text_file_renamed_gguf(tmp_path: Path) -> None:
    path = tmp_path / "model.gguf"
    path.write_text("These are my notes about the gold deposit.\n" * 5)
    assert "a text file, not a GGUF model" in one_line_error(path)


def test_git_lfs_pointer(tmp_path: Path) -> None:
    path = tmp_path / "model.gguf"
    path.write_text("version https://git-lfs.github.com/spec/v1\noid sha256:abc\nsize 123\n")
    assert "Git LFS pointer" in one_line_error(path)


def test_html_error_page(tmp_path: Path) -> None:
    path = tmp_path / "model.gguf"
    path.write_text("<!DOCTYPE html><html><body>Not found</body></html>")
    assert "HTML page" in one_line_error(path)


def test_random_bytes(tmp_path: Path) -> None:
    path = tmp_path / "model.gguf"
    path.write_bytes(bytes(range(256)) * 4)
    assert "not a GGUF file" in one_line_error(path)


def test_truncated_download(tiny_gguf: Path, tmp_path: Path) -> None:
    data = tiny_gguf.read_bytes()
    half = tmp_path / "half.gguf"
    half.write_bytes(data[: len(data) // 2])
    assert "truncated" in one_line_error(half)
    header_only = tmp_path / "header.gguf"
    header_only.write_bytes(data[:200])
    assert "truncated or corrupt metadata" in one_line_error(header_only)


def test_unsupported_version(tiny_gguf: Path, tmp_path: Path) -> None:
    data = bytearray(tiny_gguf.read_bytes())
    data[4:8] = struct.pack("<I", 99)
    path = tmp_path / "future.gguf"
    path.write_bytes(bytes(data))
    assert "GGUF version 99 is not supported" in one_line_error(path)


def test_missing_empty_and_folder(tmp_path: Path) -> None:
    assert "no such file" in one_line_error(tmp_path / "absent.gguf")
    empty = tmp_path / "empty.gguf"
    empty.write_bytes(b"")
    assert "too small" in one_line_error(empty)
    assert "not a regular file" in one_line_error(tmp_path)


def test_corrupt_tensor_count(tiny_gguf: Path, tmp_path: Path) -> None:
    data = bytearray(tiny_gguf.read_bytes())
    data[8:16] = struct.pack("<Q", 2**40)
    path = tmp_path / "corrupt.gguf"
    path.write_bytes(bytes(data))
    assert "corrupt header" in one_line_error(path)
