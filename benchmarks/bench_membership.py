"""Membership scoring against plain prompt processing, on a real model.

The membership tests score corpus passages with every position's next-token
log-probability and the mean and variance of log p over the whole vocabulary
(Min-K%++). This times, on the same passages and in one run:

* ``membership``: ``BatchedLlamaEngine.score_texts`` (parallel sequences, logits at
  every position, each row reduced to the three numbers as it arrives);
* ``plain eval``: ``llama_cpp.Llama.eval`` of each passage's tokens, one passage at a
  time, logits of the last position only: the engine's plain prompt-processing speed;
* ``plain eval, all logits``: the same with ``logits_all=True`` (what any per-token
  scorer has to compute at least).

It prints tokens/s of each (the best of ``--rounds``, taken in turn, so a busy
neighbour slows every side alike), the ratios of membership scoring to the plain ones,
and the time spent in the per-row reduction, measured inside the call.
Passages are ~``--words``-word stretches of the sample corpus's reports; the model is
SmolLM2-135M-Instruct (``--model gemma3``: Gemma 3 270M, 262k vocabulary), fetched once
by ``tests/real_models.py``, or the random ``tiny`` llama.

    .venv/bin/python benchmarks/bench_membership.py [--model smollm2|gemma3|tiny]
        [--passages small|full|N] [--words 80] [--seq 8] [--threads 2] [--gpu-layers 0]
        [--flash-attn on|off] [--rounds 2]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import llama_cpp

from benchmarks.bench_probes import passages
from gtreview.inference.llama import BatchedLlamaEngine
from gtreview.inference.llama import scoring as llama_scoring
from tests.gguf_factory import write_tiny_llama_gguf
from tests.real_models import MODELS, model_path

SIZES = {"small": 6, "full": 64}


def timed(work: Callable[[], Any]) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


class PlainEval:
    """``Llama.eval`` of every passage, one at a time, on a model loaded once."""

    def __init__(self, path: Path, n_ctx: int, args: argparse.Namespace, *, logits_all: bool) -> None:
        self.llm = llama_cpp.Llama(
            str(path),
            n_ctx=n_ctx,
            n_threads=args.threads,
            n_threads_batch=args.threads,
            n_gpu_layers=args.gpu_layers,
            flash_attn=args.flash_attn == "on",
            logits_all=logits_all,
            verbose=False,
        )

    def run(self, token_lists: list[list[int]]) -> None:
        for tokens in token_lists:
            self.llm.reset()  # type: ignore[no-untyped-call]
            self.llm.eval(tokens)


class TimedReducer:
    """Wraps the per-row reduction to add up the time spent in it."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.rows = 0
        self.inner = llama_scoring._RowReducer.reduce

    def method(self) -> Callable[[Any, Any, int], tuple[float, float, float]]:
        """A plain function, so that it binds as a method of the reducer."""

        def reduce(reducer: Any, logits: Any, token: int) -> tuple[float, float, float]:
            start = time.perf_counter()
            try:
                return self.inner(reducer, logits, token)
            finally:
                self.seconds += time.perf_counter() - start
                self.rows += 1

        return reduce


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--model", choices=(*MODELS, "tiny"), default="smollm2")
    parser.add_argument("--passages", default="small", help="small (6), full (64) or a number")
    parser.add_argument("--words", type=int, default=80)
    parser.add_argument("--seq", type=int, default=8)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--gpu-layers", type=int, default=0)
    parser.add_argument("--flash-attn", choices=("on", "off"), default="on")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    count = SIZES.get(args.passages) or int(args.passages)
    texts = passages(count, args.words)
    best = {"membership": float("inf"), "plain": float("inf"), "all logits": float("inf")}
    timer = TimedReducer()
    with tempfile.TemporaryDirectory() as folder:
        path = model_path(args.model) if args.model in MODELS else write_tiny_llama_gguf(Path(folder) / "tiny.gguf")
        engine = BatchedLlamaEngine(
            path,
            n_seq_max=args.seq,
            n_ctx=4096,
            n_threads=args.threads,
            n_gpu_layers=args.gpu_layers,
            flash_attn=args.flash_attn == "on",
        )
        scored = engine.score_texts(texts)  # warm-up, and the tokens the plain side evaluates
        token_lists = [list(s.text_tokens) for s in scored]
        n_ctx = max(len(t) for t in token_lists) + 16
        plain = PlainEval(path, n_ctx, args, logits_all=False)
        all_logits = PlainEval(path, n_ctx, args, logits_all=True)
        try:
            plain.run(token_lists[:2])
            all_logits.run(token_lists[:2])
            llama_scoring._RowReducer.reduce = timer.method()  # type: ignore[method-assign, assignment]
            for _ in range(args.rounds):
                timer.seconds, timer.rows = 0.0, 0
                t = timed(lambda: engine.score_texts(texts))
                if t < best["membership"]:
                    best["membership"], reduce_seconds, reduce_rows = t, timer.seconds, timer.rows
                best["plain"] = min(best["plain"], timed(lambda: plain.run(token_lists)))
                best["all logits"] = min(best["all logits"], timed(lambda: all_logits.run(token_lists)))
        finally:
            llama_scoring._RowReducer.reduce = timer.inner  # type: ignore[method-assign]
            engine.close()
            plain.llm.close()
            all_logits.llm.close()
    tokens = sum(len(t) for t in token_lists)
    assert all(s.has_moments for s in scored)
    print(
        f"model {args.model}, {len(texts)} passages, {tokens} tokens, {args.seq} sequences, {args.threads} threads, "
        f"{args.gpu_layers} GPU layers, flash attention {args.flash_attn}, best of {args.rounds}"
    )
    for name, label in (
        ("membership", "membership scoring (log p, mean, var)"),
        ("plain", "plain Llama.eval, last logits"),
        ("all logits", "plain Llama.eval, logits_all=True"),
    ):
        print(f"  {label:<40} {tokens / best[name]:9.0f} tokens/s")
    print(
        f"membership / plain eval: {best['plain'] / best['membership']:.2f}x; "
        f"membership / all-logits eval: {best['all logits'] / best['membership']:.2f}x; "
        f"the per-row reduction took {reduce_seconds / max(1, reduce_rows) * 1e6:.0f} us a row, "
        f"{reduce_seconds / best['membership']:.1%} of membership scoring"
    )


if __name__ == "__main__":
    from gtreview.inference.amx_guard import guard_this_process

    guard_this_process()  # llama.cpp runs in this process: off a faulting AMX tile unit, as workers are
    main()
