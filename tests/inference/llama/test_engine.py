"""The batched llama.cpp engine on a tiny random model, through the real native path.

The model writes gibberish, so the tests check what must hold for any model: shapes of
results, grammar-constrained JSON, determinism, that batching (shared prefix copied to
other sequences, waves) gives the same tokens as one request at a time, limits, errors,
LoRA, provenance and that native memory is given back.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import llama_cpp
import numpy as np
import pytest
from gguf import GGUFWriter

from gtreview.inference.backend import ChatMessage, CompletionBackend, CompletionRequest, Sampling
from gtreview.inference.gguf_check import ModelFileError
from gtreview.inference.llama import native as llama_native
from gtreview.inference.llama.engine import BatchedLlamaEngine, LlamaBackend
from gtreview.inference.llama.prefix_plan import plan_prefixes
from tests.gguf_factory import TinyDims, write_tiny_llama_gguf, write_tiny_lora_gguf

pytestmark = pytest.mark.native  # llama.cpp runs in this process: each test in a forked child

RUBRIC = "You are a strict judge. Mark the answer against the marking scheme, component by component. " * 12
VERDICT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"gate_passed": {"type": "boolean"}, "awarded": {"enum": [0, 1, 2, 3]}},
    "required": ["gate_passed", "awarded"],
}


def request(answer: str, *, schema: dict[str, Any] | None = None, **sampling: Any) -> CompletionRequest:
    return CompletionRequest(
        messages=[ChatMessage(role="system", content=RUBRIC), ChatMessage(role="user", content=f"Answer: {answer}")],
        sampling=Sampling(**{"max_tokens": 24, **sampling}),
        json_schema=schema,
    )


ANSWERS = [
    "the gold is in the quartz vein",
    "pyrite and copper",
    "a shear zone in granite",
    "no answer",
    "basalt dyke",
    "assay of 3 grams a tonne",
]


@pytest.fixture(scope="module")
def engine(tiny_gguf: Path) -> Iterator[BatchedLlamaEngine]:
    with BatchedLlamaEngine(tiny_gguf, n_seq_max=4, n_ctx=4096, n_threads=2) as eng:
        yield eng


def texts(results: list[Any]) -> list[str]:
    assert all(r.ok for r in results), [r.error for r in results]
    return [r.text for r in results]


def test_batch_sharing_a_long_prefix(engine: BatchedLlamaEngine, monkeypatch: pytest.MonkeyPatch) -> None:
    copies: list[tuple[int, int]] = []
    real_copy = llama_cpp.llama_memory_seq_cp

    def spy(memory: Any, src: int, dst: int, p0: int, p1: int) -> None:
        copies.append((src, dst))
        real_copy(memory, src, dst, p0, p1)

    monkeypatch.setattr(llama_cpp, "llama_memory_seq_cp", spy)
    results = engine.generate([request(a) for a in ANSWERS[:4]])
    assert len(results) == 4
    assert all(r.ok and r.prompt_tokens is not None and r.prompt_tokens > 300 for r in results)
    assert all(r.completion_tokens is not None and r.completion_tokens > 0 for r in results)
    assert copies == [(0, 1), (0, 2), (0, 3)]  # the prefix was decoded once and shared


def test_two_questions_in_one_wave_share_nested_prefixes(
    engine: BatchedLlamaEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Instruction shared by all four, each question's block by its two answers; the
    tokens equal those of each request alone."""

    def judged(question: str, answer: str) -> CompletionRequest:
        return CompletionRequest(
            messages=[
                ChatMessage(role="system", content=RUBRIC),
                ChatMessage(role="user", content=f"Question: {question} " * 5 + f"Answer: {answer}"),
            ],
            sampling=Sampling(max_tokens=16),
        )

    requests = [judged(q, a) for q in ("which rock", "what grade") for a in ("granite", "basalt")]
    decoded: list[int] = []
    real_decode = llama_cpp.llama_decode

    def count(ctx: Any, batch: Any) -> int:
        decoded.append(batch.n_tokens)
        return int(real_decode(ctx, batch))

    alone = [texts(engine.generate([r]))[0] for r in requests]
    monkeypatch.setattr(llama_cpp, "llama_decode", count)
    results = engine.generate(requests)
    assert texts(results) == alone

    prompts = [engine.tokenize_prompt(r.messages) for r in requests]
    plan = plan_prefixes(prompts)
    assert [(s.owner, s.copies) for s in plan.segments] == [(0, (1, 2, 3)), (0, (1,)), (2, (3,))]
    prefill = plan.prefill_tokens(prompts)
    assert prefill < sum(len(p) for p in prompts) // 2
    fed_back = sum((r.completion_tokens or 0) for r in results)  # each sampled token is decoded next step
    assert prefill <= sum(decoded) <= prefill + fed_back


