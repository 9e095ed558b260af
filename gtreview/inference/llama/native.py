"""Typed helpers over llama-cpp-python's ctypes bindings (the low-level llama.h API).

The batched engine needs what the high-level ``Llama`` class hides: a ``llama_batch``
holding tokens of several sequences, one sampler chain per sequence, and direct
tokenizer and chat-template calls. These helpers keep the ctypes details (buffer
sizing, pointer ownership, byte strings) in one place so the engine reads as the
algorithm it is. Everything here works on raw pointers that the caller owns.
"""

from __future__ import annotations

import ctypes
import hashlib
import logging
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import llama_cpp
import numpy as np

from gtreview.inference.backend import ChatMessage, Sampling
from gtreview.inference.gguf_check import ModelFileError

_backend_lock = threading.Lock()
_backend_ready = False

# llama.cpp treats this seed value as "pick a random seed".
_RANDOM_SEED = 0xFFFFFFFF
# llama_token_data's layout, to read and write an array of them through numpy.
TOKEN_DATA = np.dtype([("id", "<i4"), ("logit", "<f4"), ("p", "<f4")])

# ggml_log_level as llama.cpp 0.5 numbers it (llama-cpp-python 0.3.36's own callback uses
# an older numbering and prints warnings as errors): 1 debug, 2 info, 3 warn, 4 error, 5 cont.
_LOG_LEVELS = {1: logging.DEBUG, 2: logging.INFO, 3: logging.WARNING, 4: logging.ERROR}
log = logging.getLogger("gtreview.inference.llama_cpp")
_last_level = logging.INFO
_first_error: str | None = None


def _on_native_log(level: int, text: bytes | None, user_data: Any) -> None:
    """Route llama.cpp's log lines to Python logging; remember the first error line (the
    specific cause; later lines only say that loading failed)."""
    global _last_level, _first_error
    py_level = _last_level if level == 5 else _LOG_LEVELS.get(level, logging.INFO)
    _last_level = py_level
    message = (text or b"").decode("utf-8", errors="replace").rstrip()
    if not message or message == ".":
        return
    if py_level >= logging.ERROR and _first_error is None:
        _first_error = message
    log.log(py_level, "%s", message)


_native_log_callback = llama_cpp.llama_log_callback(_on_native_log)  # kept alive for the process


def ensure_backend(verbose: bool) -> None:
    """Initialise llama.cpp once per process and send its log to ``log`` (errors only
    unless ``verbose``)."""
    global _backend_ready
    log.setLevel(logging.DEBUG if verbose else logging.ERROR)
    with _backend_lock:
        if not _backend_ready:
            llama_cpp.llama_log_set(_native_log_callback, ctypes.c_void_p(0))
            llama_cpp.llama_backend_init()
            _backend_ready = True


def take_first_error() -> str | None:
    """The first error llama.cpp logged since the previous call, for one-line messages."""
    global _first_error
    message, _first_error = _first_error, None
    return " ".join(message.split()) if message else None


_sha_cache: dict[tuple[str, int, int], str] = {}
_sha_lock = threading.Lock()


def file_sha256(path: Path) -> str:
    """sha256 of a file, cached per (path, size, mtime): model files are gigabytes."""
    stat = path.stat()
    key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
    with _sha_lock:
        if key not in _sha_cache:
            with path.open("rb") as handle:
                _sha_cache[key] = hashlib.file_digest(handle, "sha256").hexdigest()
        return _sha_cache[key]


def default_threads() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def tokenize(vocab: Any, text: str, *, add_special: bool, parse_special: bool = True) -> list[int]:
    """Token ids of ``text``; ``parse_special`` lets template markers become control tokens."""
    data = text.encode("utf-8")
    capacity = len(data) + 8
    for _ in range(2):
        buf = (llama_cpp.llama_token * capacity)()
        n = int(llama_cpp.llama_tokenize(vocab, data, len(data), buf, capacity, add_special, parse_special))
        if n >= 0:
            return list(buf[:n])
        capacity = -n
    raise RuntimeError("llama_tokenize failed to size its buffer")


