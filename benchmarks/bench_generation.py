"""Benchmark-pass generation: the batched engine against a plain loop and a bare batched loop.

A benchmark pass asks every question K times (repeats, seeded sampling). This times one
such pass on the ~230 MB random "larger" llama (width 768, 8 layers, f32), written into
a temporary folder: ``--questions`` distinct prompts of a few hundred tokens, each asked
``--repeats`` times with its own seed, ``--tokens`` new tokens each, temperature 0.7, no
grammar, the same ``--threads`` everywhere, through

  (1) ``BatchedLlamaEngine.generate``: each question's prompt prefilled once and shared
      by its repeats, ``--in-flight`` questions decoding together (n_seq_max =
      in-flight x repeats);
  (2) a plain loop of ``llama_cpp.Llama.create_completion`` calls, what a script without
      the engine does (the KV cache is reset between questions, so the repeats of one
      question reuse its prompt);
  (3) a bare low-level loop with no orchestration: prefill each prompt of the group once
      (packed in n_batch chunks), copy it to the repeats' sequences, then decode every
      live sequence in one ``llama_batch`` per step, a temperature + seeded-dist sampler
      each. The engine's native work without its bookkeeping (rendering, tokenizing,
      prefix and wave planning, results), so (1)/(3) is what the bookkeeping costs.

The three run interleaved, one group of ``--in-flight`` questions at a time (in rotating
order), so a busy neighbour on a shared machine slows all three alike instead of
deciding a ratio. Prints generated tokens per second for each, the ratios engine/plain
(aim >= 4x) and engine/bare (aim >= 0.9x), and the engine's peak resident memory
(measured before the other two are loaded) against the model file size (aim: model + 1 GB).

    .venv/bin/python benchmarks/bench_generation.py [--questions 16] [--repeats 8] [--tokens 64]
        [--threads 2] [--gpu-layers 0] [--in-flight 4] [--skip plain]
"""

from __future__ import annotations

import argparse
import random
import resource
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import llama_cpp

from gtreview.inference import llama_native as native
from gtreview.inference.backend import ChatMessage, CompletionRequest, Sampling
from gtreview.inference.llama_engine import BatchedLlamaEngine
from tests.gguf_factory import DEFAULT_WORDS, write_larger_llama_gguf

TEMPERATURE = 0.7
SYSTEM = "Answer the question from the source passage only. Give the values with their units."


def question_messages(index: int) -> list[ChatMessage]:
    """A distinct prompt of a few hundred tokens: a random 'passage' and a question."""
    rng = random.Random(index)
    passage = " ".join(rng.choice(DEFAULT_WORDS) for _ in range(rng.randint(200, 320)))
    question = f"Question {index}: which {rng.choice(DEFAULT_WORDS)} hosts the {rng.choice(DEFAULT_WORDS)}?"
    return [ChatMessage(role="system", content=SYSTEM), ChatMessage(role="user", content=f"{passage}\n\n{question}")]


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


class PlainLoop:
    """(2): one ``create_completion`` per request, as a script without the engine would."""

    def __init__(self, model: Path, args: argparse.Namespace, n_ctx: int) -> None:
        self.args = args
        self.llm = llama_cpp.Llama(
            str(model),
            n_ctx=n_ctx,
            n_threads=args.threads,
            n_threads_batch=args.threads,
            n_gpu_layers=args.gpu_layers,
            verbose=False,
        )

    def run(self, prompts: list[str]) -> int:
        tokens = 0
        for prompt in prompts:
            self.llm.reset()  # type: ignore[no-untyped-call]  # a new question: nothing of the last one is reused
            for repeat in range(self.args.repeats):
                out = self.llm.create_completion(
                    prompt,
                    max_tokens=self.args.tokens,
                    temperature=TEMPERATURE,
                    top_k=0,
                    top_p=1.0,
                    min_p=0.0,
                    seed=repeat,
                )
                tokens += int(out["usage"]["completion_tokens"])  # type: ignore[index]
        return tokens

    def close(self) -> None:
        self.llm.close()