def test_json_schema_replies_parse_and_respect_the_enum(engine: BatchedLlamaEngine) -> None:
    requests = [request(a, schema=VERDICT_SCHEMA, max_tokens=48) for a in ANSWERS[:2]]
    requests += [
        request(a, schema=VERDICT_SCHEMA, max_tokens=48, temperature=1.2, seed=i) for i, a in enumerate(ANSWERS)
    ]
    for result in engine.generate(requests):
        assert result.finish_reason == "stop", result
        reply = json.loads(result.text)  # strict: no raw control characters
        assert set(reply) == {"gate_passed", "awarded"}
        assert isinstance(reply["gate_passed"], bool)
        assert reply["awarded"] in (0, 1, 2, 3)


def test_bounded_strings_and_integers_stay_valid_under_hot_sampling(engine: BatchedLlamaEngine) -> None:
    """Strict ``json.loads`` passes: the grammar keeps raw control characters out of
    strings. ``maxLength`` counts what the grammar decodes; a random model's byte tokens
    can spell invalid UTF-8 that Python turns into several U+FFFD, so the length of the
    decoded reason is not checked."""
    schema = {
        "type": "object",
        "properties": {
            "awarded": {"type": "integer", "minimum": 0, "maximum": 5},
            "reason": {"type": "string", "maxLength": 10},
        },
        "required": ["awarded", "reason"],
    }
    requests = [request("x", schema=schema, max_tokens=64, temperature=1.5, seed=seed) for seed in range(12)]
    for result in engine.generate(requests):
        assert result.finish_reason == "stop", result
        reply = json.loads(result.text)
        assert reply["awarded"] in range(6) and isinstance(reply["reason"], str)


def test_greedy_is_deterministic_in_a_batch_and_run_to_run(engine: BatchedLlamaEngine, tiny_gguf: Path) -> None:
    batch = [request("the gold", max_tokens=20)] * 3
    first = texts(engine.generate(batch))
    assert first[0] == first[1] == first[2]
    assert texts(engine.generate(batch)) == first
    with BatchedLlamaEngine(tiny_gguf, n_seq_max=2, n_ctx=2048, n_threads=2) as other:
        assert texts(other.generate(batch)) == first


def test_seeded_sampling_is_reproducible(engine: BatchedLlamaEngine) -> None:
    same = [request("ore", temperature=1.0, top_k=40, top_p=0.95, seed=7)] * 2
    a = texts(engine.generate(same))
    assert a[0] == a[1]
    assert texts(engine.generate(same)) == a
    others = texts(engine.generate([request("ore", temperature=1.0, top_k=40, top_p=0.95, seed=s) for s in (8, 9)]))
    assert any(text != a[0] for text in others)


def test_without_flash_attention_sampling_ignores_the_batch(tiny_gguf: Path) -> None:
    """Flash attention's CPU kernel rounds queries to f16, moving logits by ~1e-3 with
    the batch around a sequence; without it a seeded sample matches the request alone."""
    requests = [request(a, max_tokens=32, temperature=1.0, seed=i) for i, a in enumerate(ANSWERS[:4])]
    with BatchedLlamaEngine(tiny_gguf, n_seq_max=4, n_ctx=4096, n_threads=2, flash_attn=False) as eng:
        assert texts(eng.generate(requests)) == [texts(eng.generate([r]))[0] for r in requests]


