"""Output cleaning and generation classification on leaks modelled on real chat templates.

Each sample is what a serving stack hands back when it does not strip (or does not know)
the model family's special tokens: Qwen3 and DeepSeek-R1 thinking, gpt-oss harmony
channels, Gemma 3/3n/4 turns, ChatML, Llama 3 headers, Mistral instructions. The exact
clean text is asserted, because the judge sees exactly that.
"""

from __future__ import annotations

import json
import time

import pytest
from pydantic import ValidationError

from gtreview.inference.cleaning import (
    CleaningPattern,
    CleaningRules,
    CleaningRulesError,
    GenerationOutcome,
    classify,
    clean_output,
    default_rules,
    rules_from_json,
    rules_to_json,
)

ANSWER = "The Yudnamutana deposit (MINERAL_DEPOSIT_NO=2047) is recorded as a copper (Cu) prospect with minor gold."

# -- one realistic leak per family ------------------------------------------------------------

QWEN3 = (
    "<think>\nOkay, the user asks which commodity is recorded for Yudnamutana. Looking at the "
    "deposits table, MINERAL_DEPOSIT_NO=2047 lists COMMODITY=Cu and a minor Au entry. "
    "I should cite the row key.\n</think>\n\n" + ANSWER
)
DEEPSEEK_R1 = (
    "Okay, so I need to figure out what commodity the record gives. Let me check the "
    "commodity.csv rows for deposit 2047... It says Cu, and there is an Au line too. "
    "Wait, is gold the main one? No, copper is listed first.\n</think>\n\n" + ANSWER + "<｜end▁of▁sentence｜>"
)
GPT_OSS = (
    "<|channel|>analysis<|message|>We need to answer which commodity is recorded. The corpus "
    "row MINERAL_DEPOSIT_NO=2047 says Cu, minor Au. Provide concise answer with locator."
    "<|end|><|start|>assistant<|channel|>final<|message|>" + ANSWER + "<|return|>"
)
GPT_OSS_TOOL_THEN_FINAL = (
    "<|channel|>analysis<|message|>Need to look up the record first.<|end|>"
    "<|start|>assistant<|channel|>commentary to=functions.lookup <|constrain|>json<|message|>"
    '{"deposit": 2047}<|call|>'
    "<|start|>assistant<|channel|>final<|message|>" + ANSWER + "<|return|>"
)
GEMMA3 = "<start_of_turn>model\n" + ANSWER + "<end_of_turn>\n<start_of_turn>user\nAnd the host rock?<end_of_turn>\n"
GEMMA4 = (
    "<|turn>model\n<|channel>thought\nThe user wants the commodity. Row 2047: Cu, minor Au."
    "<channel|>" + ANSWER + "<turn|>"
)
CHATML = (
    "<|im_start|>assistant\n"
    + ANSWER
    + "<|im_end|>\n<|im_start|>user\nWhat about the host rock?<|im_end|>\n<|im_start|>assistant\nDolomite."
)
LLAMA3 = (
    "<|start_header_id|>assistant<|end_header_id|>\n\n"
    + ANSWER
    + "<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nThanks!<|eot_id|>"
)
MISTRAL = "[/INST] " + ANSWER + "</s>[INST] Which mine is nearest? [/INST] The Blinman mine."


@pytest.mark.parametrize(
    ("raw", "fired"),
    [
        (QWEN3, ["think_block"]),
        (DEEPSEEK_R1, ["think_stray_close", "deepseek_tokens"]),
        (GPT_OSS, ["harmony_analysis", "harmony_final_header", "harmony_tokens"]),
        (GPT_OSS_TOOL_THEN_FINAL, ["harmony_analysis", "harmony_final_header", "harmony_tokens"]),
        (GEMMA3, ["gemma_next_turn", "gemma_model_header", "gemma_tokens"]),
        (GEMMA4, ["gemma4_thought", "gemma_model_header", "gemma_tokens"]),
        (CHATML, ["chatml_next_turn", "chatml_assistant_header", "chatml_tokens"]),
        (LLAMA3, ["llama3_next_turn", "llama3_header", "llama3_tokens"]),
        (MISTRAL, ["mistral_next_turn", "mistral_tokens", "sentence_tokens"]),
    ],
    ids=["qwen3", "deepseek-r1", "gpt-oss", "gpt-oss-tool", "gemma3", "gemma4", "chatml", "llama3", "mistral"],
)
def test_each_family_leak_cleans_to_the_answer(raw: str, fired: list[str]) -> None:
    result = clean_output(raw)
    assert result.clean == ANSWER
    assert result.removed == fired
    assert classify(raw, "stop") is GenerationOutcome.OK


