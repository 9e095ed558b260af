"""Jump-forward decoding: the text a JSON grammar forces is fed in one step, and only it.

On the tiny random model written without a space prefix (its tokens spell a text
exactly, as a BPE or Gemma 3 vocabulary's do); the default tiny model adds one and so
must decode without jumping.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import llama_cpp
import pytest

from gtreview.inference.backend import ChatMessage, CompletionRequest, Sampling
from gtreview.inference.json_grammar import schema_to_gbnf
from gtreview.inference.llama import native
from gtreview.inference.llama.engine import BatchedLlamaEngine
from gtreview.inference.llama.jump_forward import CharacterProbe
from gtreview.inference.llama.sampling import SequenceSampler
from gtreview.judging.schemas import pairwise_schema
from tests.conftest import _made_once
from tests.gguf_factory import write_tiny_llama_gguf

pytestmark = pytest.mark.native  # llama.cpp runs in this process: each test in a forked child

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "reason": {"type": "string", "maxLength": 12},
        "passed": {"type": "boolean"},
        "awards": {
            "type": "object",
            "properties": {"C1": {"enum": [0, 3]}, "C2": {"enum": [0, 1, 2]}},
            "required": ["C1", "C2"],
            "additionalProperties": False,
        },
        "verdict": {"enum": ["[[A>>B]]", "[[A>B]]", "[[B>A]]"]},
    },
    "required": ["reason", "passed", "awards", "verdict"],
    "additionalProperties": False,
}


@pytest.fixture(scope="session")
def plain_gguf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _made_once(
        tmp_path_factory, "tiny-plain.gguf", lambda path: write_tiny_llama_gguf(path, ctx=4096, space_prefix=False)
    )


@pytest.fixture(scope="module")
def engine(plain_gguf: Path) -> Iterator[BatchedLlamaEngine]:
    with BatchedLlamaEngine(plain_gguf, n_seq_max=4, n_ctx=4096, n_threads=2) as eng:
        yield eng


def requests(n: int, *, max_tokens: int = 200, temperature: float = 0.0) -> list[CompletionRequest]:
    return [
        CompletionRequest(
            messages=[ChatMessage(role="user", content=f"Judge answer {i}: the gold is in the quartz vein")],
            sampling=Sampling(temperature=temperature, seed=i, max_tokens=max_tokens),
            json_schema=SCHEMA,
        )
        for i in range(n)
    ]


class Walker:
    """A grammar sampler fed text one character token at a time, as a sequence would be."""

    def __init__(self, engine: BatchedLlamaEngine, schema: dict[str, Any]) -> None:
        self.probe = engine.probe
        self.grammar = llama_cpp.llama_sampler_init_grammar(engine._vocab, schema_to_gbnf(schema).encode(), b"root")

    def take(self, text: str) -> None:
        for char in text:
            llama_cpp.llama_sampler_accept(self.grammar, self.probe.tokens[self.probe.characters.index(char)])

    def close(self) -> None:
        llama_cpp.llama_sampler_free(self.grammar)


def test_the_forced_text_is_the_skeleton_between_the_models_choices(engine: BatchedLlamaEngine) -> None:
    probe = engine.probe
    assert probe.usable
    walker = Walker(engine, SCHEMA)
    try:
        assert probe.forced_text(walker.grammar) == ('{"reason":"', False)
        walker.take('{"reason":"')
        assert probe.forced_text(walker.grammar) == ("", False)  # a free string: the model writes
        walker.take('vein"')
        assert probe.forced_text(walker.grammar) == (',"passed":', False)
        walker.take(',"passed":t')
        assert probe.forced_text(walker.grammar) == ('rue,"awards":{"C1":', False)
        walker.take('rue,"awards":{"C1":3')
        assert probe.forced_text(walker.grammar) == (',"C2":', False)
        walker.take(',"C2":1')
        assert probe.forced_text(walker.grammar) == ('},"verdict":"[[', False)
        walker.take('},"verdict":"[[')
        assert probe.forced_text(walker.grammar) == ("", False)  # A or B
        walker.take("B")
        assert probe.forced_text(walker.grammar) == ('>A]]"}', True)  # the reply is complete
        walker.take('>A]]"}')
        assert probe.forced_text(walker.grammar) == ("", True)
    finally:
        walker.close()


def test_a_string_at_its_length_bound_forces_its_closing_quote(engine: BatchedLlamaEngine) -> None:
    walker = Walker(engine, SCHEMA)
    try:
        walker.take('{"reason":"' + "a" * 11)
        assert engine.probe.forced_text(walker.grammar) == ("", False)  # one more character, or the quote
        walker.take("a")
        assert engine.probe.forced_text(walker.grammar) == ('","passed":', False)
    finally:
        walker.close()


def test_forcing_leaves_the_grammar_where_it_was(engine: BatchedLlamaEngine) -> None:
    """The walk ahead runs on a clone: asking twice gives the same answer."""
    walker = Walker(engine, SCHEMA)
    try:
        walker.take('{"reason":"x"')
        first = engine.probe.forced_text(walker.grammar)
        assert engine.probe.forced_text(walker.grammar) == first == (',"passed":', False)
    finally:
        walker.close()


def run(engine: BatchedLlamaEngine, batch: list[CompletionRequest], *, jump: bool) -> tuple[list[Any], Any]:
    engine.jump_forward = jump
    before = engine.stats.copy()
    try:
        results = engine.generate(batch)
    finally:
        engine.jump_forward = True
    return results, engine.stats.since(before)


def check_reply(text: str) -> dict[str, Any]:
    """The reply is compact JSON of the schema's shape (the tiny model's strings are gibberish)."""
    reply: dict[str, Any] = json.loads(text)
    assert list(reply) == ["reason", "passed", "awards", "verdict"]
    assert isinstance(reply["passed"], bool) and isinstance(reply["reason"], str)
    assert reply["awards"]["C1"] in (0, 3) and reply["awards"]["C2"] in (0, 1, 2)
    assert reply["verdict"] in ("[[A>>B]]", "[[A>B]]", "[[B>A]]")
    assert json.dumps(reply, separators=(",", ":"), ensure_ascii=False) == text
    return reply


@pytest.mark.parametrize("temperature", [0.0, 0.8])
def test_jumping_gives_valid_replies_in_fewer_steps(engine: BatchedLlamaEngine, temperature: float) -> None:
    batch = requests(4, temperature=temperature)
    stepped, stepping = run(engine, batch, jump=False)
    jumped, jumping = run(engine, batch, jump=True)
    for result in [*stepped, *jumped]:
        assert result.finish_reason == "stop", result.error
        check_reply(result.text)
    assert stepping.forced_tokens == 0
    assert 0 < jumping.forced_tokens < sum(r.completion_tokens for r in jumped)
    assert jumping.steps < stepping.steps / 2  # most of a verdict is its skeleton


def test_the_answers_bound_cuts_a_forced_run(engine: BatchedLlamaEngine) -> None:
    for limit in (1, 2, 3, 5, 8):
        (result,), _ = run(engine, requests(1, max_tokens=limit), jump=True)
        assert result.finish_reason == "length"
        assert result.completion_tokens == limit
        assert len(native.tokenize(engine._vocab, result.text, add_special=False, parse_special=False)) <= limit


def test_a_complete_reply_ends_without_another_step(engine: BatchedLlamaEngine, monkeypatch: Any) -> None:
    """The schema's last choice settles the rest: the sequence ends as the rest is forced,
    in the same step, never decoded once more for an end-of-turn token."""
    pair = CompletionRequest(
        messages=[ChatMessage(role="user", content="Which answer is better?")],
        sampling=Sampling(temperature=0.0, max_tokens=200),
        json_schema=pairwise_schema(reason_chars=8),
    )
    calls: list[tuple[str | None, int]] = []  # after each sampling: how the job stands, tokens it gained
    sample = engine._sample

    def recording(job: Any, index: int) -> None:
        before = len(job.generated)
        sample(job, index)
        calls.append((job.finish, len(job.generated) - before))

    monkeypatch.setattr(engine, "_sample", recording)
    for jump in (True, False):
        calls.clear()
        (result,), _ = run(engine, [pair], jump=jump)
        assert result.finish_reason == "stop"
        assert json.loads(result.text)["verdict"] in ("[[A>>B]]", "[[A>B]]", "[[A=B]]", "[[B>A]]", "[[B>>A]]")
        finish, gained = calls[-1]
        assert finish == "stop"
        assert gained > 0 if jump else gained == 0  # stepping ends on a step that samples the end of turn
        assert all(f is None for f, _ in calls[:-1])


def test_the_sampled_token_and_the_forced_text_are_tokenized_together(engine: BatchedLlamaEngine) -> None:
    """Written out, a closing quote and the comma and key after it may be one token; the
    feed spells the sampled token's text and the forced text exactly, tokenized as one."""
    probe, vocab = engine.probe, engine._vocab
    quote = probe.tokens[probe.characters.index('"')]
    expected = native.tokenize(vocab, '","passed":', add_special=False, parse_special=False)
    for room, feed_wanted in ((64, expected), (len(expected) - 1, [quote])):
        sampler = SequenceSampler(
            vocab, Sampling(temperature=0.0), schema_to_gbnf(SCHEMA), engine._candidates, probe=probe
        )
        try:
            for char in '{"reason":"ab"':  # the closing quote as sample() accepts its token
                llama_cpp.llama_sampler_accept(sampler.grammar, probe.tokens[probe.characters.index(char)])
            feed, complete = sampler.jump(quote, room=room)
            assert (feed, complete) == (feed_wanted, False)
            if feed == [quote]:  # no room: the grammar did not move
                assert probe.forced_text(sampler.grammar) == (',"passed":', False)
            else:
                assert native.detokenize(vocab, feed) == '","passed":'
                assert probe.forced_text(sampler.grammar) == ("", False)  # it took the forced text
                assert sampler.allows(probe.tokens[probe.characters.index("t")])
        finally:
            sampler.free()


