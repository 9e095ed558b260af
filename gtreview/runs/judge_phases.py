"""The judge's phases of a pass: the check before generation, judging, comparing.

The standardisation fixtures are scored before any answer is generated, so a judge that
does not reproduce them stops the pass in minutes, not after the generation. Judging and
pairwise then send everything between two drift checks to the judge at once (its
sequences stay busy), store each judgement or pair as soon as it is final, and emit one
PassEvent as each phase begins (0 of N) and one per verdict (done/total, tokens, so
tokens/s and an ETA).
"""

from __future__ import annotations

import json
from typing import Any

from gtreview.core.errors import Cancelled
from gtreview.core.grading import record_to_contract
from gtreview.core.rubric import Question, VariantRule
from gtreview.inference.backend import unreachable
from gtreview.judging.calibration import DriftMonitor, standardisation_fixtures
from gtreview.judging.pairwise import PairJudgement, PairTask, compare_answers
from gtreview.judging.pointwise import Judgement, JudgeSettings, JudgeTask, judge_answers
from gtreview.runs.pass_context import CANCELLED, PassCancelled, PassContext, Tally
from gtreview.runs.plan import GenerationTask, JudgeRepeat, PassPlan
from gtreview.runs.record import record_backend
from gtreview.runs.statuses import GenerationStatus
from gtreview.store import db, runs_repo, tables


def check_judge(
    ctx: PassContext, plan: PassPlan, global_variants: list[VariantRule] | None, questions: list[Question]
) -> DriftMonitor | None:
    """Score the standardisation fixtures before anything else, when there is judging
    left to do; the judge is closed again while the models answer (one model in memory
    at a time). Returns the monitor that re-checks during judging."""
    fixtures = standardisation_fixtures(questions)
    if ctx.config.drift_every <= 0 or not fixtures:
        return None
    if not judging_left(ctx, plan):
        return None
    tally = Tally(
        ctx, "calibrate", len(fixtures), "judge check before generation: {done} of {total} fixtures", "fixtures"
    ).start()  # shown while the judge loads and reads the fixtures
    backend = ctx.open(ctx.config.judge)
    described = backend.describe()  # asks the worker: outside the write transaction
    with db.unit_of_work(ctx.engine) as tx:
        record_backend(tx, ctx.run_id, ctx.config.judge, described)
    monitor = DriftMonitor(
        backend,
        fixtures,
        every=ctx.config.drift_every,
        settings=JudgeSettings(sampling=ctx.config.judge_sampling),
        global_variants=global_variants,
        progress=tally,
    )
    try:
        ctx.check_cancel()
        monitor.start()
    finally:
        backend.close()
    return monitor


def judging_left(ctx: PassContext, plan: PassPlan) -> bool:
    """Whether some answer (stored or still to generate) has no stored judgement; an
    answer stored as a generation error is never judged."""
    tasks = plan.all_generations()
    with db.reading(ctx.engine) as session:
        stored = {g.key: g.status for g in runs_repo.generations_by_keys(session, [t.key for t in tasks])}
        wanted = [
            key
            for t in tasks
            if stored.get(t.key, GenerationStatus.OK) == GenerationStatus.OK
            for key in _verdict_keys(plan, t)
        ]
        return len(runs_repo.existing_keys(session, tables.Judgement, wanted)) < len(set(wanted))


def _verdict_keys(plan: PassPlan, task: GenerationTask) -> list[str]:
    return [plan.judgement_keys[task.key], *(r.key for r in plan.judge_repeats.get(task.key, []))]


def _wanted_verdicts(
    plan: PassPlan, tasks: list[GenerationTask]
) -> dict[str, tuple[GenerationTask, JudgeRepeat | None]]:
    """Every verdict on these answers by key: verdict 0 (no repeat), then its J - 1 repeats."""
    wanted: dict[str, tuple[GenerationTask, JudgeRepeat | None]] = {}
    for task in tasks:
        wanted[plan.judgement_keys[task.key]] = (task, None)
        wanted.update({r.key: (task, r) for r in plan.judge_repeats.get(task.key, [])})
    return wanted