def test_reasoning_chars_count_only_reasoning() -> None:
    thought = "<think>\nabc\n</think>"
    assert clean_output(thought + "\n\nAnswer.<|im_end|>").reasoning_chars == len(thought)
    assert clean_output(CHATML).reasoning_chars == 0
    assert clean_output(GPT_OSS).reasoning_chars > 0


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("<thinking>\nCheck the lithology table.\n</thinking>\nDolomitic siltstone.", "Dolomitic siltstone."),
        ("<reasoning>Row 2047.</reasoning>\n\nCopper.", "Copper."),
        ("[THINK]The row says Cu.[/THINK]Copper.</s>", "Copper."),  # Magistral
        ("<think>\n\n</think>\n\nCopper.", "Copper."),  # Qwen3 with thinking disabled
        # Gemma 4 whose prompt opened the thought channel: only the close is generated
        ("the user wants the commodity...<channel|>Copper.<turn|>", "Copper."),
        # harmony with special tokens skipped by the server
        ("analysisUser asks commodity. Answer Cu.assistantfinalCopper is recorded.", "Copper is recorded."),
        # harmony final channel with a constrained format
        ('<|channel|>final <|constrain|>json<|message|>{"commodity": "Cu"}<|return|>', '{"commodity": "Cu"}'),
        # a role line left when the server skipped <|im_start|> but not the newline
        ("assistant\nCopper.", "Copper."),
        ("model\nCopper.", "Copper."),
        # DeepSeek template markers and generic stray tokens
        ("<｜Assistant｜>Copper.<｜end▁of▁sentence｜><｜User｜>next", "Copper."),
        ("Copper.<|endoftext|>", "Copper."),
        ("<|begin_of_text|>Copper.<|eom_id|>", "Copper."),
        ("<s>Copper.</s>", "Copper."),
        ("<bos>Copper.<eos>", "Copper."),
    ],
)
def test_variants(raw: str, clean: str) -> None:
    assert clean_output(raw).clean == clean


@pytest.mark.parametrize("cut", ["<|im_e", "<|im_end|", "<|eot", "<|", "<end_of_tu", "</s", "<｜end▁of"])
def test_a_special_token_cut_off_at_the_end_is_removed(cut: str) -> None:
    result = clean_output("Copper." + cut)
    assert result.clean == "Copper."
    assert result.removed == ["partial_special_token"]


@pytest.mark.parametrize(
    "text",
    [
        "I think the grade is <0.5% Cu where Au > 2 g/t, and 3 < 4 > 2.",
        "Use <b>bold</b>, <br> and <https://sarig.sa.gov.au>; think about it, then think again.",
        "| col a | col b |\n|---|---|\n| x<y | y>z |",
        "The model thinks; the thinking is done. Assistant geologists agree.",
        "List<String> and Map<K, V> are generics; a <- b in R.",
        "analysis of the assistant's final report",
    ],
)
def test_ordinary_text_is_untouched(text: str) -> None:
    result = clean_output(text)
    assert result.clean == text
    assert result.removed == []


# -- classification ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "finish", "outcome"),
    [
        ("", "stop", GenerationOutcome.EMPTY),
        ("  \n\t ", "stop", GenerationOutcome.EMPTY),
        ("\n\n", "length", GenerationOutcome.EMPTY),
        ("<|im_end|>", "stop", GenerationOutcome.EMPTY),  # stopped at once: nothing but a token
        ("<think>\nRow 2047 says Cu.\n</think>\n\n", "stop", GenerationOutcome.REASONING_ONLY),
        ("<think>\nStill weighing the Au line", "stop", GenerationOutcome.REASONING_ONLY),
        ("<|channel|>analysis<|message|>Need the row.<|end|>", "stop", GenerationOutcome.REASONING_ONLY),
        ("<think>\nLet me check deposits.csv, then commodity.csv, then", "length", GenerationOutcome.TRUNCATED),
        ("<|channel>thought\nRow 2047 says", "length", GenerationOutcome.TRUNCATED),
        ("<|channel|>analysis<|message|>We need to check the", "length", GenerationOutcome.TRUNCATED),
        ("Copper. <think>\nBut wait", "length", GenerationOutcome.TRUNCATED),
        ("<|im_end|>" * 5, "length", GenerationOutcome.TRUNCATED),
        ("The deposit is copper, hosted in dolomitic silt", "length", GenerationOutcome.OK),
        ("<think>\nshort\n</think>\n\nThe deposit is copper, hosted in", "length", GenerationOutcome.OK),
        (ANSWER, "stop", GenerationOutcome.OK),
        (ANSWER, None, GenerationOutcome.OK),
    ],
)
def test_classify(raw: str, finish: str | None, outcome: GenerationOutcome) -> None:
    assert classify(raw, finish) is outcome


def test_a_length_answer_keeps_its_text() -> None:
    result = clean_output("<think>\nok\n</think>\n\nThe deposit is copper, hosted in")
    assert result.clean == "The deposit is copper, hosted in"
    assert result.outcome("length") is GenerationOutcome.OK


