"""A pass's prompts checked against each model's context before its first call.

A question too long for a model's context, or a judge prompt with no room left for the
longest answer the models may write, used to show up hours into a pass as error
results (or truncated verdicts). Before the judge's fixture check and the first answer,
each local model with answers still to write counts its answer prompts (question plus
``max_tokens``), and the judge counts its prompts with the longest possible answer
(the pass's answer ``max_tokens``; two of them for a pairwise prompt) plus its own
reply. Anything that does not fit stops the pass in one line
(:class:`~gtreview.inference.context_fit.PromptsDoNotFit`) naming the questions and the
token counts. Only local models can count tokens; HTTP servers are not checked.
"""

from __future__ import annotations

import time

from gtreview.core.activity import short_spec
from gtreview.core.redaction import redact
from gtreview.core.rubric import Question, VariantRule
from gtreview.inference.backend import CompletionRequest
from gtreview.inference.context_fit import PromptCheck, check_prompts_fit
from gtreview.inference.specs import LOCAL_KINDS, ModelSpecError, parse_model_spec
from gtreview.judging.calibration import standardisation_fixtures
from gtreview.judging.pairwise import pair_messages
from gtreview.judging.pointwise import base_messages
from gtreview.runs.judge_phases import judging_left
from gtreview.runs.pass_context import PassContext
from gtreview.runs.plan import PassPlan, answer_messages
from gtreview.store import db, runs_repo, tables

__all__ = ["check_pass_fits"]


def check_pass_fits(
    ctx: PassContext, plan: PassPlan, global_variants: list[VariantRule] | None, questions: list[Question]
) -> None:
    """Raise PromptsDoNotFit unless every prompt the pass has left to send fits its
    model; a model or judge with nothing left to do is not opened."""
    sampling = ctx.config.sampling
    for model in ctx.config.models:
        tasks = plan.generations[model.label]
        with db.reading(ctx.engine) as session:
            done = runs_repo.existing_keys(session, tables.Generation, [t.key for t in tasks])
        todo = {t.question.id: t.question for t in tasks if t.key not in done}
        checks = [
            PromptCheck(f"question {q.id}", CompletionRequest(messages=answer_messages(q), sampling=sampling))
            for q in todo.values()
        ]
        _check(ctx, model.spec, checks, f"{model.label} answer")
    judge_sampling, longest = ctx.config.judge_sampling, sampling.max_tokens
    checks = []
    if judging_left(ctx, plan):
        checks += [
            PromptCheck(
                f"question {q.id} with a {longest:,}-token answer",
                CompletionRequest(messages=base_messages(q, "", global_variants), sampling=judge_sampling),
                reserve=longest,
            )
            for q in questions
        ]
        if ctx.config.drift_every > 0:
            checks += [
                PromptCheck(
                    f"question {q.id} fixture {f.fixture_id}",
                    CompletionRequest(
                        messages=base_messages(q, f.response_text or "", global_variants), sampling=judge_sampling
                    ),
                )
                for q, f in standardisation_fixtures(questions)
            ]
    if _pairs_left(ctx, plan):
        checks += [
            PromptCheck(
                f"question {q.id} with two {longest:,}-token answers",
                CompletionRequest(messages=pair_messages(q, "", "", global_variants), sampling=judge_sampling),
                reserve=2 * longest,
            )
            for q in questions
        ]
    _check(ctx, ctx.config.judge, checks, "judge")


def _pairs_left(ctx: PassContext, plan: PassPlan) -> bool:
    keys = [p.key for p in plan.pairs]
    if not keys:
        return False
    with db.reading(ctx.engine) as session:
        return len(runs_repo.existing_keys(session, tables.PairJudgement, keys)) < len(set(keys))


def _check(ctx: PassContext, spec: str, checks: list[PromptCheck], what: str) -> None:
    """Open a local model only to count (servers cannot), and close it again: one
    model in memory at a time, as the pass's phases keep it."""
    if not checks or not _is_local(spec):
        return
    ctx.check_cancel()
    # Loading a local model to count takes a while: say so, or a resumed pass reads as hung.
    ctx.emit(
        "fit", 0, 0, time.monotonic(), message=f"checking that the {what} prompts fit ({short_spec(redact(spec))})"
    )
    backend = ctx.open(spec)
    try:
        check_prompts_fit(backend, checks, what=what)
    finally:
        backend.close()


def _is_local(spec: str) -> bool:
    try:
        return parse_model_spec(spec).kind in LOCAL_KINDS
    except ModelSpecError:
        return False
