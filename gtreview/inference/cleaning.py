"""What counts as the answer in a model's output, and what counts as a failed generation.

Base models and LoRA fine-tunes leak: a chat template that the serving stack does not
know, a fine-tune trained on text with literal ``<|im_end|>`` strings, a reasoning model
whose ``<think>`` was opened by the prompt. The judge must see only the answer, so the
text is cleaned with an ordered list of regular expressions; the raw text is stored
next to the clean one, so a cleaning mistake is visible and fixable after the fact.

Rules are data (JSON), because a new model family should need a project setting, not
a release. Order matters and the defaults are ordered on purpose:

1. hallucinated next turns (the model failed to stop and began a user turn) are cut,
   so nothing they contain can leak into the answer or be taken for reasoning;
2. closed reasoning blocks, then everything before a stray closing tag (the template
   put the opening tag in the prompt), then reasoning blocks never closed;
3. wrappers (role headers, the harmony final-channel header) go, their text stays;
4. family control tokens, then any remaining ``<|...|>``-style token, a leftover role
   line, and a special token cut in half by ``max_tokens``.

Nothing here does I/O: rules load and save as JSON text, and ``clean_output`` is a pure
function cheap enough to run on every generation (patterns are compiled once per rules
object).
"""

from __future__ import annotations

import re
from enum import StrEnum
from functools import cache
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, model_validator

from gtreview.core.errors import UserError

PatternKind = Literal["reasoning", "control", "wrapper"]
RegexFlag = Literal["DOTALL", "IGNORECASE", "MULTILINE"]
_FLAG_VALUES = {"DOTALL": re.DOTALL, "IGNORECASE": re.IGNORECASE, "MULTILINE": re.MULTILINE}


class CleaningRulesError(UserError, ValueError):
    """Cleaning rules that cannot be used; the message is one line naming the culprit."""


class CleaningPattern(BaseModel):
    """One regular expression whose matches are removed from the output.

    ``kind`` says what the removed text was: ``reasoning`` (counted in
    ``reasoning_chars``: an output with only reasoning is a reasoning-only failure, not
    an empty one), ``control`` (special tokens and hallucinated turns) or ``wrapper``
    (markup around text that is kept: the regex matches the markup only).
    ``open_block`` marks a reasoning block that was never closed; when it fires with
    ``finish_reason="length"`` the model was cut off mid-thought.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1)
    family: str = "generic"
    kind: PatternKind
    regex: str = Field(min_length=1)
    flags: tuple[RegexFlag, ...] = ("DOTALL",)
    open_block: bool = False

    _compiled: re.Pattern[str] | None = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _compile(self) -> CleaningPattern:
        """Compile at load time, so a bad project setting fails when read, not mid-run."""
        flags = 0
        for flag in self.flags:
            flags |= _FLAG_VALUES[flag]
        try:
            compiled = re.compile(self.regex, flags)
        except re.error as exc:
            raise ValueError(f"pattern {self.name!r}: invalid regex {self.regex!r}: {exc}") from None
        if compiled.fullmatch(""):
            raise ValueError(f"pattern {self.name!r}: regex {self.regex!r} matches the empty string")
        if self.open_block and self.kind != "reasoning":
            raise ValueError(f"pattern {self.name!r}: open_block is only meaningful for kind 'reasoning'")
        self._compiled = compiled
        return self

    @property
    def compiled(self) -> re.Pattern[str]:
        assert self._compiled is not None  # set by the validator on every construction path
        return self._compiled


class CleaningRules(BaseModel):
    """Ordered patterns, applied one after another to the output of the previous one."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    patterns: tuple[CleaningPattern, ...] = ()
    strip_whitespace: bool = True

    @model_validator(mode="after")
    def _unique_names(self) -> CleaningRules:
        """``CleanResult.removed`` reports names, so two patterns may not share one."""
        seen: set[str] = set()
        for pattern in self.patterns:
            if pattern.name in seen:
                raise ValueError(f"duplicate pattern name {pattern.name!r}")
            seen.add(pattern.name)
        return self


def rules_from_json(text: str | bytes) -> CleaningRules:
    """Rules from a project's JSON setting; a bad file is one line naming the pattern."""
    try:
        return CleaningRules.model_validate_json(text)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in first["loc"])
        message = str(first["msg"]).removeprefix("Value error, ")
        raise CleaningRulesError(f"cleaning rules{where}: {message}".splitlines()[0]) from None


def rules_to_json(rules: CleaningRules) -> str:
    """The JSON a project stores (and ``rules_from_json`` reads back unchanged)."""
    return rules.model_dump_json(indent=2)


class GenerationOutcome(StrEnum):
    """Whether a generation is usable; anything but ``ok`` is retried, then an error."""

    OK = "ok"
    EMPTY = "empty"
    REASONING_ONLY = "reasoning_only"
    TRUNCATED = "truncated"


