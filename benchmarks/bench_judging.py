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
        [--templates judge_pointwise_v2,judge_pointwise_v3]  (before, after: interleaved, side by side)
        [--jump-forward off,on]  (the engine's jump over forced JSON text: off, on, or both side by side)

With ``--jump-forward off,on`` each template is judged twice, the second time feeding the
text the verdict grammar forces (keys, quotes, braces) in one step per run
(``gtreview.inference.llama.jump_forward``); the comparison line gives decode steps,
verdicts per minute and fixture agreement of the two, measured in the same run.

Each side also prints the judge gate's expert figures (``gtreview.app.judge_gate.
expert_agreement``, the computation ``gtreview judge gate`` reads): the fixtures' expected
grades stand in for an expert's blind grades of the same answers, giving weighted kappa
and Krippendorff's alpha on totals (bootstrap over questions), the gate's sensitivity and
specificity, and the per-criterion agreement, each with its 95% interval.
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

from gtreview.app.gate_criteria import GradedPair, criteria_details
from gtreview.app.judge_gate import ExpertGate, GradedAnswer, expert_agreement, expert_text
from gtreview.app.project_settings import DEFAULT_GATE_MEASURE, DEFAULT_GATE_THRESHOLD
from gtreview.app.sample_project import sample_rubric_path
from gtreview.core.rubric import CalibrationFixture, Question, Rubric
from gtreview.inference.backend import ChatMessage, CompletionRequest, CompletionResult, ResultCallback, Sampling
from gtreview.inference.llama import EngineStats, LlamaBackend, native
from gtreview.interop.rubric_files import read_rubric_file
from gtreview.judging.calibration import FixtureCheck, check_fixture
from gtreview.judging.pointwise import JudgeSettings, JudgeTask, judge_answers
from gtreview.judging.prompts import POINTWISE
from gtreview.judging.schemas import verdict_schema
from tests.real_models import MODELS, model_path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from verdict_anatomy import Anatomy


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
    spec: str = ""

    def __post_init__(self) -> None:
        self.spec = self.backend.spec

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


def judge_tasks(questions: int, answers: int) -> list[tuple[JudgeTask, CalibrationFixture]]:
    rubric = Rubric.model_validate(read_rubric_file(sample_rubric_path()).data)
    tasks = []
    for question in rubric.questions[:questions]:
        fixtures = [f for f in question.calibration if (f.response_text or "").strip()]
        for n, fixture in enumerate((fixtures * answers)[:answers]):
            task = JudgeTask(key=f"{question.id}/{n}", question=question, answer=fixture.response_text or "")
            tasks.append((task, fixture))
    return tasks


@dataclass
class Side:
    """One judge template (instructions and verdict bounds), with or without jumping over
    forced text, summed over the rounds."""

    settings: JudgeSettings
    jump: bool = True
    judge: Totals = field(default_factory=Totals)
    free: Totals = field(default_factory=Totals)
    eager: Totals = field(default_factory=Totals)
    anatomy: Anatomy = field(default_factory=Anatomy)
    wall: float = 0.0
    first_seconds: float = 0.0
    prefilled: int = 0
    reused: int = 0
    replies: int = 0
    valid_first: int = 0
    scored: int = 0
    verdict_tokens: int = 0
    all_tokens: int = 0
    reasked: int = 0
    reask_calls: int = 0
    reask_tokens: int = 0
    reask_seconds: float = 0.0
    reproduced: int = 0
    steps: int = 0  # decode steps of the first calls (prefill steps included)
    forced: int = 0  # verdict tokens the grammar forced (fed without a step of their own)
    awards_matched: int = 0
    awards: int = 0
    prompts: list[int] = field(default_factory=list)
    totals: list[int | None] = field(default_factory=list)  # the last round's, per answer
    graded: list[GradedAnswer] = field(default_factory=list)  # the last round's scored answers

    @property
    def expert(self) -> ExpertGate | None:
        """The judge gate's expert figures, the fixtures' expected grades standing in for
        the expert's blind grades: the same computation ``gtreview judge gate`` reads."""
        return expert_agreement(self.graded, measure=DEFAULT_GATE_MEASURE, threshold=DEFAULT_GATE_THRESHOLD)

    @property
    def label(self) -> str:
        return f"{self.settings.template}, jump-forward {'on' if self.jump else 'off'}"

    def judge_round(self, backend: LlamaBackend, tasks: list[tuple[JudgeTask, CalibrationFixture]]) -> Call:
        recorder = Recorder(backend)
        backend.engine.jump_forward = self.jump
        began = time.perf_counter()
        try:
            judgements = judge_answers(recorder, [t for t, _ in tasks], settings=self.settings)
        finally:
            backend.engine.jump_forward = True
        self.wall += time.perf_counter() - began
        first = recorder.calls[0]
        self.steps += first.stats.steps
        self.forced += first.stats.forced_tokens
        self.judge.add(first.stats)
        self.first_seconds += first.seconds
        self.prefilled += first.stats.prefill_tokens
        self.reused += first.stats.reused_tokens
        self.reasked += len(recorder.calls[1].requests) if len(recorder.calls) > 1 else 0
        for call in recorder.calls[1:]:
            self.reask_calls += 1
            self.reask_tokens += sum(r.completion_tokens or 0 for r in call.results)
            self.reask_seconds += call.seconds
        engine = backend.engine
        self.prompts = [len(engine.tokenize_prompt(r.messages)) for r in first.requests]
        self.replies += len(first.results)
        self.verdict_tokens += sum(r.completion_tokens or 0 for r in first.results)
        self.all_tokens += sum(j.tokens for j in judgements)
        self.scored += sum(j.record is not None for j in judgements)
        self.totals = [j.total for j in judgements]

        def tokens_of(text: str) -> int:
            return len(native.tokenize(engine._vocab, text, add_special=False))

        self.graded = []
        for (task, fixture), result, judgement in zip(tasks, first.results, judgements, strict=True):
            caps = _caps(verdict_schema(task.question, self.settings.verdict_bounds))
            if result.finish_reason == "stop":
                self.valid_first += self.anatomy.read(
                    task.question, result.text, result.completion_tokens or 0, tokens_of, caps
                )
            check = check_fixture(task.question, fixture, judgement)
            self.reproduced += check.reproduced
            self.awards += len(check.expected_awards)
            self.awards_matched += sum(check.judged_awards.get(k) == v for k, v in check.expected_awards.items())
            if check.judged_gate_passed is not None:
                self.graded.append(_graded(task.question, check))
        return first