def test_open_reasoning_is_flagged() -> None:
    result = clean_output("<think>\nStill thinking")
    assert (result.clean, result.removed, result.open_reasoning) == ("", ["think_unclosed"], True)
    assert result.reasoning_chars == len("<think>\nStill thinking")


# -- rules as data -----------------------------------------------------------------------------


CUSTOM = {
    "strip_whitespace": True,
    "patterns": [
        {"name": "alpaca_header", "family": "alpaca", "kind": "wrapper", "regex": r"\A\s*### Response:[ \t]*\n?"},
        {
            "name": "scratchpad",
            "family": "house",
            "kind": "reasoning",
            "regex": r"<scratchpad>.*?</scratchpad>",
            "flags": ["DOTALL", "IGNORECASE"],
        },
    ],
}


def test_custom_rules_from_json() -> None:
    rules = rules_from_json(json.dumps(CUSTOM))
    raw = "### Response:\n<SCRATCHPAD>row 2047\nsays Cu</SCRATCHPAD>\nCopper.<|im_end|>"
    result = clean_output(raw, rules)
    assert result.clean == "Copper.<|im_end|>"  # only the project's patterns apply
    assert result.removed == ["alpaca_header", "scratchpad"]
    assert result.outcome("stop") is GenerationOutcome.OK
    assert clean_output("### Response:\n<scratchpad>x</scratchpad>", rules).outcome("stop") is (
        GenerationOutcome.REASONING_ONLY
    )


def test_strip_whitespace_can_be_turned_off() -> None:
    rules = CleaningRules.model_validate({**CUSTOM, "strip_whitespace": False})
    assert clean_output("  <scratchpad>x</scratchpad>\nCopper.\n", rules).clean == "  \nCopper.\n"


def test_default_rules_round_trip_through_json() -> None:
    text = rules_to_json(default_rules())
    again = rules_from_json(text)
    assert again == default_rules()
    assert clean_output(GPT_OSS, again) == clean_output(GPT_OSS)
    names = [p["name"] for p in json.loads(text)["patterns"]]
    assert names[0] == "chatml_next_turn" and names[-1] == "partial_special_token"


def test_an_invalid_regex_is_refused_naming_the_pattern() -> None:
    bad = {"patterns": [{"name": "broken_think", "kind": "reasoning", "regex": "(<think>.*"}]}
    with pytest.raises(ValidationError) as caught:
        CleaningRules.model_validate(bad)
    message = caught.value.errors()[0]["msg"]
    assert "broken_think" in message and "\n" not in message
    with pytest.raises(CleaningRulesError) as one_line:
        rules_from_json(json.dumps(bad))
    text = str(one_line.value)
    assert "\n" not in text and "broken_think" in text and "patterns[0]" in text


@pytest.mark.parametrize(
    ("patterns", "needle"),
    [
        ([{"name": "a", "kind": "control", "regex": "x*"}], "empty string"),
        ([{"name": "a", "kind": "control", "regex": "x"}, {"name": "a", "kind": "control", "regex": "y"}], "duplicate"),
        ([{"name": "a", "kind": "control", "regex": "x", "open_block": True}], "open_block"),
        ([{"name": "a", "kind": "control", "regex": "x", "flags": ["VERBOSE"]}], "DOTALL"),
        ([{"name": "a", "kind": "junk", "regex": "x"}], "reasoning"),
    ],
)
def test_other_bad_rules_are_refused_in_one_line(patterns: list[dict[str, object]], needle: str) -> None:
    with pytest.raises(CleaningRulesError) as caught:
        rules_from_json(json.dumps({"patterns": patterns}))
    assert needle in str(caught.value) and "\n" not in str(caught.value)


def test_rules_are_immutable_and_compiled_once() -> None:
    rules = default_rules()
    assert default_rules() is rules
    pattern = rules.patterns[0]
    assert pattern.compiled is pattern.compiled
    with pytest.raises(ValidationError):
        pattern.regex = "x"  # type: ignore[misc]
    assert isinstance(CleaningPattern.model_validate(pattern.model_dump()), CleaningPattern)


def test_cleaning_is_fast_even_on_degenerate_output() -> None:
    """Every generation is cleaned; a broken fine-tune that repeats a tag must not stall a pass."""
    normal = (QWEN3 + "\n") * 20
    degenerate = ["<think>" * 8000, "<|channel>" * 5000, "<|channel|>analysis" * 3000, "<|" * 30000, "<" * 60000]
    start = time.perf_counter()
    for _ in range(50):
        clean_output(normal)
    for text in degenerate:
        assert len(clean_output(text).clean) <= len(text)
    assert time.perf_counter() - start < 2.0