class CleanResult(BaseModel):
    """The clean text and what cleaning found, enough to classify without cleaning again."""

    model_config = ConfigDict(frozen=True)

    clean: str
    removed: list[str] = Field(default_factory=list)
    reasoning_chars: int = 0
    open_reasoning: bool = False
    raw_blank: bool = False

    def outcome(self, finish_reason: str | None) -> GenerationOutcome:
        """Classify: see ``classify``."""
        if self.raw_blank:
            return GenerationOutcome.EMPTY
        has_answer = bool(self.clean.strip())
        if finish_reason == "length" and (not has_answer or self.open_reasoning):
            return GenerationOutcome.TRUNCATED
        if has_answer:
            return GenerationOutcome.OK
        return GenerationOutcome.REASONING_ONLY if self.reasoning_chars else GenerationOutcome.EMPTY


def clean_output(raw: str, rules: CleaningRules | None = None) -> CleanResult:
    """The answer inside ``raw``: every pattern removed in order, then whitespace trimmed."""
    active = default_rules() if rules is None else rules
    text = raw
    removed: list[str] = []
    reasoning_chars = 0
    open_reasoning = False
    for pattern in active.patterns:
        before = len(text)
        text = pattern.compiled.sub("", text)
        gone = before - len(text)
        if gone <= 0:
            continue
        removed.append(pattern.name)
        if pattern.kind == "reasoning":
            reasoning_chars += gone
            open_reasoning = open_reasoning or pattern.open_block
    if active.strip_whitespace:
        text = text.strip()
    return CleanResult(
        clean=text,
        removed=removed,
        reasoning_chars=reasoning_chars,
        open_reasoning=open_reasoning,
        raw_blank=not raw.strip(),
    )


def classify(raw: str, finish_reason: str | None, rules: CleaningRules | None = None) -> GenerationOutcome:
    """Whether a generation gave a usable answer.

    - ``empty``: nothing but whitespace, or nothing but control tokens (no answer and no
      reasoning either: the model stopped at once);
    - ``truncated``: ``finish_reason == "length"`` and either no answer survived cleaning
      or a reasoning block was still open when the budget ran out (a retry with the same
      budget may well finish; an answer preceding an open block is not trusted);
    - ``reasoning_only``: the model thought and stopped without answering;
    - ``ok``: clean text remains. A ``length`` answer with usable text is ``ok``: the
      judge sees what was written and the rubric decides whether it is enough.
    """
    return clean_output(raw, rules).outcome(finish_reason)


# -- default rules -------------------------------------------------------------------------

# Tokens whose first characters a max_tokens cut (or a fine-tune that spells them out as
# plain text) can leave at the very end of an output.
_PARTIAL_TOKENS = (
    "<end_of_turn>",
    "<start_of_turn>",
    "<eos>",
    "</s>",
    "<turn|>",
    "<channel|>",
    "</think>",
    "<think>",
)


def _partial_token_regex() -> str:
    """``<|anything`` cut short, or a proper prefix (3+ chars) of a known angle token, at the end."""
    prefixes = sorted({tok[1:n] for tok in _PARTIAL_TOKENS for n in range(3, len(tok))}, key=len, reverse=True)
    return r"<(?:[|｜][^\s<>|｜]{0,48}[|｜]?|" + "|".join(re.escape(p) for p in prefixes) + r")\Z"


# Harmony: an optional "<|start|>assistant" header (with a recipient) before the channel.
# Written so that every pattern starts with a literal "<|": re then scans for it quickly.
_CHANNEL = r"<\|(?:start\|>[ \t]*assistant[^<]*<\|)?channel\|>[ \t]*"
_HARMONY_REASONING = _CHANNEL + r"(?:analysis|commentary)\b"

