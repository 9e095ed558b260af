"""Does every prompt fit the model's context? Asked before the first model call.

A prompt longer than the context cannot be answered: llama.cpp refuses it (or a server
answers with an error) only after the model has loaded and every other request of the
batch has been paid for, and a judge prompt that leaves no room for the longest answer
truncates the verdict. So each use case lists every prompt it will send, with the
tokens the reply may take (``max_tokens``) plus what is not written yet (``reserve``:
the longest possible answer a judge will see), and :func:`check_prompts_fit` refuses
the whole job in one line, naming what does not fit and the token counts, before
anything is sent.

Only backends that can count tokens are checked: a local model (in its worker process)
counts with its own tokenizer and chat template. HTTP servers and APIs have no common
way to count; they answer a prompt that is too long with an error result, as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gtreview.core.errors import UserError
from gtreview.core.wording import noun
from gtreview.inference.backend import CompletionBackend, CompletionRequest

__all__ = ["ModelCheckFailed", "PromptCheck", "PromptCounts", "PromptsDoNotFit", "check_prompts_fit"]

_NAMED = 3  # misfits named in the message; the rest are counted


@dataclass(frozen=True)
class PromptCounts:
    """The prompt tokens of each request, in order, and the tokens one sequence holds."""

    tokens: tuple[int, ...]
    context: int


@dataclass(frozen=True)
class PromptCheck:
    """One prompt to be sent: what to call it in a message and what it may still need."""

    label: str  # names the question, passages or fixture, e.g. "question A1 (model base)"
    request: CompletionRequest
    reserve: int = 0  # tokens not in the prompt yet (the longest answer a judge will read)


class PromptsDoNotFit(UserError):
    """Some prompt plus its reply cannot fit the model's context; nothing was sent."""


class ModelCheckFailed(UserError):
    """The model could not even count the prompts' tokens (it crashed in native code)."""


def check_prompts_fit(
    backend: CompletionBackend, checks: Sequence[PromptCheck], *, what: str, shared: str = ""
) -> None:
    """Raise :class:`PromptsDoNotFit` (one line) unless every prompt's tokens, its
    ``max_tokens`` and its ``reserve`` fit in one sequence of the model's context.

    ``what`` names the job in the message ("drafting", "judge"), ``shared`` what every
    prompt carries (drafting's passages), said once. A backend that cannot
    count tokens is not checked. A model that dies while counting (a native abort in
    its worker) raises :class:`ModelCheckFailed` with the worker's one line.
    """
    counter = getattr(backend, "count_prompt_tokens", None)
    if not checks or not callable(counter):
        return
    try:
        counts = counter([c.request for c in checks])
    except (RuntimeError, OSError, ValueError) as exc:  # WorkerDied is a RuntimeError
        raise ModelCheckFailed(f"{backend.spec}: {exc}") from None
    if counts is None:
        return
    if len(counts.tokens) != len(checks):
        raise RuntimeError(f"{backend.spec} counted {len(counts.tokens)} prompts for {len(checks)}")
    misfits = [
        (check, tokens)
        for check, tokens in zip(checks, counts.tokens, strict=True)
        if tokens + check.request.sampling.max_tokens + check.reserve > counts.context
    ]
    if misfits:
        raise PromptsDoNotFit(_message(backend.spec, what, shared, len(checks), counts.context, misfits))


def _message(
    spec: str, what: str, shared: str, total: int, context: int, misfits: list[tuple[PromptCheck, int]]
) -> str:
    parts = [_describe(check, tokens, context) for check, tokens in misfits[:_NAMED]]
    if len(misfits) > _NAMED:
        parts.append(f"and {len(misfits) - _NAMED} more")
    return (
        f"{len(misfits)} of {total} {what} {noun(total, 'prompt')}{f' ({shared})' if shared else ''} {noun(len(misfits), 'does', 'do')} not fit the {context:,}-token context of {spec}, "
        f"so nothing was sent: {'; '.join(parts)}"
    )


def _describe(check: PromptCheck, tokens: int, context: int) -> str:
    reply = check.request.sampling.max_tokens
    need = f"{tokens:,} prompt + {reply:,} reply"
    if check.reserve:
        need += f" + {check.reserve:,} answer"
    return f"{check.label} needs {need} = {tokens + reply + check.reserve:,} tokens"
