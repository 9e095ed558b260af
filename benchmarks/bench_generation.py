"""Benchmark-pass generation on a real model: the engine against a bare batched loop and
a plain ``create_chat_completion`` loop.

A pass asks every question K times (repeats, seeded sampling at temperature 0.7). A real
model stops when it chooses, so answers end anywhere between a few and ``--tokens``
tokens. This times one such pass, the sample set's first ``--questions`` questions with
the pass's own answer prompt, on SmolLM2-135M-Instruct by default (``--model gemma3``
for Gemma 3 270M, ``--model random`` for the ~230 MB random-weight llama), through

  (1) ``BatchedLlamaEngine.generate`` with every request in one call: continuous
      batching over ``--slots`` sequences (a finished answer's slot is refilled at once,
      the shared prompt prefix stays in the cache);
  (2) a plain loop of ``llama_cpp.Llama.create_chat_completion`` calls, what a script
      without the engine does (``--plain-questions`` of the questions, rate compared);
  (3) a bare low-level loop with no orchestration and static waves: the repeats of
      ``--slots / --repeats`` questions at a time, each prompt prefilled once and copied
      to its repeats, every live sequence decoded in one ``llama_batch`` per step until
      the wave's last answer ends (what the engine did before continuous batching).

All three use the same ``--threads`` and seeds; ``--rounds`` repeats them in rotating
order and sums, so a busy neighbour on a shared machine slows all three alike. Prints
generated tokens per second for each, mean occupancy (live sequences / slots, over the
steps taken while requests were waiting, and for the bare loop over all its steps), the
ratios engine/bare (aim >= 0.9x) and engine/plain, and the engine's peak memory.

    .venv/bin/python benchmarks/bench_generation.py [--model smollm2|gemma3|random]
        [--questions 8] [--repeats 4] [--tokens 256] [--slots 8] [--threads 2] [--gpu-layers 0]
        [--ctx 8192] [--plain-questions 2] [--rounds 1] [--skip plain,bare]
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import llama_cpp

from gtreview.app.sample_project import sample_rubric_path
from gtreview.core.rubric import Rubric
from gtreview.inference.backend import ChatMessage, CompletionRequest, Sampling
from gtreview.inference.llama import BatchedLlamaEngine
from gtreview.inference.llama import native as native
from gtreview.interop.rubric_files import read_rubric_file
from gtreview.runs.plan import answer_messages
from tests.gguf_factory import write_larger_llama_gguf
from tests.real_models import model_path

TEMPERATURE = 0.7
SEED = 1234


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


class PlainLoop:
    """(2): one ``create_chat_completion`` per request."""

    def __init__(self, model: Path, args: argparse.Namespace, n_ctx: int) -> None:
        self.args = args
        self.llm = llama_cpp.Llama(
            str(model),
            n_ctx=n_ctx,
            n_threads=args.threads,
            n_threads_batch=args.threads,
            n_gpu_layers=args.gpu_layers,  # the high-level class reads -1 as every layer too
            verbose=False,
        )

    def run(self, messages: list[list[ChatMessage]]) -> int:
        tokens = 0
        for chat in messages:
            for repeat in range(self.args.repeats):
                out = self.llm.create_chat_completion(
                    [m.model_dump() for m in chat],
                    max_tokens=self.args.tokens,
                    temperature=TEMPERATURE,
                    top_k=0,
                    top_p=1.0,
                    min_p=0.0,
                    seed=SEED + repeat,
                )
                tokens += int(out["usage"]["completion_tokens"])  # type: ignore[index]
        return tokens

    def close(self) -> None:
        self.llm.close()


class BareLoop:
    """(3): static waves written straight against llama.h, with no plans, jobs or results."""

    def __init__(self, model: Path, args: argparse.Namespace, n_ctx: int) -> None:
        self.args = args
        self.handles = native.NativeHandles()
        self.handles.load_model(model, args.gpu_layers, "llama")
        self.handles.new_context(
            n_ctx=n_ctx,
            n_batch=512,
            n_seq_max=args.slots,
            n_threads=args.threads,
            n_threads_batch=args.threads,
            flash_attn=None,
        )
        self.vocab = llama_cpp.llama_model_get_vocab(self.handles.model)
        self.memory = llama_cpp.llama_get_memory(self.handles.ctx)
        self.steps = self.live = 0

    def run(self, prompts: list[list[int]]) -> int:
        per_wave = max(1, self.args.slots // self.args.repeats)
        return sum(self._wave(prompts[q : q + per_wave]) for q in range(0, len(prompts), per_wave))

    def _wave(self, group: list[list[int]]) -> int:
        ctx, batch, vocab, repeats = self.handles.ctx, self.handles.batch, self.vocab, self.args.repeats
        assert batch is not None

        def decode() -> None:
            if llama_cpp.llama_decode(ctx, batch.raw) != 0:
                raise RuntimeError("llama_decode failed")

        n = len(group) * repeats  # sequence q * repeats + r is repeat r of question q
        llama_cpp.llama_memory_clear(self.memory, True)
        samplers = [
            native.new_sampler(vocab, Sampling(temperature=TEMPERATURE, seed=SEED + s % repeats), None)
            for s in range(n)
        ]
        next_token = [0] * n
        pos = [len(group[s // repeats]) for s in range(n)]
        entries = [(t, i, q * repeats, i == len(p) - 1) for q, p in enumerate(group) for i, t in enumerate(p)]
        for start in range(0, len(entries), batch.capacity):
            batch.clear()
            ends = []
            for token, i, seq, last in entries[start : start + batch.capacity]:
                index = batch.add(token, i, seq, last)
                if last:
                    ends.append((seq, index))
            decode()
            for owner, index in ends:
                for seq in range(owner, owner + repeats):
                    if seq != owner:
                        llama_cpp.llama_memory_seq_cp(self.memory, owner, seq, 0, -1)
                    next_token[seq] = int(llama_cpp.llama_sampler_sample(samplers[seq], ctx, index))
        generated = [0 if llama_cpp.llama_vocab_is_eog(vocab, t) else 1 for t in next_token]
        live = [s for s in range(n) if generated[s] and generated[s] < self.args.tokens]
        while live:
            self.steps += 1
            self.live += len(live)
            batch.clear()
            indices = [batch.add(next_token[s], pos[s], s, True) for s in live]
            decode()
            still = []
            for s, index in zip(live, indices, strict=True):
                token = int(llama_cpp.llama_sampler_sample(samplers[s], ctx, index))
                pos[s] += 1
                if not llama_cpp.llama_vocab_is_eog(vocab, token):
                    next_token[s] = token
                    generated[s] += 1
                    if generated[s] < self.args.tokens:
                        still.append(s)
            live = still
        for sampler in samplers:
            llama_cpp.llama_sampler_free(sampler)
        return sum(generated)

    def close(self) -> None:
        self.handles.free()


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--model", default="smollm2", help="smollm2, gemma3, random, or a GGUF path")
    parser.add_argument("--questions", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=4)
    parser.add_argument("--tokens", type=int, default=256, help="max_tokens of every answer")
    parser.add_argument("--slots", type=int, default=8, help="parallel sequences (n_seq_max)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--gpu-layers", type=int, default=0, help="-1 offloads every layer (GPU build)")
    parser.add_argument("--ctx", type=int, default=8192, help="cache cells of the engine and the bare loop")
    parser.add_argument("--plain-questions", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--skip", default="", help="comma-separated phases to leave out: plain,bare")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="gtreview-bench-") as tmp:
        if args.model == "random":
            model = write_larger_llama_gguf(Path(tmp) / "larger.gguf")
        elif args.model.endswith(".gguf"):
            model = Path(args.model)
        else:
            model = model_path(args.model)
        run_pass(model, args, set(filter(None, args.skip.split(","))))


def run_pass(model: Path, args: argparse.Namespace, skip: set[str]) -> None:
    rubric = Rubric.model_validate(read_rubric_file(sample_rubric_path()).data)
    questions = (rubric.questions * (1 + args.questions // max(1, len(rubric.questions))))[: args.questions]
    messages = [answer_messages(q) for q in questions]
    requests = [
        CompletionRequest(messages=m, sampling=Sampling(temperature=TEMPERATURE, seed=SEED + r, max_tokens=args.tokens))
        for m in messages
        for r in range(args.repeats)
    ]
    engine = BatchedLlamaEngine(
        model, n_seq_max=args.slots, n_ctx=args.ctx, n_threads=args.threads, n_gpu_layers=args.gpu_layers
    )
    prompts = [engine.tokenize_prompt(m) for m in messages]
    n_ctx = engine.n_ctx
    print(
        f"model {model.name}: {args.questions} questions x {args.repeats} repeats, at most {args.tokens} tokens, "
        f"prompts {min(len(p) for p in prompts)}-{max(len(p) for p in prompts)} tokens, {args.slots} slots, "
        f"n_ctx {n_ctx}, {args.threads} threads"
    )
    engine.generate(requests[:2])  # warm-up (not timed)
    engine_rss = peak_rss_mib()
    before = engine.stats.copy()

    def engine_run() -> int:
        results = engine.generate(requests)
        assert all(r.ok for r in results), {r.error for r in results if not r.ok}
        return sum(r.completion_tokens or 0 for r in results)

    runners: dict[str, Callable[[], int]] = {"engine": engine_run}
    closers: list[Callable[[], None]] = [engine.close]
    bare: BareLoop | None = None
    if "bare" not in skip:
        bare = BareLoop(model, args, n_ctx)
        runners["bare"] = lambda: bare.run(prompts)  # type: ignore[union-attr]
        closers.append(bare.close)
        bare.run(prompts[:1])  # warm-up
        bare.steps = bare.live = 0
    if "plain" not in skip:
        plain = PlainLoop(model, args, max(len(p) for p in prompts) + args.tokens + 16)
        runners["plain"] = lambda: plain.run(messages[: args.plain_questions])
        closers.append(plain.close)
    elapsed = dict.fromkeys(runners, 0.0)
    tokens = dict.fromkeys(runners, 0)
    names = list(runners)
    try:
        for turn in range(args.rounds):
            for name in names[turn % len(names) :] + names[: turn % len(names)]:
                started = time.perf_counter()
                tokens[name] += runners[name]()
                elapsed[name] += time.perf_counter() - started
    finally:
        stats = engine.stats.since(before)
        for close in closers:
            close()
    labels = {"engine": "(1) engine", "plain": "(2) chat loop", "bare": "(3) bare waves"}
    rates = {name: tokens[name] / elapsed[name] for name in runners}
    for name in ("engine", "plain", "bare"):
        if name in rates:
            print(f"{labels[name]:<15} {elapsed[name]:7.2f} s  {tokens[name]:6d} tokens  {rates[name]:8.1f} tok/s")
    print(
        f"engine occupancy {stats.occupancy:.2f} (live/slots while requests waited, aim > 0.9; "
        f"{stats.queued_steps} of {stats.steps} steps); prompt tokens taken from the cache {stats.reused_tokens}, "
        f"prefilled {stats.prefill_tokens}"
    )
    if bare is not None and bare.steps:
        print(f"bare-wave occupancy {bare.live / (bare.steps * args.slots):.2f} (live/slots over all its steps)")
    if "bare" in rates:
        print(f"engine/bare  {rates['engine'] / rates['bare']:.2f}x (aim >= 0.9x)")
    if "plain" in rates:
        print(f"engine/plain {rates['engine'] / rates['plain']:.2f}x")
    print(f"peak RSS: engine alone {engine_rss:.0f} MiB, whole run {peak_rss_mib():.0f} MiB")


if __name__ == "__main__":
    from gtreview.inference.amx_guard import guard_this_process

    guard_this_process()  # llama.cpp runs in this process: off a faulting AMX tile unit, as workers are
    main()
