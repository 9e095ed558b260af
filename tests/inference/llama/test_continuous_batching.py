"""Continuous batching on the tiny random model: slots refill at once, a shared prefix
stays in the cache across requests, the cell accounting matches llama.cpp's, and the
tokens are the ones each request gets alone."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import llama_cpp
import pytest

from gtreview.inference.backend import ChatMessage, CompletionRequest, CompletionResult, Sampling
from gtreview.inference.llama.engine import BatchedLlamaEngine
from gtreview.inference.llama.schedule import Scheduler

pytestmark = pytest.mark.native  # llama.cpp runs in this process: each test in a forked child

RUBRIC = "You are a strict judge. Mark the answer against the marking scheme, component by component. " * 10
ANSWERS = ["the gold", "pyrite and copper", "a shear zone", "no answer", "basalt dyke", "three grams", "quartz"]


def request(answer: str, max_tokens: int) -> CompletionRequest:
    return CompletionRequest(
        messages=[ChatMessage(role="system", content=RUBRIC), ChatMessage(role="user", content=f"Answer: {answer}")],
        sampling=Sampling(max_tokens=max_tokens),
    )


@pytest.fixture()
def engine(tiny_gguf: Path) -> Iterator[BatchedLlamaEngine]:
    with BatchedLlamaEngine(tiny_gguf, n_seq_max=2, n_ctx=2048, n_threads=2) as eng:
        yield eng


@pytest.fixture()
def checked(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """After every step, each sequence's cells as llama.cpp sees them (its highest
    position) must be what the scheduler's cell map says, and the map within n_ctx."""
    steps: list[int] = []
    real_step = Scheduler._step

    def step(self: Scheduler, admitted: Any, live: Any, *, waiting: bool) -> None:
        real_step(self, admitted, live, waiting=waiting)
        memory = self.engine._memory
        for slot in self.slots:
            assert llama_cpp.llama_memory_seq_pos_max(memory, slot.seq) + 1 == self.cells.length(slot.seq)
        assert self.cells.used <= self.engine.n_ctx
        steps.append(len(self.live))

    monkeypatch.setattr(Scheduler, "_step", step)
    return steps


def texts(results: list[CompletionResult]) -> list[str]:
    assert all(r.ok for r in results), [r.error for r in results]
    return [r.text for r in results]


def test_a_finished_sequence_hands_its_slot_on_at_once(engine: BatchedLlamaEngine, checked: list[int]) -> None:
    """Short and long answers over two slots: while requests wait, both slots are busy
    every step (static waves would idle a slot until the longer answer of a pair ends)."""
    lengths = [3, 40, 3, 3, 3, 40, 3]
    requests = [request(a, n) for a, n in zip(ANSWERS, lengths, strict=True)]
    before = engine.stats.copy()
    results = engine.generate(requests)
    stats = engine.stats.since(before)
    assert [r.completion_tokens for r in results] == lengths  # the random model never stops early here
    assert stats.queued_steps > 0 and stats.occupancy == 1.0
    assert texts(results) == [texts(engine.generate([r]))[0] for r in requests]  # as each alone


def test_a_shared_prefix_stays_in_the_cache_across_requests(engine: BatchedLlamaEngine, checked: list[int]) -> None:
    """Seven answers under one long instruction, two slots: the instruction is prefilled
    once, every later request copies it from a running or finished sequence."""
    requests = [request(a, 4) for a in ANSWERS]
    prompts = [engine.tokenize_prompt(r.messages) for r in requests]
    before = engine.stats.copy()
    engine.generate(requests)
    stats = engine.stats.since(before)
    total = sum(len(p) for p in prompts)
    shared = min(len(p) for p in prompts) - 12  # the instruction is most of every prompt
    assert stats.prefill_tokens + stats.reused_tokens >= total
    assert stats.prefill_tokens < total - 5 * shared  # prefilled once, not once per pair
    assert stats.reused_tokens > 5 * shared


def test_requests_wait_while_the_cache_is_full(tiny_gguf: Path, checked: list[int]) -> None:
    """With room for one request's worst case at a time, requests run one after the
    other (never two sequences short of cells) and still match each run alone."""
    with BatchedLlamaEngine(tiny_gguf, n_seq_max=3, n_ctx=512, n_threads=2) as small:
        requests = [request(a, 100) for a in ANSWERS[:3]]
        prompt = len(small.tokenize_prompt(requests[0].messages))
        assert 512 < prompt + 2 * (prompt + 100)  # two would not fit
        together = texts(small.generate(requests))
        assert max(checked) == 1  # one live sequence at a time
        assert together == [texts(small.generate([r]))[0] for r in requests]


def test_results_are_reported_as_each_request_ends(engine: BatchedLlamaEngine) -> None:
    seen: list[int] = []
    engine.generate([request("x", 30), request("y", 2), request("z", 8)], on_result=lambda i, r: seen.append(i))
    assert seen == [1, 2, 0]


def test_a_steps_time_splits_into_llama_decode_sampling_and_the_rest(
    engine: BatchedLlamaEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The counters a benchmark reads to say where a decode step's time goes: the time in
    llama_decode and in sampling are parts of the step's time, and sampling is the
    sampler calls (slowing them shows up there, not in the decode share)."""
    real_sample = BatchedLlamaEngine._sample

    def slow_sample(self: BatchedLlamaEngine, job: Any, index: int) -> None:
        time.sleep(0.002)
        real_sample(self, job, index)

    monkeypatch.setattr(BatchedLlamaEngine, "_sample", slow_sample)
    before = engine.stats.copy()
    results = engine.generate([request(a, 20) for a in ANSWERS[:2]])
    stats = engine.stats.since(before)
    assert all(r.ok for r in results)
    assert stats.pure_steps > 0
    assert 0 < stats.step_decode_seconds and 0 < stats.step_sample_seconds
    assert stats.step_decode_seconds + stats.step_sample_seconds <= stats.step_seconds
    assert stats.step_sample_seconds >= 0.002 * stats.pure_step_tokens  # every sampled output counted
