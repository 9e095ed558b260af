"""The wheel carries resources, the sample corpus and the migrations, and an installed
copy finds them without the source tree."""

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(ROOT)],
        check=True,
        capture_output=True,
        timeout=600,
    )
    (built,) = out.glob("gtreview-*.whl")
    return built


def test_wheel_contents(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "gtreview/resources/README.md" in names
    assert "gtreview/sample_corpus/benchmark/Sample_goldfield_grading_key.json" in names
    assert any(n.startswith("gtreview/sample_corpus/reports/") and n.endswith(".txt") for n in names)
    assert "gtreview/store/migrations/env.py" in names
    assert "gtreview/store/migrations/versions/0001_corpus_and_sets.py" in names
    assert "gtreview/ui/main_window.py" in names
    assert not any("/tests/" in n or n.startswith("tests/") for n in names)


def test_installed_copy_finds_its_data(wheel: Path, tmp_path: Path) -> None:
    target = tmp_path / "site"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(target)
    probe = (
        "import gtreview.paths as p, pathlib, sys;"
        "assert pathlib.Path(p.__file__).is_relative_to(pathlib.Path(sys.argv[1])), p.__file__;"
        "print(p.resources_dir()); print(p.sample_corpus_dir())"
    )
    # PYTHONPATH puts the unpacked wheel ahead of the editable install of the checkout
    result = subprocess.run(
        [sys.executable, "-c", probe, str(target)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(target)},
    )
    assert result.returncode == 0, result.stderr
    resources, sample = result.stdout.split()
    assert Path(resources) == target / "gtreview" / "resources"
    assert Path(sample) == target / "gtreview" / "sample_corpus"
