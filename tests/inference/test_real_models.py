"""The engine on two real models (tests/real_models.py): what random weights cannot show.

Real models stop when they choose, have real chat templates and vocabularies, write
real control tokens and, as base models, hallucinate the next turn. Outputs are kept to
a few tokens so the module stays short; each test skips when its model cannot be had.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import llama_cpp
import pytest

from gtreview.inference.backend import ChatMessage, CompletionRequest, Sampling
from gtreview.inference.cleaning import GenerationOutcome, classify, clean_output
from gtreview.inference.llama.engine import BatchedLlamaEngine
from tests import real_models

pytestmark = [pytest.mark.real_model, pytest.mark.native]  # llama.cpp runs in this process: each test in a forked child

GEOLOGIST = ChatMessage(role="system", content="You are a geologist. Answer in one short sentence.")
QUESTIONS = ["Why is gold found in quartz veins?", "What is pyrite?"]


def chat(question: str, system: ChatMessage = GEOLOGIST) -> list[ChatMessage]:
    return [system, ChatMessage(role="user", content=question)]


@pytest.fixture(scope="module")
def smollm2(smollm2_gguf: Path) -> Iterator[BatchedLlamaEngine]:
    # Flash attention off: llama-cpp-python's Llama runs without it, so greedy tokens can
    # be compared one for one (with it, logits move by ~1e-3 and near-ties may flip).
    with BatchedLlamaEngine(smollm2_gguf, n_seq_max=4, n_ctx=4096, n_threads=2, flash_attn=False) as engine:
        yield engine


def test_the_chat_template_renders_as_llama_cpp_renders_it(smollm2: BatchedLlamaEngine, smollm2_gguf: Path) -> None:
    """The engine's prompt is llama-cpp-python's ``create_chat_completion`` prompt, token
    for token, and greedy decoding then writes the same reply."""
    messages = chat(QUESTIONS[0])
    ours = smollm2.tokenize_prompt(messages)
    (reply,) = smollm2.generate([CompletionRequest(messages=messages, sampling=Sampling(max_tokens=12))])

    llm = llama_cpp.Llama(str(smollm2_gguf), n_ctx=512, n_threads=2, n_threads_batch=2, verbose=False)
    evaluated: list[list[int]] = []
    real_eval = llm.eval

    def spy(tokens: Any) -> None:
        evaluated.append([int(t) for t in tokens])
        real_eval(tokens)

    llm.eval = spy  # type: ignore[method-assign]
    try:
        out: Any = llm.create_chat_completion(
            [m.model_dump() for m in messages], max_tokens=12, temperature=0.0, repeat_penalty=1.0
        )
    finally:
        llm.close()
    assert smollm2.render(messages).startswith("<|im_start|>system\nYou are a geologist.")
    assert ours == evaluated[0]  # the first eval is the whole prompt
    assert reply.text == out["choices"][0]["message"]["content"]


def test_a_real_model_stops_by_itself(smollm2: BatchedLlamaEngine) -> None:
    """Answers end at the model's end of turn, each at its own length (here about 110
    and 20 tokens): what the engine's scheduling has to live with."""
    results = smollm2.generate(
        [CompletionRequest(messages=chat(q), sampling=Sampling(max_tokens=160)) for q in QUESTIONS]
    )
    assert all(r.finish_reason == "stop" and 0 < (r.completion_tokens or 0) < 160 for r in results), results
    assert len({r.completion_tokens for r in results}) == 2
    assert all("<|im_end|>" not in r.text and r.text.strip() for r in results)  # the end of turn ends it


