"""The probes on models opened by the factory: in a worker process, with the numbers of
scoring in process, and a native crash while scoring that the caller survives."""

from __future__ import annotations

import functools
import multiprocessing
import os
from pathlib import Path

import pytest

from gtreview.inference.llama.engine import BatchedLlamaEngine
from gtreview.inference.worker import WorkerBackend, WorkerDied
from gtreview.runs.probes import EngineFactory, engine_factory, run_probes
from tests.inference.crashing_backend import ABORT_MARKER, open_crashing

pytestmark = pytest.mark.native  # llama.cpp runs in this process: each test in a forked child

TEXTS = [
    "the gold ore in the quartz vein is graded by assay of each drill core sample",
    "a drill hole cut the granite and the basalt dyke at the shear zone",
    "copper and silver deposit in the sericite alteration of the schist",
    "the rubric must award points for each correct component of the answer",
    "pyrite and carbonate in the lode",
]
SETTINGS = "ctx=1024&seq=4&threads=2"


def in_process(model: Path, lora: Path | None = None) -> EngineFactory:
    return functools.partial(BatchedLlamaEngine, model, lora_path=lora, n_seq_max=4, n_ctx=1024, n_threads=2)


def children() -> set[int | None]:
    return {p.pid for p in multiprocessing.active_children()}


def test_probes_in_worker_processes_equal_the_probes_in_process(tiny_gguf: Path, tiny_lora: Path) -> None:
    before = children()
    opened: list[int | None] = []

    def tracked(spec: str) -> EngineFactory:
        def factory():  # type: ignore[no-untyped-def]
            engine = engine_factory(spec)()
            assert isinstance(engine, WorkerBackend)
            opened.append(engine.pid)
            return engine

        return factory

    workers = {
        "base": tracked(f"llama:{tiny_gguf}?{SETTINGS}"),
        "lora": tracked(f"llama:{tiny_gguf}?{SETTINGS}&lora={tiny_lora}"),
    }
    fam, rec = run_probes(workers, TEXTS, seed=1)
    assert len(opened) == 2 and os.getpid() not in opened
    expected_fam, expected_rec = run_probes(
        {"base": in_process(tiny_gguf), "lora": in_process(tiny_gguf, tiny_lora)}, TEXTS, seed=1
    )
    for got, expected in zip(fam.models, expected_fam.models, strict=True):
        assert got.passages == pytest.approx(expected.passages, abs=1e-4)
        assert got.controls == pytest.approx(expected.controls, abs=1e-4)
    assert fam.comparisons[0].passages.mean_difference == pytest.approx(
        expected_fam.comparisons[0].passages.mean_difference, abs=1e-4
    )
    assert rec.models == expected_rec.models  # greedy continuations: the same tokens
    assert children() == before  # each worker was closed after its turn


def test_a_native_abort_while_probing_is_one_line_and_the_caller_survives(tiny_gguf: Path) -> None:
    before = children()
    spec = f"llama:{tiny_gguf}?{SETTINGS}"
    crashing = functools.partial(WorkerBackend, spec, opener=open_crashing, overrides={"crash_always": ABORT_MARKER})
    with pytest.raises(WorkerDied) as died:
        run_probes({"base": engine_factory(spec), "crashing": crashing}, TEXTS, seed=1)
    message = str(died.value)
    assert message.startswith("model crashing: model worker died (signal SIGABRT)") and "\n" not in message
    assert children() == before  # nothing left behind, and this process carries on
