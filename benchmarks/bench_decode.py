"""The engine's decode loop against llama.cpp's own decode rate, and where a step's time goes.

``llama-batched-bench`` (llama.cpp's tool) decodes ``B`` sequences one token each per
``llama_decode``, with logits, and never samples: its S_TG is the most llama.cpp itself
decodes at that parallelism. This runs it at ``--levels`` (default 1, 4, 8, 16) with the
engine's cache layout (``-kvu``, a unified cache), the prompt length of the engine's
requests and ``--tokens`` new tokens, and beside it, in the same run, the engine
(``BatchedLlamaEngine``, one fresh engine per level with as many slots) generating ``B``
answers with real sampling (temperature 0.7, top-p 0.95, a seed each) and real
stopping. ``--samplers llama,numpy`` runs the engine twice per level: with llama.cpp's own
sampler chain called per sequence (``llama``), and with the engine's default for top-p,
``llama/nucleus.py`` (``numpy``: the same nucleus without sorting the vocabulary). The
prompts ask for long essays, so sequences seldom stop early; the occupancy of the timed
steps is printed. Without ``--batched-bench`` the engine's own ``llama_decode`` time is
the yardstick (it matched batched-bench within 1.01-1.11x on this machine).

For the engine's decode steps without a prefill, from its own counters: tokens/s over
the whole step, over its ``llama_decode`` calls alone (what batched-bench measures), and
the step's time split into llama_decode, sampling (each sequence's sampler chain, the
end-of-generation and length checks) and the rest (filling the batch, bookkeeping).
Each level runs both sides back to back (alternating which goes first), so they share
the machine's load; ``--rounds 2`` runs everything again and sums.

    .venv/bin/python benchmarks/bench_decode.py [--batched-bench llama.cpp/build/bin/llama-batched-bench]
        [--model smollm2|gemma3|FILE.gguf] [--levels 1,4,8,16] [--tokens 128] [--threads 2]
        [--gpu-layers 0] [--rounds 1] [--samplers llama,numpy]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gtreview.inference.backend import ChatMessage, CompletionRequest, Sampling
from gtreview.inference.llama import BatchedLlamaEngine, EngineStats
from tests.real_models import model_path

TOPICS = [
    "saddle reefs in folded slate belts",
    "supergene enrichment of gold in weathered lodes",
    "deep leads buried beneath basalt flows",
    "ore shoots plunging along fold hinges",
    "refractory arsenopyrite ores and roasting",
    "sampling coarse-gold quartz reefs",
    "faults that offset a reef and how to find it again",
    "indicator veins and cross-courses",
]


def essay_request(n: int, tokens: int) -> CompletionRequest:
    topic = TOPICS[n % len(TOPICS)]
    text = f"Write a long, detailed essay (at least 1,000 words) on {topic}, section {n + 1}."
    return CompletionRequest(
        messages=[ChatMessage(role="user", content=text)],
        sampling=Sampling(temperature=0.7, top_p=0.95, seed=1000 + n, max_tokens=tokens),
    )


@dataclass
class EngineSide:
    stats: EngineStats
    prompt_tokens: int

    def rate(self, seconds: float) -> float:
        return self.stats.pure_step_tokens / seconds if seconds > 0 else 0.0


def run_engine(model: Path, level: int, args: argparse.Namespace, sampler: str) -> EngineSide:
    requests = [essay_request(n, args.tokens) for n in range(level)]
    engine = BatchedLlamaEngine(
        model,
        n_seq_max=level,
        n_ctx=level * (args.tokens + 128),
        n_threads=args.threads,
        n_gpu_layers=args.gpu_layers,
    )
    engine.numpy_top_p = sampler == "numpy"
    try:
        prompt = round(sum(len(engine.tokenize_prompt(r.messages)) for r in requests) / level)
        engine.generate([essay_request(99, 4)])  # warm-up, not counted
        before = engine.stats.copy()
        results = engine.generate(requests)
        assert all(r.ok for r in results), {r.error for r in results if not r.ok}
        return EngineSide(engine.stats.since(before), prompt)
    finally:
        engine.close()


def run_batched_bench(
    binary: Path, model: Path, levels: list[int], prompt: int, args: argparse.Namespace
) -> dict[int, float]:
    """S_TG (tokens/s of the decode steps) per level, from its JSONL lines."""
    command = [
        str(binary),
        *("-m", str(model), "-c", str(max(levels) * (prompt + args.tokens) + 64)),
        *("-b", "2048", "-ub", "512", "-kvu", "-t", str(args.threads), "-tb", str(args.threads)),
        *("-ngl", str(args.gpu_layers), "-npp", str(prompt), "-ntg", str(args.tokens)),
        *("-npl", ",".join(map(str, levels)), "--output-format", "jsonl"),
    ]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"llama-batched-bench failed (exit {done.returncode}): {done.stderr.strip()[-400:]}")
    rates = {}
    for line in (done.stdout + done.stderr).splitlines():
        if line.startswith("{") and '"speed_tg"' in line:
            row = json.loads(line)
            rates[int(row["pl"])] = float(row["speed_tg"])
    return rates


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--batched-bench", type=Path, help="llama.cpp's llama-batched-bench (else llama_decode's own rate)"
    )
    parser.add_argument("--model", default="smollm2", help="smollm2, gemma3 or a GGUF path")
    parser.add_argument("--levels", default="1,4,8,16")
    parser.add_argument("--tokens", type=int, default=128, help="new tokens per sequence")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--gpu-layers", type=int, default=0)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument(
        "--samplers", default="numpy", help="top-p drawn by: llama (llama.cpp's chain), numpy (the engine's), or both"
    )
    args = parser.parse_args()
    model = Path(args.model) if args.model.endswith(".gguf") else model_path(args.model)
    levels = [int(v) for v in args.levels.split(",")]
    samplers = [name for name in args.samplers.split(",") if name]
    if not samplers or set(samplers) - {"llama", "numpy"}:
        raise SystemExit(f"--samplers takes llama, numpy or both (got {args.samplers!r})")
    engine_stats = {(name, level): EngineStats(slots=level) for name in samplers for level in levels}
    bench_rates = dict.fromkeys(levels, 0.0)
    prompt = 0
    print(f"model {model.name}: levels {levels}, {args.tokens} new tokens, {args.threads} threads", flush=True)
    for turn in range(args.rounds):
        for level in levels:  # every side of a level back to back: they share the machine's load
            sides = [*samplers, "bench"] if args.batched_bench is not None else list(samplers)
            for side in sides if (turn + level) % 2 == 0 else sides[::-1]:
                if side != "bench":
                    measured = run_engine(model, level, args, side)
                    prompt = measured.prompt_tokens
                    total = engine_stats[side, level]
                    for name, value in measured.stats.__dict__.items():
                        if name != "slots":
                            setattr(total, name, getattr(total, name) + value)
                else:
                    rates = run_batched_bench(args.batched_bench, model, [level], prompt or 40, args)
                    bench_rates[level] += rates.get(level, 0.0) / args.rounds
            print(f"round {turn + 1}: {level} sequences done", flush=True)
    print(
        f"\n{'seqs':>4} {'top-p':>5} {'batched-bench':>13} {'engine step':>11} {'decode only':>11} {'step/bench':>10} "
        f"{'step/decode':>11} {'occupancy':>9} {'decode':>7} {'sampling':>8} {'rest':>6} {'us/sample':>9}"
    )
    for level in levels:
        for name in samplers:
            _print_row(level, name, engine_stats[name, level], bench_rates[level])
        if len(samplers) == 2:
            steps = [_step_rate(engine_stats[name, level]) for name in samplers]
            print(
                f"{level:4d} {samplers[1]} / {samplers[0]}: engine step {steps[1] / steps[0] if steps[0] else 0:.2f}x"
            )
    print(f"(tokens/s; batched-bench at prompt {prompt} tokens, -kvu; the engine's steps without a prefill)")


def _step_rate(stats: EngineStats) -> float:
    return stats.pure_step_tokens / stats.step_seconds if stats.step_seconds else 0.0


def _print_row(level: int, sampler: str, stats: EngineStats, bench: float) -> None:
    step = _step_rate(stats)
    decode = stats.pure_step_tokens / stats.step_decode_seconds if stats.step_decode_seconds else 0.0
    occupancy = stats.pure_step_tokens / (stats.pure_steps * level) if stats.pure_steps else 0.0
    decode_share = stats.step_decode_seconds / stats.step_seconds if stats.step_seconds else 0.0
    sampling_share = stats.step_sample_seconds / stats.step_seconds if stats.step_seconds else 0.0
    per_sample = stats.step_sample_seconds / stats.pure_step_tokens * 1e6 if stats.pure_step_tokens else 0.0
    against_bench = f"{step / bench:9.2f}x" if bench else f"{'-':>10}"
    print(
        f"{level:4d} {sampler:>5} {bench:13.1f} {step:11.1f} {decode:11.1f} {against_bench} "
        f"{step / decode if decode else 0:10.2f}x {occupancy:9.2f} {decode_share:7.0%} "
        f"{sampling_share:8.0%} {1 - decode_share - sampling_share:6.0%} {per_sample:9.0f}"
    )


if __name__ == "__main__":
    from gtreview.inference.amx_guard import guard_this_process

    guard_this_process()
    main()