def _graded(question: Question, check: FixtureCheck) -> GradedAnswer:
    """A scored fixture as the judge gate reads a blind-graded answer: the fixture's
    expected grade in the expert's place."""
    judge_gate = bool(check.judged_gate_passed)
    expert_awards = {k: round(v) for k, v in check.expected_awards.items()}
    return GradedAnswer(
        qid=question.id,
        judge_gate=judge_gate,
        judge_total=check.judged_total,
        expert_gate=check.expected_gate_passed,
        expert_total=round(check.expected_total),
        pair=GradedPair(
            question=question,
            judge_gate=judge_gate,
            judge_awards=check.judged_awards,
            expert_gate=check.expected_gate_passed,
            expert_awards=expert_awards,
        ),
    )


def run_model(key: str, path: Path, args: argparse.Namespace) -> None:
    eager_wanted = args.eager == "all" or key in args.eager.split(",")
    tasks = judge_tasks(args.questions, args.answers)
    sampling = Sampling(temperature=0.0, seed=0, max_tokens=args.max_tokens)
    jumps = {"off": False, "on": True}
    sides = [
        Side(JudgeSettings(sampling=sampling, template=name), jump=jumps[mode])
        for name in args.templates.split(",")
        for mode in args.jump_forward.split(",")
    ]
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
    try:
        warm = CompletionRequest(messages=[ChatMessage(role="user", content="Hello")], sampling=Sampling(max_tokens=4))
        engine.generate([warm, warm])  # not timed
        for round_ in range(args.rounds):
            for side in sides if round_ % 2 == 0 else sides[::-1]:  # interleaved: a neighbour slows both alike
                first = side.judge_round(backend, tasks)
                lengths = [max(1, r.completion_tokens or 0) for r in first.results]
                same = [
                    r.model_copy(
                        update={"json_schema": None, "sampling": r.sampling.model_copy(update={"max_tokens": n})}
                    )
                    for r, n in zip(first.requests, lengths, strict=True)
                ]
                before = engine.stats.copy()
                engine.generate(same)
                side.free.add(engine.stats.since(before))
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
                    side.eager.add(engine.stats.since(before))
    finally:
        backend.close()
    model = MODELS[key].description if key in MODELS else path.name
    print(
        f"{key}: {model}, {vocab:,}-token vocabulary; {len(tasks)} answers to {args.questions} questions, "
        f"{len(tasks)} slots, {args.threads} threads, {args.gpu_layers} GPU layers, {args.rounds} round(s)"
    )
    for side in sides:
        _print_side(side, len(tasks) * args.rounds, eager_wanted)
    if len(sides) > 1:
        _print_comparison(sides, len(tasks))


