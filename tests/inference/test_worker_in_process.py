"""The model worker gives the same results and scores as the backend opened in-process.

The in-process side runs llama.cpp here, so this module is native: each test runs in a
forked child (tests/native_isolation.py), which starts its own worker.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from gtreview.inference.backend import CompletionRequest, ScoringBackend
from gtreview.inference.specs import open_in_process
from gtreview.inference.worker import WorkerBackend
from tests.inference.test_worker import TEXTS, VERDICT_SCHEMA, ask, spec_of

pytestmark = pytest.mark.native


@pytest.fixture()
def worker(tiny_gguf: Path) -> Iterator[WorkerBackend]:
    with WorkerBackend(spec_of(tiny_gguf)) as backend:
        yield backend


def test_results_equal_the_in_process_backend(worker: WorkerBackend, tiny_gguf: Path) -> None:
    requests = [ask(f"Answer: {a}") for a in ("gold in quartz", "a shear zone", "pyrite", "no idea", "basalt dyke")]
    requests.append(CompletionRequest(messages=requests[0].messages, json_schema=VERDICT_SCHEMA))
    requests.append(ask("Answer: ore", temperature=0.8, seed=3))
    in_process = open_in_process(spec_of(tiny_gguf))
    try:
        expected = in_process.complete_batch(requests)
    finally:
        in_process.close()
    got = worker.complete_batch(requests)
    assert [r.model_dump() for r in got] == [r.model_dump() for r in expected]
    assert all(r.ok for r in got) and len({r.text for r in got}) > 1
    assert worker.complete_batch([]) == []


def test_scoring_in_the_worker_equals_scoring_in_process(worker: WorkerBackend, tiny_gguf: Path) -> None:
    assert isinstance(worker, ScoringBackend)
    in_process = open_in_process(spec_of(tiny_gguf))
    try:
        assert isinstance(in_process, ScoringBackend)
        expected = [in_process.score_texts(TEXTS), in_process.score_texts(TEXTS, prefix_tokens=3)]
        tokens = [list(s.text_tokens) for s in expected[0]]
        expected_out = [in_process.greedy_continuations(TEXTS, 6), in_process.greedy_continuations(tokens, 6)]
    finally:
        in_process.close()
    got = [worker.score_texts(TEXTS), worker.score_texts(TEXTS, prefix_tokens=3)]
    for got_scores, expected_scores in zip(got, expected, strict=True):
        assert len(got_scores) == len(TEXTS)
        for g, e in zip(got_scores, expected_scores, strict=True):
            assert (g.text_tokens, g.start) == (e.text_tokens, e.start)
            assert g.logprobs == pytest.approx(e.logprobs, abs=1e-4)
            assert all(isinstance(x, float) for x in g.logprobs)
            # The moments Min-K%++ needs cross the pipe with the scores, one per scored token.
            assert g.has_moments and e.has_moments
            assert g.expected_logprobs == pytest.approx(e.expected_logprobs, abs=1e-4)
            assert g.logprob_variances == pytest.approx(e.logprob_variances, abs=1e-4)
    assert got[0][-1].logprobs == () or len(got[0][-1].logprobs) == len(got[0][-1].text_tokens) - 1
    assert [worker.greedy_continuations(TEXTS, 6), worker.greedy_continuations(tokens, 6)] == expected_out
    assert worker.score_texts([]) == [] and worker.greedy_continuations([], 6) == []