def test_batched_equals_one_at_a_time_for_greedy(engine: BatchedLlamaEngine) -> None:
    """Six different prompts over n_seq_max=4 (two waves, prefix copied to three
    sequences) give the tokens each prompt gets alone: the prefix copy is exact."""
    requests = [request(a, max_tokens=32) for a in ANSWERS]
    batched = texts(engine.generate(requests))
    alone = [texts(engine.generate([r]))[0] for r in requests]
    assert batched == alone
    assert len(set(batched)) > 1  # the prompts really lead to different continuations


def test_max_tokens_gives_length(engine: BatchedLlamaEngine) -> None:
    short, zero = engine.generate([request("vein", max_tokens=5), request("vein", max_tokens=0)])
    assert short.finish_reason == "length" and short.completion_tokens == 5
    assert zero.finish_reason == "length" and zero.text == "" and zero.completion_tokens == 0


def test_failed_requests_are_results(engine: BatchedLlamaEngine) -> None:
    too_long = CompletionRequest(messages=[ChatMessage(role="user", content="gold " * 1000)])
    bad_schema = request("x", schema={"$ref": "#/nowhere"})
    good = request("x", max_tokens=4)
    results = engine.generate([too_long, bad_schema, good])
    assert results[0].finish_reason == "error" and "tokens" in (results[0].error or "")
    assert results[1].finish_reason == "error" and "schema" in (results[1].error or "")
    assert results[2].ok and results[2].completion_tokens == 4


def test_cancel_turns_pending_work_into_errors(engine: BatchedLlamaEngine) -> None:
    cancel = threading.Event()
    cancel.set()
    results = engine.generate([request("x")], cancel=cancel)
    assert results[0].finish_reason == "error" and results[0].error == "cancelled"


def test_byte_tokens_are_joined_before_decoding(engine: BatchedLlamaEngine) -> None:
    vocab = engine._vocab
    tokens = llama_native.tokenize(vocab, "é ü 金", add_special=False)
    assert all(llama_native.token_bytes(vocab, t) != "é".encode() for t in tokens)  # split into byte tokens
    assert llama_native.detokenize(vocab, tokens).strip() == "é ü 金"


def test_chat_template_and_fallbacks(engine: BatchedLlamaEngine, tmp_path: Path) -> None:
    messages = [ChatMessage(role="system", content="S"), ChatMessage(role="user", content="U")]
    assert (
        engine.render(messages)
        == "<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nU<|im_end|>\n<|im_start|>assistant\n"
    )
    prompt = engine.tokenize_prompt(messages)
    assert prompt[0] == 1 and prompt.count(1) == 1  # one BOS
    assert 3 in prompt and 4 in prompt  # <|im_start|> and <|im_end|> are single control tokens

    bare = write_tiny_llama_gguf(tmp_path / "bare.gguf", chat_template=None)
    with BatchedLlamaEngine(bare, n_seq_max=1, n_ctx=512, n_threads=2) as eng:
        assert eng.render(messages) == "system: S\n\nuser: U\n\nassistant:"
        assert eng.generate([CompletionRequest(messages=messages, sampling=Sampling(max_tokens=3))])[0].ok

    odd = "{% for m in messages %}[[{{ m['role'] }}]] {{ m['content'] }}\n{% endfor %}{% if add_generation_prompt %}[[assistant]]{% endif %}"
    custom = write_tiny_llama_gguf(tmp_path / "custom.gguf", chat_template=odd)
    with BatchedLlamaEngine(custom, n_seq_max=1, n_ctx=512, n_threads=2) as eng:
        assert eng.render(messages) == "[[system]] S\n[[user]] U\n[[assistant]]"  # Jinja, not built in


