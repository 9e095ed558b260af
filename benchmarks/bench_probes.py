"""Familiarity-probe scoring: batched sequences against one text per call.

The familiarity probe scores every sampled passage (and its control) under every model,
with logits at every position. This times ``BatchedLlamaEngine.score_texts`` on
``--passages`` passages of ~``--words`` words in one call (parallel sequences, waves of
``--seq``) against a loop that passes one passage per call on the same engine, and
prints passages per second for both and the ratio. It also checks that both give the
same numbers. Passages are ~``--words``-word stretches of the sample corpus's reports.
The model is SmolLM2-135M-Instruct by default (``--model gemma3``: Gemma 3 270M; both
fetched once by ``tests/real_models.py``), or a random-weight llama written into a
temporary folder (``--model tiny`` or the ~230 MB ``--model larger``).

    .venv/bin/python benchmarks/bench_probes.py [--model smollm2|gemma3|tiny|larger] [--passages 64]
        [--words 80] [--seq 8] [--threads 2] [--gpu-layers 0]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gtreview.inference.llama import BatchedLlamaEngine
from gtreview.paths import sample_corpus_dir
from tests.gguf_factory import write_larger_llama_gguf, write_tiny_llama_gguf
from tests.real_models import MODELS, model_path


def passages(count: int, words: int) -> list[str]:
    """``count`` stretches of ``words`` words from the sample reports, picked at random."""
    text = " ".join(p.read_text(encoding="utf-8") for p in sorted((sample_corpus_dir() / "reports").iterdir()))
    tokens = text.split()
    rng = random.Random(0)
    starts = [rng.randrange(0, max(1, len(tokens) - words)) for _ in range(count)]
    return [" ".join(tokens[start : start + words]) for start in starts]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=(*MODELS, "tiny", "larger"), default="smollm2")
    parser.add_argument("--passages", type=int, default=64)
    parser.add_argument("--words", type=int, default=80)
    parser.add_argument("--seq", type=int, default=8)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--gpu-layers", type=int, default=0)
    args = parser.parse_args()
    texts = passages(args.passages, args.words)
    with tempfile.TemporaryDirectory() as folder:
        if args.model in MODELS:
            path = model_path(args.model)
        else:
            path = Path(folder) / f"{args.model}.gguf"
            write = write_tiny_llama_gguf if args.model == "tiny" else write_larger_llama_gguf
            write(path)
        with BatchedLlamaEngine(
            path, n_seq_max=args.seq, n_ctx=4096, n_threads=args.threads, n_gpu_layers=args.gpu_layers
        ) as engine:
            engine.score_texts(texts[:2])  # warm-up
            t0 = time.perf_counter()
            batched = engine.score_texts(texts)
            t_batched = time.perf_counter() - t0
            t0 = time.perf_counter()
            single = [engine.score_texts([text])[0] for text in texts]
            t_single = time.perf_counter() - t0
    worst = max(
        abs(a - b) for x, y in zip(batched, single, strict=True) for a, b in zip(x.logprobs, y.logprobs, strict=True)
    )
    tokens = sum(len(s.text_tokens) for s in batched)
    print(f"model {args.model}, {len(texts)} passages, {tokens} tokens, {args.seq} sequences, {args.threads} threads")
    print(f"batched     {len(texts) / t_batched:9.1f} passages/s  ({tokens / t_batched:9.0f} tokens/s)")
    print(f"one at a time {len(texts) / t_single:7.1f} passages/s  ({tokens / t_single:9.0f} tokens/s)")
    print(f"ratio batched/one-at-a-time: {t_single / t_batched:.2f}x; largest log-prob difference {worst:.2e}")


if __name__ == "__main__":
    from gtreview.inference.amx_guard import guard_this_process

    guard_this_process()  # llama.cpp runs in this process: off a faulting AMX tile unit, as workers are
    main()