def token_bytes(vocab: Any, token: int, *, special: bool = False) -> bytes:
    """The raw bytes of one token; control tokens render as their text (``<|im_start|>``)
    when ``special``, else as nothing."""
    buf = ctypes.create_string_buffer(64)
    n = int(llama_cpp.llama_token_to_piece(vocab, token, buf, 64, 0, special))
    if n < 0:
        buf = ctypes.create_string_buffer(-n)
        n = int(llama_cpp.llama_token_to_piece(vocab, token, buf, -n, 0, special))
    return buf.raw[: max(n, 0)]


def detokenize(vocab: Any, tokens: Sequence[int], *, special: bool = False) -> str:
    """Text of a whole token list: bytes are joined first because byte tokens split UTF-8."""
    return b"".join(token_bytes(vocab, t, special=special) for t in tokens).decode("utf-8", errors="replace")


def model_chat_template(model: Any) -> str | None:
    raw = llama_cpp.llama_model_chat_template(model, None)
    return raw.decode("utf-8", errors="replace") if raw else None


def apply_chat_template(template: str, messages: Sequence[ChatMessage]) -> str | None:
    """Render ``messages`` with llama.cpp's built-in template engine, or None if unsupported.

    llama.cpp recognises the common template families (ChatML, Llama 2/3, Mistral,
    Gemma, Phi, ...) from the model's Jinja text and renders them natively, without
    running the Jinja, and ends with the assistant prefix.
    """
    keep = [(m.role.encode("utf-8"), m.content.encode("utf-8")) for m in messages]
    chat = (llama_cpp.llama_chat_message * len(keep))()
    for i, (role, content) in enumerate(keep):
        chat[i].role = role
        chat[i].content = content
    tmpl = template.encode("utf-8")
    size = max(256, 2 * sum(len(r) + len(c) for r, c in keep) + 256)
    for _ in range(2):
        buf = ctypes.create_string_buffer(size)
        n = int(llama_cpp.llama_chat_apply_template(tmpl, chat, len(keep), True, buf, size))
        if n < 0:
            return None
        if n <= size:
            return buf.raw[:n].decode("utf-8", errors="replace")
        size = n
    return None


class PromptTooLong(ValueError):
    """A chat template that wrote past its bound while rendering (one that loops)."""


def render_jinja(
    template: str, messages: Sequence[ChatMessage], bos: str, eos: str, *, max_chars: int | None = None
) -> str | None:
    """Render a template llama.cpp does not know with Jinja, as llama-cpp-python does.

    With ``max_chars`` the output is read as Jinja writes it and the rendering stops
    with PromptTooLong past that many characters: a template whose loops write without
    end would otherwise fill the worker's memory until its time bound ran out."""
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    try:
        formatter = Jinja2ChatFormatter(template=template, eos_token=eos, bos_token=bos, add_generation_prompt=True)
        payload: list[Any] = [{"role": m.role, "content": m.content} for m in messages]
        # The compiled template, to read its output piece by piece (the formatter renders it whole).
        compiled = getattr(formatter, "_environment", None)
        if max_chars is None or compiled is None:
            return str(formatter(messages=payload).prompt)
        return _bounded_render(compiled, formatter, payload, max_chars)
    except PromptTooLong:
        raise
    except Exception:  # noqa: BLE001 - any template error means: fall back to plain text
        return None


def _raise_exception(message: str) -> None:
    raise ValueError(message)


