"""Batched judging on llama.cpp against one-at-a-time ``llama_cpp.Llama`` calls.

Writes the ~230 MB random "larger" llama (width 768, 8 layers, f32) into a temporary
folder, builds judge-like prompts (a shared instruction and a per-question marking
block of ~600-900 tokens, then 8 different short answers per question, 3 questions)
and times, in one run, greedy JSON-constrained replies (same grammar, same
``max_tokens``, same ``n_threads``) from:

  (a)  ``BatchedLlamaEngine.generate`` per question: the 8 answers as parallel
       sequences, the shared prompt prefilled once;
  (a') one ``generate`` call for all 24 requests (three questions in flight; the
       instruction is prefilled once, each marking block once);
  (b)  ``llama_cpp.Llama(...).create_completion`` on the same prompt texts, one after
       the other. llama-cpp-python reuses the KV prefix a prompt shares with the
       previous one, so (b) already skips the repeated prefill within a question;
  (b') the same with ``Llama.reset()`` before each call: every prompt prefilled in full,
       what a loop over independent requests pays.

Prints the times and the ratios.

    .venv/bin/python benchmarks/bench_judging.py [--threads 2] [--max-tokens 48] [--reason-chars 0]

``--reason-chars N`` adds a ``reason`` string to the verdict, so replies are longer and
decoding, where batching helps most, takes a larger share of the time.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import llama_cpp
from llama_cpp.llama_grammar import LlamaGrammar

from gtreview.inference.backend import ChatMessage, CompletionRequest, Sampling
from gtreview.inference.json_grammar import schema_to_gbnf
from gtreview.inference.llama_engine import BatchedLlamaEngine
from tests.gguf_factory import write_larger_llama_gguf

INSTRUCTION = (
    "You are a strict judge. You will be given a question, a reference answer, a marking scheme "
    "and a response. Mark the response against the marking scheme only, component by component. "
    "Do not award credit for a value that is not in the response. If the response contradicts the "
    "source passage, the gate is not passed. Return only the JSON object, with every key. "
)
QUESTIONS = [
    (
        "Which structure hosts the gold at the Main Reef deposit?",
        "The gold is in quartz veins in a shear zone in granite.",
    ),
    ("What is the assay grade of the lode in drill hole 7?", "The lode assays 3 grams of gold a tonne over 12 metres."),
    (
        "Which alteration surrounds the copper ore?",
        "Sericite and carbonate alteration with pyrite surround the copper sulphide ore.",
    ),
]
ANSWERS = [
    "The gold is in quartz veins in the shear zone.",
    "Gold is hosted by a basalt dyke.",
    "In the granite, along a fault, in quartz.",
    "I do not know.",
    "Quartz veins with pyrite in a shear zone cutting granite; the ore is a lode.",
    "The deposit is a reef of silver.",
    "Gold in carbonate alteration around the vein.",
    "The shear zone hosts it.",
]
VERDICT_SCHEMA = {
    "type": "object",
    "properties": {"gate_passed": {"type": "boolean"}, "awarded": {"enum": [0, 1, 2, 3]}},
    "required": ["gate_passed", "awarded"],
}


def marking_block(question: str, reference: str) -> str:
    components = "".join(
        f"Component C{i}: award up to {3 - i % 2} points when the response names the {part}; "
        f"award no points for a wrong {part}; do not credit a guess. "
        for i, part in enumerate(["host rock", "structure", "mineral", "grade", "alteration", "ore"] * 2, start=1)
    )
    return f"Question: {question}\nReference answer: {reference}\nMarking scheme: {components}"


def judge_messages(question: str, reference: str, answer: str) -> list[ChatMessage]:
    return [
        ChatMessage(role="system", content=INSTRUCTION * 2),
        ChatMessage(role="user", content=f"{marking_block(question, reference)}\nResponse: {answer}"),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--max-tokens", type=int, default=48)
    parser.add_argument("--reason-chars", type=int, default=0, help="add a reason string of up to N characters")
    args = parser.parse_args()
    schema = VERDICT_SCHEMA
    if args.reason_chars:
        schema = json.loads(json.dumps(VERDICT_SCHEMA))
        schema["properties"]["reason"] = {"type": "string", "maxLength": args.reason_chars}
        schema["required"].append("reason")

    with tempfile.TemporaryDirectory(prefix="gtreview-bench-") as tmp:
        started = time.perf_counter()
        model = write_larger_llama_gguf(Path(tmp) / "larger.gguf")
        print(f"model: {model.stat().st_size / 2**20:.0f} MiB written in {time.perf_counter() - started:.1f} s")

        sampling = Sampling(temperature=0.0, max_tokens=args.max_tokens)
        batches = [
            [
                CompletionRequest(messages=judge_messages(q, ref, a), sampling=sampling, json_schema=schema)
                for a in ANSWERS
            ]
            for q, ref in QUESTIONS
        ]

        # (a) batched engine, one generate call per question; (a') all questions at once.
        engine = BatchedLlamaEngine(model, n_seq_max=len(ANSWERS) * len(QUESTIONS), n_ctx=8192, n_threads=args.threads)
        prompts = [[engine.render(r.messages) for r in batch] for batch in batches]
        lengths = [len(engine.tokenize_prompt(r.messages)) for batch in batches for r in batch]
        shared = [
            len(
                engine.tokenize_prompt(
                    [*batch[0].messages[:1], ChatMessage(role="user", content=marking_block(q, ref))]
                )
            )
            for batch, (q, ref) in zip(batches, QUESTIONS, strict=True)
        ]
        print(
            f"prompts: {min(lengths)}-{max(lengths)} tokens; instruction + marking block ~{min(shared)}-{max(shared)} tokens"
        )
        engine.generate(batches[0][:1])  # warm-up, not timed
        started = time.perf_counter()
        batched = [engine.generate(batch) for batch in batches]
        t_batched = time.perf_counter() - started
        started = time.perf_counter()
        together = engine.generate([r for batch in batches for r in batch])
        t_together = time.perf_counter() - started
        engine.close()

        # (b) one at a time through the high-level API, same texts, same grammar; (b') no reuse.
        grammar = LlamaGrammar.from_string(schema_to_gbnf(schema), verbose=False)
        llm = llama_cpp.Llama(
            str(model), n_ctx=2048, n_threads=args.threads, n_threads_batch=args.threads, verbose=False
        )
        llm.create_completion(prompts[0][0], max_tokens=1, temperature=0.0)  # warm-up, not timed
        llm.reset()
        timings = {}
        replies: dict[bool, list[str]] = {}
        for reuse in (True, False):
            started = time.perf_counter()
            replies[reuse] = []
            for p in (p for batch in prompts for p in batch):
                if not reuse:
                    llm.reset()
                out = llm.create_completion(p, max_tokens=args.max_tokens, temperature=0.0, grammar=grammar)
                replies[reuse].append(out["choices"][0]["text"])
            timings[reuse] = time.perf_counter() - started
        llm.close()

    flat = [r for batch in batched for r in batch]
    n = len(flat)
    tokens = sum(r.completion_tokens or 0 for r in flat)
    valid = sum(1 for r in flat if r.finish_reason == "stop" and _parses(r.text))
    same = sum(1 for r, text in zip(flat, replies[True], strict=True) if r.text == text)
    same_together = sum(1 for a, b in zip(flat, together, strict=True) if a.text == b.text)
    t_reuse, t_cold = timings[True], timings[False]
    print(
        f"(a)  engine, {len(ANSWERS)} sequences per call, {len(QUESTIONS)} calls:   {t_batched:6.2f} s  ({tokens} tokens generated)"
    )
    print(f"(a') engine, all {n} requests in one call:            {t_together:6.2f} s")
    print(f"(b)  llama_cpp.Llama one at a time (prefix reuse):    {t_reuse:6.2f} s")
    print(f"(b') llama_cpp.Llama one at a time (reset each call): {t_cold:6.2f} s")
    print(f"speed-up (b)/(a) {t_reuse / t_batched:.2f}x   (b)/(a') {t_reuse / t_together:.2f}x")
    print(f"speed-up (b')/(a) {t_cold / t_batched:.2f}x  (b')/(a') {t_cold / t_together:.2f}x")
    print(
        f"replies: {valid}/{n} valid JSON; {same}/{n} identical to (b); {same_together}/{n} identical between (a) and (a')"
    )


def _parses(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


if __name__ == "__main__":
    main()