@pytest.mark.parametrize("content", [b"just some notes\n" * 10, b"GGUF\x03\x00\x00\x00garbage"])
def test_bad_files_raise_model_file_error(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "broken.gguf"
    path.write_bytes(content)
    with pytest.raises(ModelFileError) as caught:
        BatchedLlamaEngine(path, n_threads=2)
    assert "\n" not in str(caught.value) and "broken.gguf" in str(caught.value)


def test_lora_changes_the_output(engine: BatchedLlamaEngine, tiny_gguf: Path, tiny_lora: Path) -> None:
    requests = [request(a, max_tokens=16) for a in ANSWERS[:3]]
    base = texts(engine.generate(requests))
    with BatchedLlamaEngine(tiny_gguf, lora_path=tiny_lora, n_seq_max=4, n_ctx=2048, n_threads=2) as tuned:
        assert texts(tuned.generate(requests)) != base
        described = tuned.describe()
        assert described["lora_path"] == str(tiny_lora.resolve()) and described["lora_scale"] == 1.0
        assert described["lora_sha256"] == hashlib.sha256(tiny_lora.read_bytes()).hexdigest()
    with BatchedLlamaEngine(
        tiny_gguf, lora_path=tiny_lora, lora_scale=0.0, n_seq_max=4, n_ctx=2048, n_threads=2
    ) as off:
        assert texts(off.generate(requests)) == base  # scale 0 is the base model


def test_a_model_given_as_lora_is_refused(tiny_gguf: Path) -> None:
    with pytest.raises(ModelFileError, match="not a LoRA adapter"):
        BatchedLlamaEngine(tiny_gguf, lora_path=tiny_gguf, n_threads=2)


def test_a_lora_for_another_shape_is_refused(tiny_gguf: Path, tmp_path: Path) -> None:
    wide = write_tiny_lora_gguf(tmp_path / "wide.gguf", TinyDims(width=128, layers=2, heads=4, head_count_kv=4))
    with pytest.raises(ModelFileError, match="could not load this LoRA adapter") as caught:
        BatchedLlamaEngine(tiny_gguf, lora_path=wide, n_threads=2)
    assert "incorrect shape" in str(caught.value)  # llama.cpp's own reason, on one line
    assert "\n" not in str(caught.value)


def test_an_architecture_llama_cpp_does_not_know(tmp_path: Path) -> None:
    path = tmp_path / "odd.gguf"
    writer = GGUFWriter(path, "notarealarch")
    writer.add_tensor("token_embd.weight", np.zeros((10, 8), dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    with pytest.raises(ModelFileError, match="could not load this 'notarealarch' model") as caught:
        BatchedLlamaEngine(path, n_threads=2)
    assert "unknown model architecture" in str(caught.value)


def test_describe(engine: BatchedLlamaEngine, tiny_gguf: Path) -> None:
    info = engine.describe()
    assert info["model_sha256"] == hashlib.sha256(tiny_gguf.read_bytes()).hexdigest()
    assert info["architecture"] == "llama" and info["chat_template"] is True
    assert info["model_size"] == tiny_gguf.stat().st_size and info["n_params"] > 100_000
    assert info["n_seq_max"] == 4 and info["n_ctx"] >= 4096 and info["n_ctx_seq"] == 512
    assert info["n_threads"] == 2 and info["lora_path"] is None
    assert info["llama_cpp_python"] == llama_cpp.__version__ and info["llama_cpp"]
    json.dumps(info)  # recordable as is


def test_backend_protocol(tiny_gguf: Path) -> None:
    backend = LlamaBackend(f"llama:{tiny_gguf}", tiny_gguf, n_ctx=1024, n_seq_max=2, n_threads=2)
    try:
        assert isinstance(backend, CompletionBackend)
        assert backend.describe()["spec"] == f"llama:{tiny_gguf}"
        results = backend.complete_batch([request("x", max_tokens=3)] * 3)
        assert [r.completion_tokens for r in results] == [3, 3, 3]
    finally:
        backend.close()
    backend.close()  # idempotent
    with pytest.raises(RuntimeError, match="closed"):
        backend.complete_batch([request("x")])


def rss_bytes() -> int:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * 4096


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="needs /proc")
def test_many_engines_do_not_leak(tiny_gguf: Path) -> None:
    def cycle() -> None:
        with BatchedLlamaEngine(tiny_gguf, n_seq_max=4, n_ctx=8192, n_threads=2) as eng:
            eng.generate([request("x", max_tokens=2)] * 2)

    for _ in range(3):
        cycle()
    before = rss_bytes()
    for _ in range(20):
        cycle()
    grown = rss_bytes() - before
    # Each engine holds ~10 MB of KV cache and compute buffers; 20 leaked would be ~200 MB.
    assert grown < 30 * 2**20, f"resident memory grew by {grown / 2**20:.1f} MiB over 20 engines"