def _bounded_render(compiled: Any, formatter: Any, payload: list[Any], max_chars: int) -> str:
    """The formatter's rendering (the same variables it passes), cut off past ``max_chars``."""
    parts: list[str] = []
    size = 0
    for part in compiled.generate(
        messages=payload,
        eos_token=formatter.eos_token,
        bos_token=formatter.bos_token,
        raise_exception=_raise_exception,
        add_generation_prompt=formatter.add_generation_prompt,
        functions=None,
        function_call=None,
        tools=None,
        tool_choice=None,
        strftime_now=formatter.strftime_now,
    ):
        size += len(part)
        if size > max_chars:
            raise PromptTooLong(
                f"the chat template wrote more than {max_chars:,} characters for one prompt, more than a "
                "sequence can hold (a template that loops); the model's chat template needs fixing"
            )
        parts.append(part)
    return "".join(parts)


def render_chat(template: str | None, messages: Sequence[ChatMessage], bos: str, eos: str, max_chars: int) -> str:
    """The prompt text: ``template`` rendered natively by llama.cpp, else with Jinja
    (templates llama.cpp does not recognise; PromptTooLong past ``max_chars``), else
    plain ``role: content``."""
    if template:
        text = apply_chat_template(template, messages)
        if text is None:
            text = render_jinja(template, messages, bos, eos, max_chars=max_chars)
        if text is not None:
            return text
    return render_plain(messages)


def token_text(vocab: Any, token: int) -> str:
    """A token's text as the vocabulary spells it ('' for no token)."""
    if token < 0:
        return ""
    raw = llama_cpp.llama_vocab_get_text(vocab, token)
    return raw.decode("utf-8", errors="replace") if raw else ""


def render_plain(messages: Sequence[ChatMessage]) -> str:
    """A neutral rendering for models without a chat template (base models)."""
    return "".join(f"{m.role}: {m.content}\n\n" for m in messages) + "assistant:"


def new_sampler(vocab: Any, sampling: Sampling, grammar: str | None) -> Any:
    """A sampler chain for one sequence: grammar first, then greedy or seeded sampling.

    The grammar must run first so later stages only see tokens it allows. Returns the
    chain pointer (caller frees it with ``llama_sampler_free``); raises ValueError when
    llama.cpp rejects the grammar.
    """
    params = llama_cpp.llama_sampler_chain_default_params()
    params.no_perf = True
    chain = llama_cpp.llama_sampler_chain_init(params)
    try:
        if grammar is not None:
            rule = llama_cpp.llama_sampler_init_grammar(vocab, grammar.encode("utf-8"), b"root")
            if not rule:
                raise ValueError("llama.cpp rejected the grammar built from the JSON schema")
            llama_cpp.llama_sampler_chain_add(chain, rule)
        if sampling.temperature <= 0:
            llama_cpp.llama_sampler_chain_add(chain, llama_cpp.llama_sampler_init_greedy())
        else:
            if sampling.top_k > 0:
                llama_cpp.llama_sampler_chain_add(chain, llama_cpp.llama_sampler_init_top_k(sampling.top_k))
            if 0 < sampling.top_p < 1:
                llama_cpp.llama_sampler_chain_add(chain, llama_cpp.llama_sampler_init_top_p(sampling.top_p, 1))
            llama_cpp.llama_sampler_chain_add(chain, llama_cpp.llama_sampler_init_temp(sampling.temperature))
            # Any int seed maps to a fixed 32-bit seed, never to llama.cpp's "random" value.
            seed = sampling.seed % _RANDOM_SEED
            llama_cpp.llama_sampler_chain_add(chain, llama_cpp.llama_sampler_init_dist(seed))
    except BaseException:
        llama_cpp.llama_sampler_free(chain)
        raise
    return chain


class TokenBatch:
    """A ``llama_batch`` of up to ``capacity`` tokens, one sequence id each."""

    def __init__(self, capacity: int, n_seq_max: int) -> None:
        self.capacity = capacity
        self.raw = llama_cpp.llama_batch_init(capacity, 0, n_seq_max)
        self.n_tokens = 0
        self._freed = False

    def clear(self) -> None:
        self.n_tokens = 0
        self.raw.n_tokens = 0

    def add(self, token: int, pos: int, seq_id: int, logits: bool) -> int:
        """Append one token; returns its index (the index for ``llama_sampler_sample``)."""
        i = self.n_tokens
        if i >= self.capacity:
            raise IndexError("llama_batch is full")
        raw = self.raw
        raw.token[i] = token
        raw.pos[i] = pos
        raw.n_seq_id[i] = 1
        raw.seq_id[i][0] = seq_id
        raw.logits[i] = 1 if logits else 0
        self.n_tokens = i + 1
        raw.n_tokens = self.n_tokens
        return i

    def free(self) -> None:
        if not self._freed:
            self._freed = True
            llama_cpp.llama_batch_free(self.raw)


