"""Running a benchmark pass: generate, clean, retry, judge, compare; store as it goes.

Work is done in batches and each batch is committed to the project as soon as it
completes, keyed by content (see plan.py). Killing the process loses at most the
batch in flight; running the same pass again does only what is missing, and a
finished pass opens no model at all.
"""

from __future__ import annotations

import inspect
import json
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel
from sqlalchemy import Engine

from gtreview.core.errors import Cancelled
from gtreview.core.grading import record_to_contract
from gtreview.core.jsonmodel import canonical_hash
from gtreview.core.rubric import Question, VariantRule
from gtreview.inference.backend import CompletionBackend, CompletionRequest, CompletionResult
from gtreview.inference.cleaning import GenerationOutcome, classify, clean_output
from gtreview.judging.calibration import DriftMonitor, standardisation_fixtures
from gtreview.judging.pairwise import PairTask, compare_answers
from gtreview.judging.pointwise import JudgeSettings, JudgeTask, judge_answers
from gtreview.judging.prompts import PAIRWISE, POINTWISE, load_template
from gtreview.runs.identity import spec_identity
from gtreview.runs.plan import GenerationTask, PassConfig, PassPlan, plan_pass
from gtreview.runs.record import (
    RecordKind,
    RunStatus,
    Templates,
    new_pass_config,
    record_backend,
    update_run_config,
)
from gtreview.store import runs_repo, tables

BackendFactory = Callable[[str], CompletionBackend]
QUESTIONS_PER_BATCH = 4
JUDGE_BATCH = 16  # judgements committed together; also how often cancel is looked at


class PassCancelled(Cancelled, RuntimeError):
    """The pass was cancelled; everything finished so far is stored."""


class PassEvent(BaseModel):
    phase: str
    done: int
    total: int
    tokens: int = 0
    elapsed: float = 0.0
    message: str = ""

    @property
    def tokens_per_second(self) -> float:
        return self.tokens / self.elapsed if self.elapsed > 0 else 0.0

    @property
    def eta_seconds(self) -> float | None:
        if self.done <= 0 or self.done >= self.total:
            return None
        return self.elapsed / self.done * (self.total - self.done)


class PassResult(BaseModel):
    run_id: int
    generated: int = 0
    reused: int = 0
    generation_errors: int = 0
    retries: int = 0
    judged: int = 0
    unscored: int = 0
    pairs: int = 0
    model_calls: int = 0


Progress = Callable[[PassEvent], None]


class _Context:
    def __init__(
        self,
        engine: Engine,
        config: PassConfig,
        run_id: int,
        open_backend: BackendFactory,
        progress: Progress | None,
        cancel: threading.Event | None,
    ) -> None:
        self.engine, self.config, self.run_id = engine, config, run_id
        self.open_backend, self.progress, self.cancel = open_backend, progress, cancel
        self.result = PassResult(run_id=run_id)

    def check_cancel(self) -> None:
        if self.cancel is not None and self.cancel.is_set():
            raise PassCancelled("the pass was cancelled; run it again to resume")

    def emit(self, phase: str, done: int, total: int, started: float, tokens: int = 0, message: str = "") -> None:
        if self.progress is not None:
            self.progress(
                PassEvent(
                    phase=phase,
                    done=done,
                    total=total,
                    tokens=tokens,
                    elapsed=time.monotonic() - started,
                    message=message,
                )
            )

    def complete(self, backend: CompletionBackend, requests: list[CompletionRequest]) -> list[CompletionResult]:
        self.check_cancel()
        self.result.model_calls += len(requests)
        try:
            if _takes_cancel(backend):  # the worker-process backend can abandon a batch mid-way
                return backend.complete_batch(requests, cancel=self.cancel)  # type: ignore[call-arg]
            return backend.complete_batch(requests)
        except Exception as exc:  # a worker's GenerationCancelled, or anything the backend raises
            if self.cancel is not None and self.cancel.is_set():
                raise PassCancelled("the pass was cancelled; run it again to resume") from exc
            raise