class BareLoop:
    """(3): the same native work written straight against llama.h, with no plans, jobs or results."""

    def __init__(self, model: Path, args: argparse.Namespace, n_ctx: int) -> None:
        self.args = args
        self.handles = native.NativeHandles()
        self.handles.load_model(model, args.gpu_layers, "llama")
        self.handles.new_context(
            n_ctx=n_ctx,
            n_batch=512,
            n_seq_max=args.in_flight * args.repeats,
            n_threads=args.threads,
            n_threads_batch=args.threads,
            flash_attn=None,
        )
        self.vocab = llama_cpp.llama_model_get_vocab(self.handles.model)
        self.memory = llama_cpp.llama_get_memory(self.handles.ctx)

    def run(self, group: list[list[int]]) -> int:
        ctx, batch, vocab, repeats = self.handles.ctx, self.handles.batch, self.vocab, self.args.repeats
        assert batch is not None

        def decode() -> None:
            if llama_cpp.llama_decode(ctx, batch.raw) != 0:
                raise RuntimeError("llama_decode failed")

        n = len(group) * repeats  # sequence q * repeats + r is repeat r of question q
        llama_cpp.llama_memory_clear(self.memory, True)
        samplers = [
            native.new_sampler(vocab, Sampling(temperature=TEMPERATURE, seed=s % repeats), None) for s in range(n)
        ]
        next_token = [0] * n
        pos = [len(group[s // repeats]) for s in range(n)]
        # Prefill each prompt once, in its first sequence, packed into n_batch chunks; when
        # a prompt is complete, copy it to its repeats and sample their first tokens.
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
    parser.add_argument("--questions", type=int, default=16)
    parser.add_argument("--repeats", type=int, default=8)
    parser.add_argument("--tokens", type=int, default=64)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--gpu-layers", type=int, default=0, help="-1 offloads every layer (GPU build)")
    parser.add_argument("--in-flight", type=int, default=4, help="questions decoding together in (1) and (3)")
    parser.add_argument("--skip", default="", help="comma-separated phases to leave out: plain,bare")
    args = parser.parse_args()
    skip = set(filter(None, args.skip.split(",")))

    with tempfile.TemporaryDirectory(prefix="gtreview-bench-") as tmp:
        started = time.perf_counter()
        model = write_larger_llama_gguf(Path(tmp) / "larger.gguf")
        model_mib = model.stat().st_size / 2**20
        print(f"model: {model_mib:.0f} MiB written in {time.perf_counter() - started:.1f} s")
        run_pass(model, model_mib, [question_messages(q) for q in range(args.questions)], args, skip)


def run_pass(
    model: Path, model_mib: float, messages: list[list[ChatMessage]], args: argparse.Namespace, skip: set[str]
) -> None:
    with BatchedLlamaEngine(model, n_seq_max=1, n_ctx=512, n_threads=args.threads, n_gpu_layers=0) as probe:
        texts = [probe.render(m) for m in messages]
        prompts = [probe.tokenize_prompt(m) for m in messages]
    max_prompt = max(len(p) for p in prompts)
    n_ctx = -(-(args.in_flight * (max_prompt + args.repeats * args.tokens) + 64) // 256) * 256
    requests = [
        CompletionRequest(messages=m, sampling=Sampling(temperature=TEMPERATURE, seed=r, max_tokens=args.tokens))
        for m in messages
        for r in range(args.repeats)
    ]
    engine = BatchedLlamaEngine(
        model,
        n_seq_max=args.in_flight * args.repeats,
        n_ctx=n_ctx,
        n_threads=args.threads,
        n_gpu_layers=args.gpu_layers,
    )
    print(
        f"workload: {args.questions} questions x {args.repeats} repeats x {args.tokens} tokens, prompts "
        f"{min(len(p) for p in prompts)}-{max_prompt} tokens, {args.threads} threads, gpu layers {args.gpu_layers}, "
        f"{args.in_flight} questions in flight (n_seq_max {args.in_flight * args.repeats}, n_ctx {n_ctx})"
    )
    per_group = args.in_flight * args.repeats
    groups = range(0, args.questions, args.in_flight)

    def engine_run(first: int) -> int:
        results = engine.generate(requests[first * args.repeats : first * args.repeats + per_group])
        assert all(r.ok for r in results), {r.error for r in results if not r.ok}
        return sum(r.completion_tokens or 0 for r in results)

    engine_run(0)  # warm-up (not timed), and the engine's own memory peak
    engine_rss = peak_rss_mib()
    runners: dict[str, Callable[[int], int]] = {"engine": engine_run}
    closers: list[Callable[[], None]] = [engine.close]
    if "bare" not in skip:
        bare = BareLoop(model, args, n_ctx)
        runners["bare"] = lambda first: bare.run(prompts[first : first + args.in_flight])
        closers.append(bare.close)
        bare.run(prompts[:1])  # warm-up
    if "plain" not in skip:
        plain = PlainLoop(model, args, max_prompt + args.tokens + 16)
        runners["plain"] = lambda first: plain.run(texts[first : first + args.in_flight])
        closers.append(plain.close)
        plain.llm.create_completion(texts[0], max_tokens=2, temperature=0.0)  # warm-up
    elapsed = dict.fromkeys(runners, 0.0)
    tokens = dict.fromkeys(runners, 0)
    group_rates: dict[str, list[float]] = {name: [] for name in runners}
    names = list(runners)
    try:
        for turn, first in enumerate(groups):
            for name in names[turn % len(names) :] + names[: turn % len(names)]:
                started = time.perf_counter()
                done = runners[name](first)
                took = time.perf_counter() - started
                tokens[name] += done
                elapsed[name] += took
                group_rates[name].append(done / took)
    finally:
        for close in closers:
            close()
    labels = {"engine": "(1) engine", "plain": "(2) Llama loop", "bare": "(3) bare batch"}
    rates = {name: tokens[name] / elapsed[name] for name in runners}
    for name in ("engine", "plain", "bare"):
        if name in rates:
            spread = f"{min(group_rates[name]):.0f}-{max(group_rates[name]):.0f}"
            print(
                f"{labels[name]:<16} {elapsed[name]:7.2f} s  {tokens[name]:6d} tokens  {rates[name]:8.1f} tok/s"
                f"  (per group {spread}: a wide spread means a busy machine)"
            )
    if "plain" in rates:
        print(f"engine/plain {rates['engine'] / rates['plain']:.2f}x (aim >= 4x)")
    if "bare" in rates:
        print(f"engine/bare  {rates['engine'] / rates['bare']:.2f}x (aim >= 0.9x)")
    print(
        f"peak RSS: engine alone {engine_rss:.0f} MiB, whole run {peak_rss_mib():.0f} MiB; "
        f"model {model_mib:.0f} MiB + 1 GiB = {model_mib + 1024:.0f} MiB"
    )


if __name__ == "__main__":
    main()