def _print_side(side: Side, n: int, eager_wanted: bool) -> None:
    judge, free, eager = side.judge, side.free, side.eager
    print(f" {side.label}: prompts {min(side.prompts):,}-{max(side.prompts):,} tokens")
    refused = judge.rejections / judge.tokens if judge.tokens else 0.0
    print(
        f"  verdict decode    {judge.tokens:6d} tokens {judge.seconds:7.2f} s {judge.rate:7.1f} tok/s"
        f"  (the grammar refused the first choice in {refused:.0%} of steps; "
        f"{judge.full_filters} of those {judge.rejections} filtered the whole vocabulary)"
    )
    print(
        f"  decode steps      {side.steps} in the first calls, {side.verdict_tokens / max(1, side.steps):.2f} verdict "
        f"tokens a step; {side.forced} of {side.verdict_tokens} tokens forced ({side.forced / max(1, side.verdict_tokens):.0%})"
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
        f"  verdicts          {n} in {side.wall:.1f} s = {60 * n / side.wall:.1f} per minute (prefill and re-asks "
        f"included), {side.verdict_tokens / side.replies:.0f} tokens per first reply, "
        f"{side.all_tokens / n:.0f} per verdict with re-asks"
    )
    print(
        f"  prompts           {side.prefilled:,} tokens prefilled, {side.reused:,} taken from the cache; first calls "
        f"{side.first_seconds:.1f} s: pure decode steps {judge.seconds:.1f} s, prefill and mixed steps "
        f"{side.first_seconds - judge.seconds:.1f} s"
    )
    print(
        f"  re-asks           {side.reasked} answers re-asked in {side.reask_calls} calls: {side.reask_tokens} tokens, "
        f"{side.reask_seconds:.1f} s ({side.reask_seconds / side.wall:.0%} of the wall time)"
    )
    for line in side.anatomy.lines():
        print(line)
    print(
        f"  valid verdicts    first replies {side.valid_first}/{side.replies} ({side.valid_first / side.replies:.0%}), "
        f"scored after re-asks {side.scored}/{n} ({side.scored / n:.0%})"
    )
    print(
        f"  agreement         fixtures reproduced {side.reproduced}/{n} ({side.reproduced / n:.0%}), "
        f"component awards as expected {side.awards_matched}/{side.awards} ({side.awards_matched / side.awards:.0%})"
    )
    expert = side.expert
    if expert is None:
        print("  judge gate        no scored verdict to compare")
        return
    verdict = "passes" if expert.passed else "fails"
    print(
        f"  judge gate        its expert test {verdict}, the fixtures' expected grades standing in for blind grades "
        f"(last round): {expert_text(expert)}"
    )
    for line in criteria_details(expert.criteria):
        print(f"    {line}")


def _print_comparison(sides: list[Side], answers: int) -> None:
    first, last = sides[0], sides[-1]
    tokens = (last.all_tokens / last.replies) / (first.all_tokens / first.replies)
    rate = (last.replies / last.wall) / (first.replies / first.wall)
    same = sum(a == b for a, b in zip(first.totals, last.totals, strict=True))
    steps = last.steps / first.steps if first.steps else 0.0
    print(
        f" {last.label} / {first.label}: verdict tokens {tokens:.2f}x, decode steps {steps:.2f}x, verdicts per "
        f"minute {rate:.2f}x, fixtures reproduced {last.reproduced} against {first.reproduced}, component awards "
        f"as expected {last.awards_matched} against {first.awards_matched}, same total on {same}/{answers} "
        f"answers (last round)"
    )
    before, after = first.expert, last.expert
    if before is not None and after is not None:
        print(
            f" judge gate, {last.label} against {first.label}: weighted kappa on totals {_num(after.kappa.kappa)} "
            f"against {_num(before.kappa.kappa)}, Krippendorff's alpha {_num(after.alpha.alpha)} against "
            f"{_num(before.alpha.alpha)}, gate sensitivity {_num(after.gate.sensitivity.rate)} against "
            f"{_num(before.gate.sensitivity.rate)}, specificity {_num(after.gate.specificity.rate)} against "
            f"{_num(before.gate.specificity.rate)} ({after.n_graded} and {before.n_graded} scored answers)"
        )


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _caps(schema: dict[str, Any]) -> dict[str, int]:
    """Each string part's length cap in ``schema``, named as ``Anatomy`` names them."""
    props = schema["properties"]
    objects = [o for c in props["components"]["properties"].values() for o in c.get("anyOf", [c])]
    reasons = [o["properties"]["reason"]["maxLength"] for o in objects]
    return {
        "gate reason": props["gate_reason"]["maxLength"],
        "reason, full or zero": max(reasons),
        "reason, partial": max(reasons),
        "adjudication note": props["adjudication_note"]["maxLength"],
        "accepted variant": props["accepted_variant_used"]["maxLength"],
        "unscored point": props["demonstrated_but_unscored"]["items"]["maxLength"],
    }


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
        "--templates",
        default=POINTWISE,
        help="judge templates to compare, interleaved (e.g. judge_pointwise_v2,judge_pointwise_v3: before, after)",
    )
    parser.add_argument(
        "--jump-forward",
        default="on",
        choices=["on", "off", "off,on", "on,off"],
        help="feed the text the grammar forces in one step: on (the engine's default), off, or both side by side",
    )
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