def _takes_cancel(backend: CompletionBackend) -> bool:
    try:
        return "cancel" in inspect.signature(backend.complete_batch).parameters
    except (TypeError, ValueError):
        return False


def run_pass(
    engine: Engine,
    config: PassConfig,
    questions: Sequence[Question],
    *,
    rubric_hash: str,
    open_backend: BackendFactory,
    set_id: int | None = None,
    global_variants: list[VariantRule] | None = None,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
) -> PassResult:
    questions = list(questions)
    config_hash = canonical_hash({"config": config.model_dump(mode="json"), "rubric": rubric_hash})
    run_id = runs_repo.find_or_create_run(
        engine,
        name=config.name,
        rubric_hash=rubric_hash,
        set_id=set_id,
        config_hash=config_hash,
        config=new_pass_config(config_hash, config),
    )
    identities = {m.label: spec_identity(m.spec) for m in config.models}
    judge_identity = spec_identity(config.judge)
    templates = Templates(pointwise=load_template(POINTWISE).sha256, pairwise=load_template(PAIRWISE).sha256)
    plan = plan_pass(
        config,
        questions,
        identities,
        judge_identity,
        pointwise_template=templates.pointwise,
        pairwise_template=templates.pairwise,
    )
    # What the results need to find this pass's records again, even after the set is edited.
    update_run_config(
        engine,
        run_id,
        questions=[q.to_json_dict() for q in questions],
        global_variants=[v.to_json_dict() for v in global_variants or []],
        identities=identities,
        judge_identity=judge_identity,
        templates=templates,
    )
    link_planned_records(engine, run_id, plan)  # answers reused from earlier passes count from the start
    ctx = _Context(engine, config, run_id, open_backend, progress, cancel)
    try:
        for model in config.models:
            _generate(ctx, model.spec, plan.generations[model.label])
        _judge(ctx, plan, global_variants, questions)
        if plan.pairs:
            _compare(ctx, plan, global_variants)
    except BaseException:
        runs_repo.set_run_status(engine, run_id, RunStatus.STOPPED)
        raise
    finally:
        link_planned_records(engine, run_id, plan)
    runs_repo.set_run_status(engine, run_id, RunStatus.FINISHED)
    return ctx.result


def link_planned_records(engine: Engine, run_id: int, plan: PassPlan) -> None:
    """Link the run to every stored record its plan names, reused ones included."""
    runs_repo.link_records(engine, run_id, RecordKind.GENERATION, [t.key for t in plan.all_generations()])
    runs_repo.link_records(engine, run_id, RecordKind.JUDGEMENT, plan.judgement_keys.values())
    runs_repo.link_records(engine, run_id, RecordKind.PAIR, [p.key for p in plan.pairs])


def _generate(ctx: _Context, spec: str, tasks: list[GenerationTask]) -> None:
    done_keys = runs_repo.existing_keys(ctx.engine, tables.Generation, [t.key for t in tasks])
    todo = [t for t in tasks if t.key not in done_keys]
    ctx.result.reused += len(tasks) - len(todo)
    if not todo:
        return
    backend = ctx.open_backend(spec)
    record_backend(ctx.engine, ctx.run_id, spec, backend.describe())
    started, tokens = time.monotonic(), 0
    try:
        by_question: dict[str, list[GenerationTask]] = {}
        for task in todo:
            by_question.setdefault(task.question.id, []).append(task)
        groups = list(by_question.values())
        finished = 0
        for start in range(0, len(groups), QUESTIONS_PER_BATCH):
            batch = [t for group in groups[start : start + QUESTIONS_PER_BATCH] for t in group]
            records, batch_tokens = _generate_batch(ctx, backend, batch)
            runs_repo.add_records(ctx.engine, records)
            finished += len(batch)
            tokens += batch_tokens
            ctx.emit("generate", finished, len(todo), started, tokens, f"{spec}: {finished} of {len(todo)} answers")
    finally:
        backend.close()