def judge_phase(
    ctx: PassContext, plan: PassPlan, global_variants: list[VariantRule] | None, monitor: DriftMonitor | None
) -> None:
    settings = JudgeSettings(sampling=ctx.config.judge_sampling)
    tasks = plan.all_generations()
    with db.reading(ctx.engine) as session:
        stored = {g.key: g for g in runs_repo.generations_by_keys(session, [t.key for t in tasks])}
        wanted = _wanted_verdicts(
            plan, [t for t in tasks if t.key in stored and stored[t.key].status == GenerationStatus.OK]
        )
        done_keys = runs_repo.existing_keys(session, tables.Judgement, list(wanted))
    todo = [(key, item) for key, item in wanted.items() if key not in done_keys]
    if not todo:
        return
    # Counted from 0 as the phase begins: the judge loads and reads every answer before
    # its first verdict is final, minutes on a local model, and the last phase's 100%
    # ("6 of 6 answers") must not stand meanwhile.
    tally = Tally(ctx, "judge", len(todo), "pointwise verdicts {done} of {total}", "verdicts").start()
    backend = ctx.open(ctx.config.judge)
    described = backend.describe()  # asks the worker: outside the write transaction
    with db.unit_of_work(ctx.engine) as tx:
        record_backend(tx, ctx.run_id, ctx.config.judge, described)

    missed: list[Judgement] = []

    def store(judgement: Judgement) -> None:  # each judgement is committed as it is final
        if judgement.unreachable:  # no verdict of the judge's: never stored, asked again next time
            missed.append(judgement)
            return
        task, repeat = wanted[judgement.key]
        ctx.result.judged += int(judgement.record is not None)
        ctx.result.unscored += int(judgement.record is None)
        with db.unit_of_work(ctx.engine) as tx:
            runs_repo.add_records(tx, [_judgement_record(ctx.run_id, task, judgement, repeat)])

    try:
        drift = None
        if monitor is not None:
            monitor.backend = backend
            monitor.progress = drift = Tally(
                ctx, "drift", len(monitor.fixtures), "judge drift check: {done} of {total} fixtures", "fixtures"
            )
        # Between drift checks the judge sees every answer at once, so its sequences stay busy.
        step = monitor.every if monitor is not None else len(todo)
        for start in range(0, len(todo), step):
            ctx.check_cancel()
            chunk = todo[start : start + step]
            judge_tasks = [
                JudgeTask(
                    key=key,
                    question=task.question,
                    answer=stored[task.key].clean_text,
                    component_order=repeat.component_order if repeat else None,
                    seed_offset=repeat.seed_offset if repeat else 0,
                )
                for key, (task, repeat) in chunk
            ]
            ctx.result.model_calls += sum(1 for t in judge_tasks if t.answer.strip())
            try:
                judge_answers(
                    backend,
                    judge_tasks,
                    settings=settings,
                    global_variants=global_variants,
                    progress=tally,
                    cancel=ctx.cancel,
                    on_judgement=store,
                )
            except Cancelled as exc:
                raise PassCancelled(CANCELLED) from exc
            if missed:
                raise unreachable(ctx.config.judge, len(missed), len(todo), "verdicts", missed[0].unscored_reason)
            tally.next_call()
            if monitor is not None and drift is not None:
                drift.restart()
                monitor.after(tally.done)
    finally:
        backend.close()


def _judgement_record(
    run_id: int, task: GenerationTask, judgement: Judgement, repeat: JudgeRepeat | None = None
) -> tables.Judgement:
    record = judgement.record
    payload: dict[str, Any] = {}
    if repeat is not None:  # verdict 0 is stored exactly as before repeats existed
        payload.update(judge_repeat=repeat.repeat, component_order=repeat.component_order)
    payload |= {
        "contract": record_to_contract(record) if record else None,
        "adjustments": record.adjustments if record else [],
        "unscored_reason": judgement.unscored_reason,
        "replies": judgement.replies,
        "attempts": judgement.attempts,
        "sampling": judgement.sampling.model_dump(),
    }
    return tables.Judgement(
        run_id=run_id,
        key=judgement.key,
        generation_key=task.key,
        model_label=task.model_label,
        qid=task.question.id,
        sample_index=task.sample_index,
        judge=judgement.judge,
        status=judgement.status.value,
        total=judgement.total,
        gate_passed=record.gate_passed if record else None,
        record_json=_json(payload),
        prompt_sha256=judgement.prompt_sha256,
    )


def compare_phase(ctx: PassContext, plan: PassPlan, global_variants: list[VariantRule] | None) -> None:
    """Each fine-tune (A) against the base (B), sample by sample: positive means the fine-tune is better."""
    settings = JudgeSettings(sampling=ctx.config.judge_sampling)
    keys = [p.finetune.key for p in plan.pairs] + [p.base.key for p in plan.pairs]
    with db.reading(ctx.engine) as session:
        stored = {g.key: g for g in runs_repo.generations_by_keys(session, keys)}
        wanted = {p.key: (p.finetune, p.base) for p in plan.pairs if p.finetune.key in stored and p.base.key in stored}
        done_keys = runs_repo.existing_keys(session, tables.PairJudgement, list(wanted))
    todo = [(key, pair) for key, pair in wanted.items() if key not in done_keys]
    if not todo:
        return
    tally = Tally(
        ctx, "pairwise", len(todo), "pairwise verdicts {done} of {total} pairs (each in both orders)", "pairs"
    ).start()
    backend = ctx.open(ctx.config.judge)

    missed: list[PairJudgement] = []

    def store(p: PairJudgement) -> None:  # each pair is committed as soon as both orders are in
        if p.unreachable:  # no verdict of the judge's: never stored, asked again next time
            missed.append(p)
            return
        a, b = wanted[p.key]
        record = tables.PairJudgement(
            run_id=ctx.run_id,
            key=p.key,
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
        with db.unit_of_work(ctx.engine) as tx:
            runs_repo.add_records(tx, [record])
        ctx.result.pairs += 1

    try:
        ctx.check_cancel()
        pair_tasks = [
            PairTask(key=key, question=a.question, answer_a=stored[a.key].clean_text, answer_b=stored[b.key].clean_text)
            for key, (a, b) in todo
        ]
        ctx.result.model_calls += 2 * sum(1 for p in pair_tasks if p.answer_a.strip() and p.answer_b.strip())
        try:
            compare_answers(
                backend,
                pair_tasks,
                settings=settings,
                global_variants=global_variants,
                progress=tally,
                cancel=ctx.cancel,
                on_pair=store,
            )
        except Cancelled as exc:
            raise PassCancelled(CANCELLED) from exc
        if missed:
            raise unreachable(ctx.config.judge, len(missed), len(todo), "pairs", missed[0].note)
    finally:
        backend.close()


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)