def test_lazy_grammar_sampling_picks_what_filtering_first_picks(smollm2: BatchedLlamaEngine) -> None:
    """Checking the sampled token first and filtering the vocabulary only on a rejection
    gives, for greedy decoding, the tokens of a grammar-first sampler chain."""
    schema = {
        "type": "object",
        "properties": {"reason": {"type": "string", "maxLength": 40}, "awarded": {"enum": [0, 1, 2]}},
        "required": ["reason", "awarded"],
        "additionalProperties": False,
    }
    system = ChatMessage(
        role="system", content="Grade the answer from 0 to 2. Reply with JSON: a reason, then awarded."
    )
    requests = [
        CompletionRequest(messages=chat(f"Answer: {a}", system), sampling=Sampling(max_tokens=48), json_schema=schema)
        for a in ("Gold is in quartz veins.", "I do not know.")
    ]
    before = smollm2.grammar_rejections
    smollm2.jump_forward = False  # token by token, as the grammar-first chain decodes
    try:
        lazy = smollm2.generate(requests)
        assert smollm2.grammar_rejections > before  # the grammar did step in (at least at the closing quote)
        smollm2.lazy_grammar = False  # the grammar first in every sequence's chain
        eager = smollm2.generate(requests)
    finally:
        smollm2.lazy_grammar = smollm2.jump_forward = True
    assert [r.text for r in lazy] == [r.text for r in eager]
    for result in lazy:
        reply = json.loads(result.text)
        assert list(reply) == ["reason", "awarded"] and reply["awarded"] in (0, 1, 2)

    forced_before = smollm2.stats.forced_tokens
    jumped = smollm2.generate(requests)  # the skeleton fed in runs: valid replies all the same
    assert smollm2.stats.forced_tokens > forced_before
    for result in jumped:
        reply = json.loads(result.text)
        assert list(reply) == ["reason", "awarded"] and reply["awarded"] in (0, 1, 2)


def test_a_random_lora_with_real_shapes_is_a_different_model(
    smollm2: BatchedLlamaEngine, smollm2_gguf: Path, smollm2_lora: Path
) -> None:
    requests = [CompletionRequest(messages=chat(q), sampling=Sampling(max_tokens=16)) for q in QUESTIONS]
    base = [r.text for r in smollm2.generate(requests)]
    with BatchedLlamaEngine(smollm2_gguf, lora_path=smollm2_lora, n_seq_max=2, n_ctx=1024, n_threads=2) as tuned:
        answers = tuned.generate(requests)
    assert [r.text for r in answers] != base
    assert all(classify(r.text, r.finish_reason) is GenerationOutcome.OK for r in answers)  # still text


def test_real_gemma_output_is_cleaned(gemma3_gguf: Path) -> None:
    """Gemma 3 270M is a base model without a chat template: prompted in the engine's
    plain ``user: ... assistant:`` form, it goes on to write the next ``user:`` turn
    itself, which cleaning cuts; its 262k vocabulary decodes without control tokens."""
    with BatchedLlamaEngine(gemma3_gguf, n_seq_max=2, n_ctx=1024, n_threads=2) as gemma:
        assert gemma.chat_template is None and gemma.render(chat("Q")).endswith("user: Q\n\nassistant:")
        results = gemma.generate(
            [CompletionRequest(messages=chat(q), sampling=Sampling(max_tokens=32)) for q in QUESTIONS]
        )
    cleaned = [clean_output(r.text) for r in results]
    assert any("\nuser:" in r.text for r in results)  # the base model wrote a next turn
    for result, clean in zip(results, cleaned, strict=True):
        assert clean.outcome(result.finish_reason) is GenerationOutcome.OK
        assert "user:" not in clean.clean and "assistant:" not in clean.clean
        assert not any(token in clean.clean for token in ("<start_of_turn>", "<end_of_turn>", "<eos>", "<bos>"))
    assert any("plain_next_turn" in c.removed for c in cleaned)


def test_the_model_cache_is_offline_once_filled(monkeypatch: pytest.MonkeyPatch, smollm2_gguf: Path) -> None:
    """Once cached, a model is found with downloads forbidden (and without re-hashing)."""
    monkeypatch.setenv(real_models.OFFLINE_ENV, "1")
    assert real_models.model_path("smollm2") == smollm2_gguf