def _generate_batch(ctx: _Context, backend: CompletionBackend, batch: list[GenerationTask]) -> tuple[list[Any], int]:
    """Generate, clean and classify; retry failures in a fresh worker, at most N times."""
    pending = list(batch)
    attempts: dict[str, int] = {}
    final: dict[str, tuple[CompletionResult, GenerationOutcome, float]] = {}
    tokens = 0
    for attempt in range(ctx.config.generation_retries + 1):
        if not pending:
            break
        if attempt > 0:
            ctx.result.retries += len(pending)
            restart = getattr(backend, "restart", None)
            if callable(restart):
                restart()  # a fresh worker process, as the method requires
        requests = [
            CompletionRequest(
                messages=t.messages, sampling=t.sampling.model_copy(update={"seed": t.sampling.seed + 1000 * attempt})
            )
            for t in pending
        ]
        began = time.monotonic()
        results = ctx.complete(backend, requests)
        seconds = (time.monotonic() - began) / max(1, len(requests))
        still = []
        for task, result in zip(pending, results, strict=True):
            attempts[task.key] = attempt + 1
            tokens += result.completion_tokens or 0
            outcome = classify(result.text, result.finish_reason) if result.ok else GenerationOutcome.EMPTY
            final[task.key] = (result, outcome, seconds)
            if not result.ok or outcome is not GenerationOutcome.OK:
                still.append(task)
        pending = still
    records = []
    for task in batch:
        result, outcome, seconds = final[task.key]
        ok = result.ok and outcome is GenerationOutcome.OK
        if ok:
            ctx.result.generated += 1
        else:
            ctx.result.generation_errors += 1
        error = "" if ok else (result.error or f"{outcome.value} output after {attempts[task.key]} attempts")
        records.append(
            tables.Generation(
                run_id=ctx.run_id,
                key=task.key,
                model_label=task.model_label,
                qid=task.question.id,
                sample_index=task.sample_index,
                raw_text=result.text,
                clean_text=clean_output(result.text).clean if ok else "",
                status="ok" if ok else "error",
                error=error,
                finish_reason=result.finish_reason,
                attempts=attempts[task.key],
                prompt_tokens=result.prompt_tokens,
                completion_tokens=result.completion_tokens,
                seconds=seconds,
            )
        )
    return records, tokens


