"""Drafting's prompts checked against the model's context before the first call.

Every request of every stage carries all the passages shown (the shared corpus
context), so a corpus too large for the model fails every request alike: eight 50k-token
prompts to an 8k model cost eight refusals, or a whole stage of truncated replies. The
evidence-card prompts are known exactly before drafting starts; the later stages' are
the same corpus prefix plus a card, a question or a draft that does not exist yet, so
their prefix is checked with that stage's longest reply. A misfit is refused in one line
(:class:`~gtreview.inference.context_fit.PromptsDoNotFit`) that names the card, the
passages and the token counts, before anything is sent.
"""

from __future__ import annotations

from gtreview.authoring.stages import CARDS, STAGES, DraftContext, card_items, focus_groups
from gtreview.inference.backend import CompletionRequest
from gtreview.inference.context_fit import PromptCheck, check_prompts_fit

__all__ = ["check_drafting_fits"]


def check_drafting_fits(ctx: DraftContext, n_cards: int) -> None:
    """Raise PromptsDoNotFit (one line) unless every card prompt, and every later stage's
    corpus prefix, fits the model's context with its stage's ``max_tokens``."""
    shown = _passages_shown(ctx)
    checks = [
        PromptCheck(
            f"evidence card {item.key} (focus {', '.join(focus)})",
            CompletionRequest(messages=item.messages, sampling=ctx.settings.sampling_for(CARDS)),
        )
        for item, focus in zip(card_items(ctx, n_cards), focus_groups(ctx.labels, n_cards), strict=True)
    ]
    checks += [
        PromptCheck(
            f"the {stage} stage's corpus prefix",
            CompletionRequest(messages=ctx.messages(stage, ""), sampling=ctx.settings.sampling_for(stage)),
        )
        for stage in STAGES
        if stage != CARDS
    ]
    check_prompts_fit(ctx.backend, checks, what="drafting", shared=f"each shows {shown}")


def _passages_shown(ctx: DraftContext) -> str:
    documents = ctx.documents
    named = ", ".join(documents[:3]) + (f" and {len(documents) - 3} more" if len(documents) > 3 else "")
    return f"{len(ctx.passages)} passages of {named}"
