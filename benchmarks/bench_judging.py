"""Judging on real models: grammar-constrained verdicts against free text on one engine.

For each model (default: SmolLM2-135M-Instruct and Gemma 3 270M, fetched once by
``tests/real_models.py``), the sample set's first ``--questions`` questions are judged,
``--answers`` answers each (the questions' calibration responses: real answers of
every quality), with the production judge (``judge_answers``: the v2 verdict schema,
greedy, re-asks) on a ``BatchedLlamaEngine`` with one slot per answer. Then, on the
same engine and in the same run:

  free text      the same prompts without a schema, each request given exactly as many
                 tokens as its verdict took (same batch, same lengths: only the grammar
                 differs);
  grammar first  (``--eager``) the verdict requests with the grammar in front of every
                 sequence's sampler chain, filtering the whole vocabulary each step: the
                 sampler before the lazy check.

Decode rates count only decode steps with no prefill in them (sampling included), from
the engine's own counters. ``--rounds`` repeats everything, alternating, and sums, so a
busy neighbour on a shared machine slows every mode alike. Prints, per model: verdict
tokens/s against free-text tokens/s (aim >= 0.8x), verdicts per minute (prefill and
re-asks included), tokens per verdict and the valid-verdict rate (first replies, and
scored after re-asks).

    .venv/bin/python benchmarks/bench_judging.py [--models smollm2,gemma3] [--questions 2]
        [--answers 4] [--threads 2] [--ctx 16384] [--gpu-layers -1] [--max-tokens 512] [--rounds 1]
        [--eager [smollm2,...]] [--model-path FILE.gguf]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import llama_cpp

from gtreview.app.sample_project import sample_rubric_path
from gtreview.core.rubric import Rubric
from gtreview.inference.backend import ChatMessage, CompletionRequest, CompletionResult, ResultCallback, Sampling
from gtreview.inference.llama import EngineStats, LlamaBackend
from gtreview.interop.rubric_files import read_rubric_file
from gtreview.judging.contract import ContractViolation, parse_verdict_reply
from gtreview.judging.pointwise import JudgeSettings, JudgeTask, judge_answers
from tests.real_models import MODELS, model_path


@dataclass
class Call:
    requests: list[CompletionRequest]
    results: list[CompletionResult]
    stats: EngineStats
    seconds: float


@dataclass
class Recorder:
    """The judge's backend, keeping every batch it was sent with the engine's counters."""

    backend: LlamaBackend
    calls: list[Call] = field(default_factory=list)

    @property
    def spec(self) -> str:
        return self.backend.spec

    def describe(self) -> dict[str, Any]:
        return self.backend.describe()

    def complete_batch(
        self, requests: Sequence[CompletionRequest], on_result: ResultCallback | None = None
    ) -> list[CompletionResult]:
        before, began = self.backend.engine.stats.copy(), time.perf_counter()
        results = self.backend.complete_batch(requests, on_result=on_result)
        took = time.perf_counter() - began
        self.calls.append(Call(list(requests), results, self.backend.engine.stats.since(before), took))
        return results

    def close(self) -> None:
        self.backend.close()


@dataclass
class Totals:
    tokens: int = 0
    seconds: float = 0.0
    rejections: int = 0
    full_filters: int = 0

    def add(self, stats: EngineStats) -> None:
        self.tokens += stats.pure_step_tokens
        self.seconds += stats.step_seconds
        self.rejections += stats.grammar_rejections
        self.full_filters += stats.grammar_full_filters

    @property
    def rate(self) -> float:
        return self.tokens / self.seconds if self.seconds else 0.0


def judge_tasks(questions: int, answers: int) -> list[JudgeTask]:
    rubric = Rubric.model_validate(read_rubric_file(sample_rubric_path()).data)
    tasks = []
    for question in rubric.questions[:questions]:
        fixtures = [f for f in question.calibration if (f.response_text or "").strip()]
        for n, fixture in enumerate((fixtures * answers)[:answers]):
            tasks.append(JudgeTask(key=f"{question.id}/{n}", question=question, answer=fixture.response_text or ""))
    return tasks


def run_model(key: str, path: Path, args: argparse.Namespace) -> None:
    eager_wanted = args.eager == "all" or key in args.eager.split(",")
    tasks = judge_tasks(args.questions, args.answers)
    settings = JudgeSettings(sampling=Sampling(temperature=0.0, seed=0, max_tokens=args.max_tokens))
    backend = LlamaBackend(
        f"llama:{path}",
        path,
        n_ctx=args.ctx,
        n_seq_max=len(tasks),
        n_threads=args.threads,
        n_gpu_layers=args.gpu_layers,
    )
    engine = backend.engine
    vocab = int(llama_cpp.llama_vocab_n_tokens(engine._vocab))
    judge, free, eager = Totals(), Totals(), Totals()
    wall = valid_first = scored = replies = verdict_tokens = 0.0
    prompts: list[int] = []
    try:
        warm = CompletionRequest(messages=[ChatMessage(role="user", content="Hello")], sampling=Sampling(max_tokens=4))
        engine.generate([warm, warm])  # not timed
        for _ in range(args.rounds):
            recorder = Recorder(backend)
            began = time.perf_counter()
            judgements = judge_answers(recorder, tasks, settings=settings)
            wall += time.perf_counter() - began
            first = recorder.calls[0]
            judge.add(first.stats)
            prompts = [len(engine.tokenize_prompt(r.messages)) for r in first.requests]
            scored += sum(j.record is not None for j in judgements)
            replies += len(first.results)
            verdict_tokens += sum(r.completion_tokens or 0 for r in first.results)
            for task, result in zip(tasks, first.results, strict=True):
                try:
                    if result.finish_reason != "stop":
                        raise ContractViolation(result.finish_reason)
                    parse_verdict_reply(task.question, result.text)
                    valid_first += 1
                except ContractViolation:
                    pass
            lengths = [max(1, r.completion_tokens or 0) for r in first.results]
            same = [
                r.model_copy(update={"json_schema": None, "sampling": r.sampling.model_copy(update={"max_tokens": n})})
                for r, n in zip(first.requests, lengths, strict=True)
            ]
            before = engine.stats.copy()
            engine.generate(same)
            free.add(engine.stats.since(before))
            if eager_wanted:
                constrained = [
                    r.model_copy(update={"sampling": r.sampling.model_copy(update={"max_tokens": n})})
                    for r, n in zip(first.requests, lengths, strict=True)
                ]
                engine.lazy_grammar = False
                before = engine.stats.copy()
                try:
                    engine.generate(constrained)
                finally:
                    engine.lazy_grammar = True
                eager.add(engine.stats.since(before))
    finally:
        backend.close()
    model = MODELS[key].description if key in MODELS else path.name
    n = len(tasks) * args.rounds
    print(
        f"{key}: {model}, {vocab:,}-token vocabulary; {len(tasks)} answers to {args.questions} questions, "
        f"prompts {min(prompts):,}-{max(prompts):,} tokens, {len(tasks)} slots, {args.threads} threads, "
        f"{args.gpu_layers} GPU layers, {args.rounds} round(s)"
    )
    refused = judge.rejections / judge.tokens if judge.tokens else 0.0
    print(
        f"  verdict decode    {judge.tokens:6d} tokens {judge.seconds:7.2f} s {judge.rate:7.1f} tok/s"
        f"  (the grammar refused the first choice in {refused:.0%} of steps; "
        f"{judge.full_filters} of those {judge.rejections} filtered the whole vocabulary)"
    )
    print(f"  free-text decode  {free.tokens:6d} tokens {free.seconds:7.2f} s {free.rate:7.1f} tok/s")
    if eager_wanted:
        print(f"  grammar first     {eager.tokens:6d} tokens {eager.seconds:7.2f} s {eager.rate:7.1f} tok/s")
    ratio = judge.rate / free.rate if free.rate else 0.0
    line = f"  verdict/free-text {ratio:.2f}x (aim >= 0.8x)"
    if eager_wanted and free.rate:
        line += f"; grammar-first/free-text {eager.rate / free.rate:.2f}x"
    print(line)
    print(
        f"  verdicts          {n} in {wall:.1f} s = {60 * n / wall:.1f} per minute (prefill and re-asks included), "
        f"{verdict_tokens / replies:.0f} tokens per first reply"
    )
    print(
        f"  valid verdicts    first replies {valid_first:.0f}/{replies:.0f} ({valid_first / replies:.0%}), scored after re-asks {scored:.0f}/{n} ({scored / n:.0%})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--models", default="smollm2,gemma3", help="comma-separated: " + ", ".join(MODELS))
    parser.add_argument("--model-path", type=Path, help="judge with this GGUF instead")
    parser.add_argument("--questions", type=int, default=2)
    parser.add_argument("--answers", type=int, default=4, help="answers per question (one slot each)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--ctx", type=int, default=16384)
    parser.add_argument("--gpu-layers", type=int, default=-1, help="layers offloaded on a GPU build (-1: every one)")
    parser.add_argument("--max-tokens", type=int, default=512)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument(
        "--eager",
        nargs="?",
        const="all",
        default="",
        help="also time the grammar-first sampler chain (for all models, or a comma-separated few)",
    )
    args = parser.parse_args()
    if args.model_path is not None:
        run_model(args.model_path.stem, args.model_path, args)
        return
    for key in filter(None, args.models.split(",")):
        run_model(key, model_path(key), args)


if __name__ == "__main__":
    from gtreview.inference.amx_guard import guard_this_process

    guard_this_process()  # llama.cpp runs in this process: off a faulting AMX tile unit, as workers are
    main()