def _judge(ctx: _Context, plan: PassPlan, global_variants: list[VariantRule] | None, questions: list[Question]) -> None:
    settings = JudgeSettings(sampling=ctx.config.judge_sampling)
    tasks = plan.all_generations()
    stored = {g.key: g for g in runs_repo.generations_by_keys(ctx.engine, [t.key for t in tasks])}
    wanted = {plan.judgement_keys[t.key]: t for t in tasks if t.key in stored and stored[t.key].status == "ok"}
    done_keys = runs_repo.existing_keys(ctx.engine, tables.Judgement, list(wanted))
    todo = [(key, task) for key, task in wanted.items() if key not in done_keys]
    if not todo:
        return
    backend = ctx.open_backend(ctx.config.judge)
    record_backend(ctx.engine, ctx.run_id, ctx.config.judge, backend.describe())
    started = time.monotonic()
    try:
        monitor = None
        if ctx.config.drift_every > 0:
            monitor = DriftMonitor(
                backend,
                standardisation_fixtures(questions),
                every=ctx.config.drift_every,
                settings=settings,
                global_variants=global_variants,
            )
            monitor.start()
        finished = 0
        for start in range(0, len(todo), JUDGE_BATCH):
            ctx.check_cancel()
            chunk = todo[start : start + JUDGE_BATCH]
            judge_tasks = [
                JudgeTask(key=key, question=task.question, answer=stored[task.key].clean_text) for key, task in chunk
            ]
            ctx.result.model_calls += sum(1 for t in judge_tasks if t.answer.strip())
            judgements = judge_answers(backend, judge_tasks, settings=settings, global_variants=global_variants)
            records = []
            for (key, task), judgement in zip(chunk, judgements, strict=True):
                scored = judgement.record is not None
                ctx.result.judged += int(scored)
                ctx.result.unscored += int(not scored)
                payload = {
                    "contract": record_to_contract(judgement.record) if judgement.record else None,
                    "adjustments": judgement.record.adjustments if judgement.record else [],
                    "unscored_reason": judgement.unscored_reason,
                    "replies": judgement.replies,
                    "attempts": judgement.attempts,
                    "sampling": judgement.sampling.model_dump(),
                }
                records.append(
                    tables.Judgement(
                        run_id=ctx.run_id,
                        key=key,
                        generation_key=task.key,
                        model_label=task.model_label,
                        qid=task.question.id,
                        sample_index=task.sample_index,
                        judge=judgement.judge,
                        status=judgement.status.value,
                        total=judgement.total,
                        gate_passed=judgement.record.gate_passed if judgement.record else None,
                        record_json=_json(payload),
                        prompt_sha256=judgement.prompt_sha256,
                    )
                )
            runs_repo.add_records(ctx.engine, records)
            finished += len(chunk)
            ctx.emit("judge", finished, len(todo), started, message=f"judged {finished} of {len(todo)}")
            if monitor is not None:
                monitor.after(finished)
    finally:
        backend.close()


def _compare(ctx: _Context, plan: PassPlan, global_variants: list[VariantRule] | None) -> None:
    """Each fine-tune (A) against the base (B), sample by sample: positive means the fine-tune is better."""
    settings = JudgeSettings(sampling=ctx.config.judge_sampling)
    keys = [p.finetune.key for p in plan.pairs] + [p.base.key for p in plan.pairs]
    stored = {g.key: g for g in runs_repo.generations_by_keys(ctx.engine, keys)}
    wanted = {p.key: (p.finetune, p.base) for p in plan.pairs if p.finetune.key in stored and p.base.key in stored}
    done_keys = runs_repo.existing_keys(ctx.engine, tables.PairJudgement, list(wanted))
    todo = [(key, pair) for key, pair in wanted.items() if key not in done_keys]
    if not todo:
        return
    backend = ctx.open_backend(ctx.config.judge)
    started = time.monotonic()
    try:
        for start in range(0, len(todo), JUDGE_BATCH):
            ctx.check_cancel()
            chunk = todo[start : start + JUDGE_BATCH]
            pair_tasks = [
                PairTask(
                    key=key, question=a.question, answer_a=stored[a.key].clean_text, answer_b=stored[b.key].clean_text
                )
                for key, (a, b) in chunk
            ]
            ctx.result.model_calls += 2 * sum(1 for p in pair_tasks if p.answer_a.strip() and p.answer_b.strip())
            judged = compare_answers(backend, pair_tasks, settings=settings, global_variants=global_variants)
            records = [
                tables.PairJudgement(
                    run_id=ctx.run_id,
                    key=key,
                    qid=a.question.id,
                    sample_index=a.sample_index,
                    model_a=a.model_label,
                    model_b=b.model_label,
                    label=p.outcome.label.value,
                    average=p.outcome.average,
                    inconsistent=p.outcome.inconsistent,
                    outcome_json=p.model_dump_json(),
                    judge=p.judge,
                    prompt_sha256=p.prompt_sha256,
                )
                for (key, (a, b)), p in zip(chunk, judged, strict=True)
            ]
            runs_repo.add_records(ctx.engine, records)
            ctx.result.pairs += len(records)
            ctx.emit("pairwise", start + len(chunk), len(todo), started)
    finally:
        backend.close()


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)