class NativeHandles:
    """The native objects of one engine: created in order, freed once in reverse order.

    ``free`` is what the engine's finalizer calls, so it must not refer to the engine.
    """

    def __init__(self) -> None:
        self.model: Any = None
        self.ctx: Any = None
        self.adapter: Any = None
        self.batch: TokenBatch | None = None

    def load_model(self, path: Path, n_gpu_layers: int, architecture: str) -> None:
        params = llama_cpp.llama_model_default_params()
        params.n_gpu_layers = n_gpu_layers
        take_first_error()
        self.model = llama_cpp.llama_model_load_from_file(str(path).encode("utf-8"), params) or None
        if self.model is None:
            reason = take_first_error() or "unsupported architecture or damaged file?"
            raise ModelFileError(f"{path}: llama.cpp could not load this {architecture!r} model ({reason})")

    def new_context(
        self, *, n_ctx: int, n_batch: int, n_seq_max: int, n_threads: int, n_threads_batch: int, flash_attn: bool | None
    ) -> None:
        """One context for ``n_seq_max`` sequences over a unified KV cache of ``n_ctx`` cells,
        and a batch of ``n_batch`` tokens to feed it."""
        params = llama_cpp.llama_context_default_params()
        params.n_ctx = n_ctx
        params.n_batch = params.n_ubatch = min(n_batch, n_ctx)
        params.n_seq_max = n_seq_max
        params.n_threads = n_threads
        params.n_threads_batch = n_threads_batch
        params.kv_unified = True  # one cell store for all sequences, so a prefix can be shared
        params.no_perf = True
        if flash_attn is not None:
            params.flash_attn_type = (
                llama_cpp.LLAMA_FLASH_ATTN_TYPE_ENABLED if flash_attn else llama_cpp.LLAMA_FLASH_ATTN_TYPE_DISABLED
            )
        self.ctx = llama_cpp.llama_init_from_model(self.model, params) or None
        if self.ctx is None:
            raise RuntimeError(
                f"llama.cpp could not create a context of {n_ctx} tokens x {n_seq_max} sequences (out of memory?)"
            )
        self.batch = TokenBatch(int(llama_cpp.llama_n_batch(self.ctx)), n_seq_max)

    def apply_lora(self, path: Path, scale: float) -> None:
        take_first_error()
        self.adapter = llama_cpp.llama_adapter_lora_init(self.model, str(path).encode("utf-8")) or None
        if self.adapter is None:
            reason = take_first_error() or "shapes do not match?"
            raise ModelFileError(f"{path}: llama.cpp could not load this LoRA adapter for the model ({reason})")
        adapters = (llama_cpp.llama_adapter_lora_p_ctypes * 1)(self.adapter)
        scales = (ctypes.c_float * 1)(scale)
        if llama_cpp.llama_set_adapters_lora(self.ctx, adapters, 1, scales) != 0:
            raise ModelFileError(f"{path}: llama.cpp could not apply the LoRA adapter")

    def free(self) -> None:
        if self.batch is not None:
            self.batch.free()
            self.batch = None
        if self.ctx is not None:
            llama_cpp.llama_free(self.ctx)
            self.ctx = None
        if self.adapter is not None:
            llama_cpp.llama_adapter_lora_free(self.adapter)
            self.adapter = None
        if self.model is not None:
            llama_cpp.llama_model_free(self.model)
            self.model = None
