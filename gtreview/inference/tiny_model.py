"""A tiny random-weight llama GGUF, written with the ``gguf`` package.

``gtreview doctor`` (and Help > Check local inference) needs a model that exists on
every machine to check that llama.cpp runs here before a real model is tried; the tests
and benchmarks use the same writer. The output is gibberish, but tokenization, chat
templates, batching, the KV cache, grammars and (with ``q8_0``) the quantized matrix
kernels all run for real.

Design choices that matter:

* The vocabulary is SentencePiece-style (tokenizer model ``llama``): control tokens,
  the 256 byte tokens ``<0x00>``..``<0xFF>`` so any text can be tokenized, the printable
  ASCII characters, and word pieces. llama.cpp's SPM tokenizer only reaches a piece by
  merging two adjacent pieces that are themselves in the vocabulary, so every word is
  added with all of its prefixes (``▁g``, ``▁go``, ``▁gol``, ``▁gold``).
* Weights are scaled so that hidden states keep unit size and the logits spread by a
  few units: greedy decoding then has clear winners, so batched and one-at-a-time
  greedy runs agree despite float rounding, while seeded sampling still varies.
* ``<|im_start|>``/``<|im_end|>`` are control tokens and the chat template is ChatML,
  which llama.cpp recognises natively; ``<|im_end|>`` is the end-of-turn token.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
from gguf import GGMLQuantizationType, GGUFWriter, LlamaFileType, TokenType, quants

__all__ = ["CHATML_TEMPLATE", "DEFAULT_WORDS", "build_vocab", "write_tiny_llama_gguf"]

CHATML_TEMPLATE = (
    "{% for message in messages %}"
    "{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)

DEFAULT_WORDS: tuple[str, ...] = (
    # plain English
    "the", "a", "an", "and", "or", "of", "to", "in", "is", "are", "was", "it", "that", "this",
    "for", "on", "with", "as", "by", "be", "not", "no", "yes", "if", "each", "every", "one",
    "two", "three", "only", "must", "should", "when", "answer", "question", "reply", "return",
    "score", "points", "point", "component", "rubric", "judge", "grade", "graded", "award",
    "credit", "reference", "response", "source", "passage", "model", "correct", "wrong",
    "partial", "full", "none", "all", "gate", "reason", "contradiction", "marking", "scheme",
    "instructions", "object", "key", "keys", "value", "values", "you", "your", "are", "user",
    "system", "assistant",
    # geology
    "gold", "ore", "rock", "vein", "quartz", "granite", "basalt", "fault", "shear", "zone",
    "deposit", "mineral", "pyrite", "copper", "silver", "assay", "drill", "hole", "core",
    "metres", "grams", "tonne", "sample", "samples", "grade", "grades", "structure",
    "alteration", "sericite", "carbonate", "sulphide", "lode", "reef", "dyke", "schist",
    # JSON vocabulary
    "true", "false", "null", "gate_passed", "awarded", "verdict", "JSON",
)  # fmt: skip

# Multi-character pieces without a word-boundary marker, so JSON is cheap to emit.
JSON_PIECES: tuple[str, ...] = ('{"', '":', '",', '"}', '", "', '": ', ", ", ": ", "},", "[]", "{}", "10")


def build_vocab(words: Sequence[str], *, byte_tokens: bool = True) -> tuple[list[str], list[float], list[int]]:
    """Tokens, scores and token types of an SPM vocabulary that can spell any text
    (without ``byte_tokens``, only the printable ASCII it lists)."""
    tokens: list[str] = ["<unk>", "<s>", "</s>", "<|im_start|>", "<|im_end|>"]
    types: list[int] = [TokenType.UNKNOWN, TokenType.CONTROL, TokenType.CONTROL, TokenType.CONTROL, TokenType.CONTROL]
    for byte in range(256 if byte_tokens else 0):
        tokens.append(f"<0x{byte:02X}>")
        types.append(TokenType.BYTE)
    seen = set(tokens)
    pieces: list[str] = ["▁"] + [chr(c) for c in range(0x21, 0x7F)]
    for word in words:
        for text in ("▁" + word, word):
            pieces.extend(text[:end] for end in range(2, len(text) + 1))
    for piece in JSON_PIECES:
        pieces.extend(piece[:end] for end in range(2, len(piece) + 1))
    for piece in pieces:
        piece = piece.replace(" ", "▁")
        if piece not in seen:
            seen.add(piece)
            tokens.append(piece)
            types.append(TokenType.NORMAL)
    # SPM merges the highest-scoring pair first; longer pieces win so words stay whole.
    scores = [
        0.0 if t != TokenType.NORMAL else float(len(tok)) - i * 1e-4
        for i, (tok, t) in enumerate(zip(tokens, types, strict=True))
    ]
    return tokens, scores, [int(t) for t in types]


def write_tiny_llama_gguf(
    path: str | Path,
    *,
    width: int = 64,
    layers: int = 2,
    heads: int = 4,
    ctx: int = 512,
    seed: int = 0,
    vocab_words: Sequence[str] = DEFAULT_WORDS,
    ff: int | None = None,
    f16: bool = False,
    chat_template: str | None = CHATML_TEMPLATE,
    name: str = "tiny-random-llama",
    byte_tokens: bool = True,
    q8_0: bool = False,
    output_weight: np.ndarray | None = None,
    space_prefix: bool = True,
) -> Path:
    """Write a random-weight llama model that llama.cpp loads and runs; returns the path.
    With ``q8_0`` the weight matrices are quantized (Q8_0), so a decode runs the
    quantized matrix kernels (AMX among them, where the CPU has it). ``output_weight``
    (vocabulary x width) replaces the random output layer: a model with its head trained
    on other text, and everything else as ``seed`` makes it. ``space_prefix=False``: the
    tokenizer adds no space before the text it tokenizes (as Gemma 3's and every BPE
    vocabulary's), so a text's tokens spell exactly that text (``llama.jump_forward``
    relies on it)."""
    path = Path(path)
    rng = np.random.default_rng(seed)
    tokens, scores, types = build_vocab(vocab_words, byte_tokens=byte_tokens)
    n_vocab = len(tokens)
    n_ff = ff if ff is not None else 2 * width
    head_dim = width // heads
    wtype = np.float16 if f16 else np.float32

    def rand(rows: int, cols: int, std: float) -> np.ndarray:
        # numpy shape (rows, cols) is ggml ne = (cols, rows): cols is the input size.
        return (rng.standard_normal((rows, cols), dtype=np.float32) * std).astype(wtype)

    writer = GGUFWriter(path, "llama")
    writer.add_name(name)
    writer.add_file_type(
        LlamaFileType.MOSTLY_Q8_0 if q8_0 else LlamaFileType.MOSTLY_F16 if f16 else LlamaFileType.ALL_F32
    )
    writer.add_context_length(ctx)
    writer.add_embedding_length(width)
    writer.add_block_count(layers)
    writer.add_feed_forward_length(n_ff)
    writer.add_head_count(heads)
    writer.add_head_count_kv(heads)
    writer.add_rope_dimension_count(head_dim)
    writer.add_rope_freq_base(10000.0)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_vocab_size(n_vocab)
    writer.add_tokenizer_model("llama")
    writer.add_token_list(tokens)
    writer.add_token_scores(scores)
    writer.add_token_types(types)
    writer.add_unk_token_id(0)
    writer.add_bos_token_id(1)
    writer.add_eos_token_id(2)
    writer.add_eot_token_id(tokens.index("<|im_end|>"))
    writer.add_add_bos_token(True)
    writer.add_add_eos_token(False)
    if not space_prefix:
        writer.add_add_space_prefix(False)
    if chat_template is not None:
        writer.add_chat_template(chat_template)

    def add_matrix(name: str, matrix: np.ndarray) -> None:
        if q8_0:
            data = quants.quantize(matrix.astype(np.float32), GGMLQuantizationType.Q8_0)
            writer.add_tensor(name, data, raw_dtype=GGMLQuantizationType.Q8_0)
        else:
            writer.add_tensor(name, matrix)

    inner = 1.0 / np.sqrt(width)
    writer.add_tensor("token_embd.weight", rand(n_vocab, width, 1.0))
    for i in range(layers):
        writer.add_tensor(f"blk.{i}.attn_norm.weight", np.ones(width, dtype=np.float32))
        add_matrix(f"blk.{i}.attn_q.weight", rand(width, width, inner))
        add_matrix(f"blk.{i}.attn_k.weight", rand(width, width, inner))
        add_matrix(f"blk.{i}.attn_v.weight", rand(width, width, inner))
        add_matrix(f"blk.{i}.attn_output.weight", rand(width, width, inner))
        writer.add_tensor(f"blk.{i}.ffn_norm.weight", np.ones(width, dtype=np.float32))
        add_matrix(f"blk.{i}.ffn_gate.weight", rand(n_ff, width, inner))
        add_matrix(f"blk.{i}.ffn_up.weight", rand(n_ff, width, inner))
        add_matrix(f"blk.{i}.ffn_down.weight", rand(width, n_ff, 1.0 / np.sqrt(n_ff)))
    writer.add_tensor("output_norm.weight", np.ones(width, dtype=np.float32))
    head = rand(n_vocab, width, 3.0 * inner)  # drawn even when replaced: the rest stays as the seed makes it
    if output_weight is not None:
        if output_weight.shape != head.shape:
            raise ValueError(f"output_weight must be {head.shape}, not {output_weight.shape}")
        head = output_weight.astype(wtype)
    writer.add_tensor("output.weight", head)

    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path
