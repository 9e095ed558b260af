"""What identifies a model's outputs, known without loading the model.

For local GGUF models that is the sha256 of the model file and of the adapter (with
its scale); for servers, the server and the model name (not who logs in to it: the URL
is kept without its ``user:password@``, which would otherwise be stored with the run and
hashed into every content key). Hashing a large file takes a moment, so results are
cached by (path, size, modification time). A local file that is no GGUF model (an HTML
error page, a truncated download, an adapter given as the model) is refused here, in one
line, before a pass creates its run.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path
from typing import Any

from gtreview.core.errors import UserError
from gtreview.core.jsonmodel import canonical_hash
from gtreview.core.redaction import url_without_userinfo
from gtreview.inference.gguf_check import check_adapter_file, check_model_file
from gtreview.inference.specs import local_files, parse_model_spec


@lru_cache(maxsize=64)
def _file_sha256(path: str, size: int, mtime_ns: int) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def file_sha256(path: Path) -> str:
    stat = path.stat()
    return _file_sha256(str(path.resolve()), stat.st_size, stat.st_mtime_ns)


def spec_identity(spec: str) -> dict[str, Any]:
    parsed = parse_model_spec(spec)
    if parsed.kind in ("llama", "hf"):
        model, lora = local_files(parsed)
        info = check_model_file(model)  # ModelFileError: one line naming the file and what is wrong
        identity: dict[str, Any] = {"kind": "gguf", "model_sha256": file_sha256(model)}
        if lora is not None:
            check_adapter_file(lora, info)
            identity.update(lora_sha256=file_sha256(lora), lora_scale=parsed.lora_scale)
        return identity
    if parsed.kind == "openai":
        assert parsed.url is not None
        return {"kind": "openai", "base_url": url_without_userinfo(parsed.url), "model": parsed.model}
    return {"kind": parsed.kind, "model": parsed.model}


class SameModelError(UserError):
    """Two models of a pass with one identity: the second's answers would be the first's."""


def _named(identity: dict[str, Any]) -> str:
    if "model_sha256" in identity:
        adapter = (
            f", adapter {identity['lora_sha256'][:8]}… at {identity.get('lora_scale')}"
            if "lora_sha256" in identity
            else ""
        )
        return f"sha256 {identity['model_sha256'][:8]}…{adapter}"
    if "base_url" in identity:
        return f"{identity.get('model')} at {identity['base_url']}"
    return ", ".join(f"{key} {value}" for key, value in identity.items())


def refuse_same_models(identities: dict[str, dict[str, Any]]) -> None:
    """Refuse a pass two of whose models are one model (the same file, adapter and scale,
    or the same server and model): content keys do not include the label, so the second
    would only be handed the first's answers, and its own column would read as empty."""
    seen: dict[str, str] = {}
    for label, identity in identities.items():
        key = canonical_hash(identity)
        if key in seen:
            raise SameModelError(
                f"{seen[key]} and {label} are the same model ({_named(identity)}): a fine-tune compared with "
                "itself would only reuse the base's answers; name two different models"
            )
        seen[key] = label