def test_free_text_is_untouched(engine: BatchedLlamaEngine) -> None:
    free = [r.model_copy(update={"json_schema": None}) for r in requests(3, max_tokens=16)]
    stepped, _ = run(engine, free, jump=False)
    jumped, stats = run(engine, free, jump=True)
    assert stats.forced_tokens == 0
    assert [r.text for r in jumped] == [r.text for r in stepped]


def test_a_vocabulary_that_prefixes_a_space_decodes_without_jumping(tiny_gguf: Path) -> None:
    """Text tokenized on its own gets a leading space there, so a forced run could not be
    tokenized as itself: that model's probe is off and its replies are still valid."""
    with BatchedLlamaEngine(tiny_gguf, n_seq_max=2, n_ctx=4096, n_threads=2) as prefixed:
        assert not CharacterProbe(prefixed._vocab).usable
        results, stats = run(prefixed, requests(2, max_tokens=120), jump=True)
    assert stats.forced_tokens == 0
    for result in results:
        assert result.finish_reason in ("stop", "length")
        if result.finish_reason == "stop":
            check_reply(result.text)


def test_forced_runs_are_counted_in_the_cells_a_request_holds(plain_gguf: Path) -> None:
    """A running request's forced tokens are cells it will take in the next step: a cache
    with room for two requests admits two, and none of them runs out of cells."""
    batch = requests(4, max_tokens=120)
    with BatchedLlamaEngine(plain_gguf, n_seq_max=4, n_ctx=4096, n_threads=2) as probe_engine:
        prompt = max(len(probe_engine.tokenize_prompt(r.messages)) for r in batch)
    cells = 2 * (prompt + 120) + 8  # two requests at their worst, not three
    with BatchedLlamaEngine(plain_gguf, n_seq_max=4, n_ctx=cells, n_threads=2) as tight:
        results = tight.generate(batch)
        assert tight.stats.forced_tokens > 0
    for result in results:
        assert result.finish_reason == "stop", result.error
        check_reply(result.text)


def test_a_spec_turns_jumping_off_and_the_verdict_records_it(plain_gguf: Path) -> None:
    """``jump=off`` on a local spec: the backend decodes every forced token in a step of
    its own, says so in its description (kept with every verdict), and still replies
    with valid verdicts."""
    from gtreview.inference.specs import open_in_process

    decoded = {}
    for option in ("", "&jump=off"):
        backend = open_in_process(f"llama:{plain_gguf}?ctx=4096&seq=2&threads=2{option}")
        try:
            results = backend.complete_batch(requests(2, max_tokens=200))
            forced = backend.engine.stats.forced_tokens  # type: ignore[attr-defined]
            decoded[option] = (backend.describe()["jump_forward"], forced, results)
        finally:
            backend.close()
    jumped, forced, _ = decoded[""]
    assert jumped is True and forced > 0
    assert decoded["&jump=off"][:2] == (False, 0)
    for _, _, results in decoded.values():
        for result in results:
            assert result.finish_reason == "stop", result.error
            check_reply(result.text)
