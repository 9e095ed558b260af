"""Where a verdict's tokens go: each string field of a judge's reply, and the rest.

Used by ``bench_judging.py``. A reply is read with ``parse_verdict_reply`` (so only
valid verdicts are counted) and each string it holds is tokenized with the judge's own
vocabulary; what is left of the reply's completion tokens is the JSON skeleton (keys,
punctuation, awards and flags), which the grammar fixes and the model only copies.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from gtreview.core.rubric import Question
from gtreview.judging.contract import ContractViolation, parse_verdict_reply

Tokenize = Callable[[str], int]


@dataclass
class Anatomy:
    """Summed over the valid replies read: tokens and characters per part of a verdict."""

    replies: int = 0
    reply_tokens: int = 0
    tokens: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    chars: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    count: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    at_cap: dict[str, int] = field(default_factory=lambda: defaultdict(int))

    def read(
        self, question: Question, text: str, completion_tokens: int, tokenize: Tokenize, caps: dict[str, int]
    ) -> bool:
        """Add one reply (False, nothing added, when it is not a valid verdict)."""
        try:
            verdict = parse_verdict_reply(question, text)
        except ContractViolation:
            return False
        points = {c.id: int(c.points) for c in question.components}
        parts: list[tuple[str, str]] = [("gate reason", verdict.gate_reason)]
        for component in verdict.components:
            full_or_zero = component.awarded in (0, points[component.id])
            parts.append(("reason, full or zero" if full_or_zero else "reason, partial", component.reason))
        parts.append(("adjudication note", verdict.adjudication_note))
        parts.append(("accepted variant", verdict.accepted_variant_used))
        parts += [("unscored point", item) for item in verdict.demonstrated_but_unscored]
        self.replies += 1
        self.reply_tokens += completion_tokens
        for name, value in parts:
            self.count[name] += 1
            self.chars[name] += len(value)
            self.tokens[name] += tokenize(value) if value else 0
            cap = caps.get(name)
            if cap is not None and len(value) >= cap - 1:
                self.at_cap[name] += 1
        return True

    def lines(self) -> list[str]:
        if not self.replies:
            return ["  anatomy           no valid verdict to read"]
        n = self.replies
        strings = sum(self.tokens.values())
        out = [
            f"  anatomy           {self.reply_tokens / n:.0f} tokens per valid verdict ({n} read): "
            f"strings {strings / n:.0f}, JSON skeleton (keys, punctuation, awards) {(self.reply_tokens - strings) / n:.0f}"
        ]
        for name in sorted(self.count, key=lambda k: -self.tokens[k]):
            count = self.count[name]
            out.append(
                f"    {name:22s} {count / n:4.1f} per verdict, {self.chars[name] / count:5.1f} chars "
                f"{self.tokens[name] / count:5.1f} tokens each, {self.tokens[name] / n:5.1f} tokens per verdict"
                + (f", {self.at_cap[name]} of {count} at the length cap" if name in self.at_cap else "")
            )
        return out