_DEFAULTS: tuple[tuple[str, str, PatternKind, str], ...] = (
    # 1. hallucinated next turns: the model did not stop; nothing after this is the answer
    ("chatml_next_turn", "chatml", "control", r"<\|im_start\|>[ \t]*(?:user|system)\b.*\Z"),
    (
        "llama3_next_turn",
        "llama3",
        "control",
        r"<\|start_header_id\|>[ \t]*(?:user|system)[ \t]*<\|end_header_id\|>.*\Z",
    ),
    ("gemma_next_turn", "gemma", "control", r"(?:<start_of_turn>|<\|turn>)[ \t]*(?:user|system)\b.*\Z"),
    ("harmony_next_turn", "harmony", "control", r"<\|start\|>[ \t]*(?:user|system|developer)\b.*\Z"),
    ("mistral_next_turn", "mistral", "control", r"\[INST\].*\Z"),
    ("deepseek_next_turn", "deepseek", "control", r"<｜User｜>.*\Z"),
    # a model without a chat template is prompted as "user: ...\n\nassistant:" (the
    # engine's plain rendering); a base model then writes the next "user:" turn itself
    ("plain_next_turn", "plain", "control", r"\n[ \t]*(?:user|system):\s.*\Z"),
    # 2a. closed reasoning blocks
    # (bodies may not cross another opening tag: linear time on a degenerate "<think>" * 5000;
    # the price is that a nested "<think>a<think>b</think>" leaves "<think>a" open, which the
    # unclosed rule below then removes to the end)
    ("think_block", "think", "reasoning", r"<think>[^<]*(?:<(?!/?think>)[^<]*)*</think>"),
    (
        "thinking_block",
        "think",
        "reasoning",
        r"<(thinking|reasoning)>[^<]*(?:<(?!/?(?:thinking|reasoning)>)[^<]*)*</\1>",
    ),
    ("mistral_think_block", "mistral", "reasoning", r"\[THINK\][^\[]*(?:\[(?!/?THINK\])[^\[]*)*\[/THINK\]"),
    ("gemma4_thought", "gemma", "reasoning", r"<\|channel>[^<]*(?:<(?!\|channel>|channel\|>)[^<]*)*<channel\|>"),
    (
        "harmony_analysis",
        "harmony",
        "reasoning",
        _HARMONY_REASONING + r".*?(?:<\|end\|>|<\|call\|>|(?=<\|start\|>)|(?=<\|channel\|>))",
    ),
    # harmony rendered with special tokens skipped: "analysis...assistantfinal<answer>"
    ("harmony_skipped_tokens", "harmony", "reasoning", r"\A\s*analysis.*?assistantfinal"),
    # 2b. a closing tag with no opening one: the prompt opened the block (DeepSeek-R1, Qwen3 2507)
    ("think_stray_close", "think", "reasoning", r"\A.*</(?:think|thinking|reasoning)>"),
    ("gemma4_stray_close", "gemma", "reasoning", r"\A.*<channel\|>"),
)
_OPEN_BLOCKS: tuple[tuple[str, str, str], ...] = (
    # 2c. reasoning never closed: the output ended (or was cut) mid-thought
    ("think_unclosed", "think", r"<(?:think|thinking|reasoning)>.*\Z"),
    ("mistral_think_unclosed", "mistral", r"\[THINK\].*\Z"),
    ("gemma4_thought_unclosed", "gemma", r"<\|channel>.*\Z"),
    ("harmony_analysis_unclosed", "harmony", _HARMONY_REASONING + r".*\Z"),
)
_TOKENS: tuple[tuple[str, str, PatternKind, str], ...] = (
    # 3. wrappers: the markup goes, the answer it introduces stays
    (
        "harmony_final_header",
        "harmony",
        "wrapper",
        _CHANNEL + r"final\b[^<]*(?:<\|constrain\|>[^<]*)?<\|message\|>",
    ),
    ("chatml_assistant_header", "chatml", "wrapper", r"<\|im_start\|>[ \t]*(?:assistant)?[ \t]*\n?"),
    ("llama3_header", "llama3", "wrapper", r"<\|start_header_id\|>[^<\n]{0,40}<\|end_header_id\|>[ \t]*\n*"),
    ("gemma_model_header", "gemma", "wrapper", r"(?:<start_of_turn>|<\|turn>)[ \t]*(?:model)?[ \t]*\n?"),
    # 4. control tokens
    ("chatml_tokens", "chatml", "control", r"<\|im_end\|>|<\|im_sep\|>|<\|endoftext\|>"),
    (
        "llama3_tokens",
        "llama3",
        "control",
        r"<\|(?:begin_of_text|end_of_text|eot_id|eom_id|python_tag|finetune_right_pad_id)\|>",
    ),
    ("harmony_tokens", "harmony", "control", r"<\|(?:start|end|message|channel|return|call|constrain)\|>"),
    ("gemma_tokens", "gemma", "control", r"<end_of_turn>|<eos>|<bos>|<turn\|>|<\|think\|>"),
    ("mistral_tokens", "mistral", "control", r"\[(?:/?INST|/?SYSTEM_PROMPT|/THINK)\]"),
    ("sentence_tokens", "mistral", "control", r"</?s>"),
    ("deepseek_tokens", "deepseek", "control", r"<｜[^｜\n]{1,48}｜>"),
    ("generic_special_token", "generic", "control", r"<\|[\w.:/▁-]{1,48}\|>|<\|[a-z_]{1,32}>|<[a-z_]{1,32}\|>"),
    # a role line left by a server that skipped the special tokens around it
    ("leading_role_line", "generic", "control", r"\A\s*(?:assistant|model)[ \t]*\n"),
    ("partial_special_token", "generic", "control", _partial_token_regex()),
)


@cache
def default_rules() -> CleaningRules:
    """The built-in rules (one shared, immutable object, so its compiled patterns are reused)."""
    patterns = [CleaningPattern(name=n, family=f, kind=k, regex=r) for n, f, k, r in _DEFAULTS]
    patterns += [
        CleaningPattern(name=n, family=f, kind="reasoning", regex=r, open_block=True) for n, f, r in _OPEN_BLOCKS
    ]
    patterns += [CleaningPattern(name=n, family=f, kind=k, regex=r) for n, f, k, r in _TOKENS]
    return CleaningRules(patterns=tuple(patterns), strip_whitespace=True)
