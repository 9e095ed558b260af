"""Running a benchmark pass: generate, clean, retry, judge, compare; store as it goes.

The judge is checked against its standardisation fixtures first, before any answer is
generated (``judge_phases.py``). Answers, judgements and pairs are stored as each is
final, all keyed by content (see plan.py).
Killing the process loses at most the work in flight; running the same pass again does
only what is missing, and a finished pass opens no model at all.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence

from sqlalchemy import Engine
from sqlmodel import Session

from gtreview.core.jsonmodel import canonical_hash
from gtreview.core.redaction import redact_json
from gtreview.core.rubric import Question, VariantRule
from gtreview.inference.backend import (
    CompletionBackend,
    CompletionRequest,
    CompletionResult,
    looks_unreachable,
    unreachable,
)
from gtreview.inference.cleaning import GenerationOutcome, classify, clean_output
from gtreview.judging.calibration import DriftError
from gtreview.judging.prompts import PAIRWISE, POINTWISE, load_template
from gtreview.runs.fit import check_pass_fits
from gtreview.runs.identity import refuse_same_models, spec_identity
from gtreview.runs.judge_phases import check_judge, compare_phase, judge_phase
from gtreview.runs.pass_context import (
    BackendFactory,
    ModelUnreachable,
    PassCancelled,
    PassContext,
    PassEvent,
    PassResult,
    Progress,
    Tally,
)
from gtreview.runs.plan import GenerationTask, PassConfig, PassPlan, plan_pass
from gtreview.runs.record import (
    RecordKind,
    RunStatus,
    Templates,
    new_pass_config,
    record_backend,
    update_run_config,
)
from gtreview.runs.statuses import GenerationStatus
from gtreview.store import db, runs_repo, tables

__all__ = [
    "BackendFactory",
    "ModelUnreachable",
    "PassCancelled",
    "PassEvent",
    "PassResult",
    "Progress",
    "link_planned_records",
    "run_pass",
]

log = logging.getLogger(__name__)


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
    # Stored and hashed without credentials: a hash of a password is a way to guess it,
    # and the same pass with a changed password is still the same pass.
    stored = config.without_credentials()
    config_hash = canonical_hash({"config": stored.identity_dump(), "rubric": rubric_hash})
    # Everything that can refuse the pass (a bad spec, a missing or unreadable model
    # file) is done before the run exists, so a pass that cannot start leaves no run.
    # Planned from the identities exactly as they are stored (redacted), so that the
    # results loader, which plans from the stored ones, finds the same content keys.
    identities = redact_json({m.label: spec_identity(m.spec) for m in config.models})
    refuse_same_models(identities)  # a copy of the base would only be handed the base's answers
    judge_identity = redact_json(spec_identity(config.judge))
    templates = Templates(pointwise=load_template(POINTWISE).sha256, pairwise=load_template(PAIRWISE).sha256)
    plan = plan_pass(
        config,
        questions,
        identities,
        judge_identity,
        pointwise_template=templates.pointwise,
        pairwise_template=templates.pairwise,
    )
    run_id: int | None = None
    try:
        # The run, what its results need to find its records again (even after the set is
        # edited) and its plan's links: one transaction, so a start that fails leaves no
        # run, or the resumed one as it was.
        with db.unit_of_work(engine) as tx:
            run_id = runs_repo.find_or_create_run(
                tx,
                name=config.name,
                rubric_hash=rubric_hash,
                set_id=set_id,
                config_hash=config_hash,
                config=new_pass_config(config_hash, stored),
            )
            update_run_config(
                tx,
                run_id,
                questions=[q.to_json_dict() for q in questions],
                global_variants=[v.to_json_dict() for v in global_variants or []],
                identities=identities,
                judge_identity=judge_identity,
                templates=templates,
            )
            forget_unreachable(tx, plan)  # what an outage left as errors is asked for again
            link_planned_records(tx, run_id, plan)  # answers reused from earlier passes count from the start
    except BaseException:
        if run_id is not None:  # rolled back: no pass holds it
            runs_repo.release_run(engine, run_id)
        raise
    try:
        ctx = PassContext(engine, config, run_id, open_backend, progress, cancel)
        # Fail fast: a prompt that cannot fit its model, or a judge that does not reproduce
        # the fixtures, stops the pass before any answer is generated, not after hours.
        ctx.steps = pass_steps(config, plan)
        ctx.enter("fit check")
        check_pass_fits(ctx, plan, global_variants, questions)
        ctx.enter("judge check")
        monitor = check_judge(ctx, plan, global_variants, questions)
        for model in config.models:
            ctx.enter(f"generate {model.label}")
            _generate(ctx, model.spec, plan.generations[model.label])
        ctx.enter("judge")
        judge_phase(ctx, plan, global_variants, monitor)
        if plan.pairs:
            ctx.enter("pairwise")
            compare_phase(ctx, plan, global_variants)
    except BaseException as stopped:  # whatever stopped it, the run is never left "running"
        _end(engine, run_id, plan, RunStatus.STOPPED, stop_reason(stopped))
        raise
    _end(engine, run_id, plan, RunStatus.FINISHED)
    return ctx.result


def _end(engine: Engine, run_id: int, plan: PassPlan, status: RunStatus, reason: str = "") -> None:
    """The plan's links again and the run's last status (and why it stopped), in one transaction."""
    with db.unit_of_work(engine) as tx:
        link_planned_records(tx, run_id, plan)
        runs_repo.set_run_status(tx, run_id, status, reason)


def stop_reason(stopped: BaseException) -> str:
    """Why a pass stopped short, as the results view says it."""
    if isinstance(stopped, PassCancelled):
        return "cancelled"
    if isinstance(stopped, DriftError):
        return "stopped by the judge's drift check"
    if isinstance(stopped, KeyboardInterrupt):
        return "interrupted"
    first = (str(stopped).splitlines() or [type(stopped).__name__])[0]
    return f"failed: {first[:200]}"


def pass_steps(config: PassConfig, plan: PassPlan) -> list[str]:
    """The phases of a pass in the order it runs them, as its progress names them."""
    generate = [f"generate {m.label}" for m in config.models]
    return ["fit check", "judge check", *generate, "judge", *(["pairwise"] if plan.pairs else [])]


def forget_unreachable(session: Session, plan: PassPlan) -> int:
    """Delete the stored "answers" of this plan that were outages, not the model's answers:
    errors an earlier version stored when it could not reach the model (now such an answer
    is never stored), with the verdicts and pairs decided on them, so this pass asks again
    instead of reusing them as final errors. How many records went."""
    errors = runs_repo.generation_errors(session, [task.key for task in plan.all_generations()])
    lost = {key for key, error in errors.items() if looks_unreachable(error)}
    if not lost:
        return 0
    forgotten = runs_repo.forget_records(
        session,
        {
            RecordKind.GENERATION: lost,
            RecordKind.JUDGEMENT: {plan.judgement_keys[k] for k in lost if k in plan.judgement_keys}
            | {r.key for k in lost for r in plan.judge_repeats.get(k, [])},
            RecordKind.PAIR: {p.key for p in plan.pairs if p.finetune.key in lost or p.base.key in lost},
        },
    )
    log.warning("%d stored answers were outages, not the model's answers: they are asked for again", len(lost))
    return forgotten


def link_planned_records(session: Session, run_id: int, plan: PassPlan) -> None:
    """Link the run to every record its plan names, reused ones and ones not stored yet
    included, each with its place in the plan, so the results are read without re-planning."""
    runs_repo.link_plan(session, run_id, plan.planned_records())


def _generate(ctx: PassContext, spec: str, tasks: list[GenerationTask]) -> None:
    """Every answer still missing, in one call per attempt, so the engine keeps all its
    sequences busy (continuous batching) and a shared prompt prefix stays cached; each
    answer is stored as soon as it is final. A failed one (empty, reasoning-only,
    truncated, an error) is tried again in a fresh worker, at most N times, and only
    then stored as an error. An answer the model could not be asked for (its server
    down) is tried as often but never stored: the pass stops with ModelUnreachable."""
    with db.reading(ctx.engine) as session:
        done_keys = runs_repo.existing_keys(session, tables.Generation, [t.key for t in tasks])
    todo = [t for t in tasks if t.key not in done_keys]
    ctx.result.reused += len(tasks) - len(todo)
    if not todo:
        return
    label = tasks[0].model_label  # as the analyst named it, never the file
    tally = Tally(ctx, "generate", len(todo), f"{label}: {{done}} of {{total}} answers", f"{label} answers").start()
    backend = ctx.open(spec)
    described = backend.describe()  # asks the worker: outside the write transaction
    with db.unit_of_work(ctx.engine) as tx:
        record_backend(tx, ctx.run_id, spec, described)
    writer = _AnswerWriter(ctx, tally)
    try:
        pending = todo
        for attempt in range(ctx.config.generation_retries + 1):
            if not pending:
                break
            if attempt > 0:
                ctx.result.retries += len(pending)
                restart = getattr(backend, "restart", None)
                if callable(restart):
                    restart()  # a fresh worker process, as the method requires
            pending = _attempt(ctx, backend, pending, attempt, writer)
    finally:
        writer.flush()
        backend.close()
    if pending:  # only unreachable ones are left: the model's own failures were stored
        raise unreachable(spec, len(pending), len(tasks), "answers", writer.unreachable[pending[0].key])


def _attempt(
    ctx: PassContext, backend: CompletionBackend, pending: list[GenerationTask], attempt: int, writer: _AnswerWriter
) -> list[GenerationTask]:
    """One try at every pending answer; returns the ones to try again."""
    last = attempt == ctx.config.generation_retries
    requests = [
        CompletionRequest(
            messages=t.messages, sampling=t.sampling.model_copy(update={"seed": t.sampling.seed + 1000 * attempt})
        )
        for t in pending
    ]
    again: list[GenerationTask] = []
    began = time.monotonic()

    def arrived(index: int, result: CompletionResult) -> None:
        task = pending[index]
        if not result.ok and result.unreachable:  # not the model's answer: ask again, never store
            writer.unreachable[task.key] = result.error or "no detail"
            again.append(task)
            return
        outcome = classify(result.text, result.finish_reason) if result.ok else GenerationOutcome.EMPTY
        writer.tokens(result.completion_tokens or 0)
        if (result.ok and outcome is GenerationOutcome.OK) or last:
            writer.add(task, result, outcome, attempt + 1, time.monotonic() - began)
        else:
            again.append(task)

    ctx.complete(backend, requests, on_result=arrived)
    writer.flush()
    writer.tally.next_call()
    return sorted(again, key=pending.index)


class _AnswerWriter:
    """Stores each final answer as it arrives (a kill loses only the answers in flight,
    and a model stuck on one answer keeps none of the others unsaved), and reports each
    one to the phase's progress."""

    def __init__(self, ctx: PassContext, tally: Tally) -> None:
        self.ctx, self.tally = ctx, tally
        self.buffer: list[tables.Generation] = []
        self.unreachable: dict[str, str] = {}  # task key -> why its model could not be asked
        self.final = self.generated_tokens = 0

    def tokens(self, count: int) -> None:
        self.generated_tokens += count

    def add(
        self, task: GenerationTask, result: CompletionResult, outcome: GenerationOutcome, attempts: int, seconds: float
    ) -> None:
        ctx = self.ctx
        ok = result.ok and outcome is GenerationOutcome.OK
        if ok:
            ctx.result.generated += 1
        else:
            ctx.result.generation_errors += 1
        self.buffer.append(
            tables.Generation(
                run_id=ctx.run_id,
                key=task.key,
                model_label=task.model_label,
                qid=task.question.id,
                sample_index=task.sample_index,
                raw_text=result.text,
                clean_text=clean_output(result.text).clean if ok else "",
                status=(GenerationStatus.OK if ok else GenerationStatus.ERROR).value,
                error="" if ok else (result.error or f"{outcome.value} output after {attempts} attempts"),
                finish_reason=result.finish_reason,
                attempts=attempts,
                prompt_tokens=result.prompt_tokens,
                completion_tokens=result.completion_tokens,
                seconds=seconds,  # from the start of its call to its end (queueing included)
            )
        )
        self.final += 1
        self.flush()
        self.tally(self.final - self.tally.done, self.tally.total, self.generated_tokens - self.tally.tokens)

    def flush(self) -> None:
        if self.buffer:
            with db.unit_of_work(self.ctx.engine) as tx:  # each batch stored as it is final
                runs_repo.add_records(tx, self.buffer)
            self.buffer = []
