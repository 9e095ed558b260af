"""Batched local generation with llama.cpp's low-level API, and the backend built on it.

llama-cpp-python's high-level ``Llama`` decodes one sequence at a time, so K repeats of
a question (or a judge's 8 answers under one long rubric) pay for the prompt K times and
decode one token per forward pass. This engine instead holds one context with
``n_seq_max`` sequences (slots) over a unified KV cache (``kv_unified=True``):

1. it renders each request with the model's chat template and tokenizes it;
2. it sorts the requests by prompt and admits them into free slots as they fit, one
   decode step after another (continuous batching, :mod:`.schedule`): a sequence
   that ends frees its slot for the next request at once;
3. an admitted request takes the longest prompt prefix already in the cache (another
   sequence's, running or finished) by ``llama_memory_seq_cp``, which in a unified cache
   adds sequence ids to cells and copies no data; requests admitted together prefill
   each stretch they share once (:mod:`.prefix_plan`), then their own suffixes;
4. every step decodes all live sequences (and the new requests' suffixes) in one
   ``llama_batch``, each sequence with its own sampler (:mod:`.sampling`: greedy
   or seeded sampling, and the request's JSON-schema grammar checked lazily), until
   end-of-generation or ``max_tokens``.

A request is admitted only when the cells in use plus its own and every running
request's worst case fit in ``n_ctx``, so a result never depends on what else is being
decoded beyond float rounding. Failures are results (``finish_reason="error"``); each
result can be handed to the caller as soon as its request ends (``on_result``).

With layers offloaded to a GPU, a cache and parallelism the caller left unset (``n_ctx``/
``n_seq_max`` None: 8192 cells, 8 sequences) are shrunk to what the GPU's free memory holds
once the weights are loaded (:mod:`..memory_fit`); logged and in ``describe()``.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import llama_cpp

from gtreview.inference import memory_fit
from gtreview.inference.backend import (
    ChatMessage,
    CompletionRequest,
    CompletionResult,
    ResultCallback,
)
from gtreview.inference.context_fit import PromptCounts
from gtreview.inference.gguf_check import GgufInfo, check_adapter_file, check_model_file
from gtreview.inference.json_grammar import SchemaGrammarError, schema_to_gbnf
from gtreview.inference.llama import bounds
from gtreview.inference.llama import devices as llama_devices
from gtreview.inference.llama import native as native
from gtreview.inference.llama import scoring as llama_scoring
from gtreview.inference.llama.jump_forward import CharacterProbe
from gtreview.inference.llama.provenance import describe_engine
from gtreview.inference.llama.sampling import Candidates
from gtreview.inference.llama.schedule import DecodeError, Job, Scheduler
from gtreview.inference.llama.stats import EngineStats

log = logging.getLogger(__name__)

DEFAULT_N_CTX = 8192  # cache cells when the caller sets none (shrunk to fit a GPU)
DEFAULT_N_SEQ_MAX = 8  # parallel sequences when the caller sets none (likewise)


class BatchedLlamaEngine:
    """A GGUF model (plus optional LoRA) decoding many requests as parallel sequences."""

    def __init__(
        self,
        model_path: str | Path,
        *,
        lora_path: str | Path | None = None,
        lora_scale: float = 1.0,
        n_seq_max: int | None = None,
        n_ctx: int | None = None,
        n_batch: int = 512,
        n_gpu_layers: int = -1,
        n_threads: int | None = None,
        n_threads_batch: int | None = None,
        flash_attn: bool | None = None,
        verbose: bool = False,
    ) -> None:
        """``flash_attn=None`` lets llama.cpp choose (on where it helps). With it on, the
        CPU kernel rounds queries to f16, so a sequence's logits move by ~1e-3 with the
        batch around it: greedy output is stable, seeded sampling may diverge from the
        same request run alone. Off, the difference is ~1e-6 on the random test model;
        a 4-bit real model is far more sensitive either way (SmolLM2 moves single tokens'
        log p by up to ~0.4 nats: tests/inference/test_scoring_reference.py).

        ``n_ctx``/``n_seq_max`` None: the defaults (8192 cells, 8 sequences), which the
        engine may shrink to fit the free memory of the GPU the layers are offloaded to;
        a value given is used as given."""
        self.requested_ctx = n_ctx
        self.requested_seq = n_seq_max
        n_ctx = DEFAULT_N_CTX if n_ctx is None else n_ctx
        n_seq_max = DEFAULT_N_SEQ_MAX if n_seq_max is None else n_seq_max
        if n_seq_max < 1 or n_ctx < 16 or n_batch < 1:
            raise ValueError("n_seq_max, n_ctx and n_batch must be positive (n_ctx at least 16)")
        self.model_path = Path(model_path)
        self.info: GgufInfo = check_model_file(self.model_path)
        self.lora_path = Path(lora_path) if lora_path is not None else None
        self.lora_info = check_adapter_file(self.lora_path, self.info) if self.lora_path is not None else None
        self.lora_scale = float(lora_scale)
        self.n_seq_max = n_seq_max
        self.n_gpu_layers = n_gpu_layers
        self.n_threads = n_threads or native.default_threads()
        self.n_threads_batch = n_threads_batch or self.n_threads
        self.flash_attn = flash_attn
        self.devices: list[llama_devices.Device] = []
        self.offloaded_layers = 0
        self.memory_fit: memory_fit.MemoryFit | None = None
        self._lock = threading.Lock()
        self._grammars: dict[str, str] = {}
        self.stats = EngineStats(slots=n_seq_max)  # summed over calls; a benchmark reads differences
        self.lazy_grammar = True  # False: the grammar filters the whole vocabulary every step
        self.jump_forward = True  # False: text the grammar forces is decoded a token a step
        self.numpy_top_p = True  # False: llama.cpp's chain draws top-p too (llama.nucleus)
        self.max_output_bytes = bounds.MAX_OUTPUT_BYTES  # per answer (llama.bounds); a test may lower it
        self._on_result: ResultCallback | None = None
        self._native = native.NativeHandles()
        self._finalizer = weakref.finalize(self, self._native.free)
        native.ensure_backend(verbose)
        try:
            self._load(n_ctx, n_batch)
        except BaseException:
            self.close()
            raise

    def _load(self, n_ctx: int, n_batch: int) -> None:
        nat = self._native
        nat.load_model(self.model_path, self.n_gpu_layers, self.info.architecture)
        self._vocab = llama_cpp.llama_model_get_vocab(nat.model)
        n_vocab = int(llama_cpp.llama_vocab_n_tokens(self._vocab))
        self._candidates = Candidates(n_vocab)
        self._probe: CharacterProbe | None = None  # built when a grammar first asks (llama.jump_forward)
        n_ctx = self._fit_to_gpu(n_ctx, n_batch, n_vocab)
        nat.new_context(
            n_ctx=n_ctx,
            n_batch=n_batch,
            n_seq_max=self.n_seq_max,
            n_threads=self.n_threads,
            n_threads_batch=self.n_threads_batch,
            flash_attn=self.flash_attn,
        )
        self.n_ctx = int(llama_cpp.llama_n_ctx(nat.ctx))
        # With a unified cache one sequence could use all n_ctx cells; past the training
        # context a model degrades, so each sequence stops there (as llama-server does).
        n_ctx_train = int(llama_cpp.llama_model_n_ctx_train(nat.model))
        self.n_ctx_seq = min(self.n_ctx, n_ctx_train) if n_ctx_train > 0 else self.n_ctx
        self.n_batch = int(llama_cpp.llama_n_batch(nat.ctx))
        self._memory = llama_cpp.llama_get_memory(nat.ctx)
        if self.lora_path is not None:
            nat.apply_lora(self.lora_path, self.lora_scale)
        self.chat_template = native.model_chat_template(nat.model)
        self._bos_text = native.token_text(self._vocab, int(llama_cpp.llama_vocab_bos(self._vocab)))
        self._eos_text = native.token_text(self._vocab, int(llama_cpp.llama_vocab_eos(self._vocab)))
        self._adds_bos = bool(llama_cpp.llama_vocab_get_add_bos(self._vocab))

    def _fit_to_gpu(self, n_ctx: int, n_batch: int, n_vocab: int) -> int:
        """The cache size to create, shrunk (with ``n_seq_max``) to the free memory of the
        GPUs the layers went to when the caller left them unset; read after the weights
        are loaded, so what they took is already gone from the free figure. The model's
        shape comes from its GGUF metadata (checked before loading)."""
        self.devices = llama_devices.list_devices()
        gpus = [d for d in self.devices if d.offloads]
        shape = memory_fit.kv_shape(self.info.metadata, self.info.architecture)
        n_layer = self.info.block_count or (shape.n_layer if shape is not None else 0)
        self.offloaded_layers = memory_fit.offloaded_layers(
            self.n_gpu_layers, n_layer, llama_devices.supports_gpu_offload(), len(gpus)
        )
        if self.offloaded_layers == 0 or (self.requested_ctx is not None and self.requested_seq is not None):
            return n_ctx
        if shape is None:
            log.info(
                "%s: the KV cache's shape is not in the model's metadata; n_ctx not fitted to the GPU",
                self.model_path.name,
            )
            return n_ctx
        flash = self.flash_attn is not False  # llama.cpp's auto turns it on where the GPU has it
        overhead, scratch = memory_fit.compute_estimate(
            n_batch=min(n_batch, n_ctx),
            n_vocab=n_vocab,
            n_embd=self.info.embedding_length or 0,
            n_head=shape.n_head,
            flash_attn=flash,
        )
        fit = memory_fit.fit_to_memory(
            free_bytes=sum(d.free for d in gpus),
            bytes_per_cell=shape.bytes_per_cell(layers_offloaded=self.offloaded_layers) + scratch,
            n_ctx=n_ctx,
            n_seq_max=self.n_seq_max,
            overhead_bytes=overhead,
            ctx_fixed=self.requested_ctx is not None,
            seq_fixed=self.requested_seq is not None,
            where=", ".join(f"{d.name} ({d.description})" for d in gpus),
        )
        self.memory_fit = fit
        log.log(logging.INFO if fit.fits else logging.WARNING, "%s: %s", self.model_path.name, fit.reason)
        self.n_seq_max = fit.n_seq_max
        self.stats.slots = fit.n_seq_max
        return fit.n_ctx

    # -- lifecycle ---------------------------------------------------------------

    @property
    def closed(self) -> bool:
        return not self._finalizer.alive

    def close(self) -> None:
        """Free the context, adapter and model now (idempotent; waits for a running generate)."""
        with self._lock:
            self._finalizer()

    def __enter__(self) -> BatchedLlamaEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- prompts -----------------------------------------------------------------

    def render(self, messages: Sequence[ChatMessage]) -> str:
        """The prompt text, its length bounded (``native.render_chat``, ``llama.bounds``)."""
        prompt_bound = bounds.prompt_chars(self.n_ctx_seq)
        return native.render_chat(self.chat_template, messages, self._bos_text, self._eos_text, prompt_bound)

    def tokenize_prompt(self, messages: Sequence[ChatMessage]) -> list[int]:
        text = self.render(messages)
        # A template that writes the BOS text itself must not get a second BOS.
        add_special = not (self._adds_bos and self._bos_text and text.startswith(self._bos_text))
        return native.tokenize(self._vocab, text, add_special=add_special)

    @property
    def probe(self) -> CharacterProbe:
        """The vocabulary's one-character tokens, found on first use: an engine that is
        never asked for JSON never tokenizes them."""
        if self._probe is None:
            self._probe = CharacterProbe(self._vocab)
        return self._probe

    def _grammar(self, schema: dict[str, Any]) -> str:
        key = json.dumps(schema, sort_keys=True)
        if key not in self._grammars:
            self._grammars[key] = schema_to_gbnf(schema)
        return self._grammars[key]

    # -- generation --------------------------------------------------------------

    def generate(
        self,
        requests: Sequence[CompletionRequest],
        cancel: threading.Event | None = None,
        on_result: ResultCallback | None = None,
    ) -> list[CompletionResult]:
        """One result per request, in order; requests are decoded as parallel sequences,
        continuously batched. ``on_result(index, result)`` is called as each one ends."""
        with self._lock:
            if self.closed:
                raise RuntimeError("the engine is closed")
            jobs = [self._prepare(index, request) for index, request in enumerate(requests)]
            self._on_result = on_result
            try:
                self._report(jobs)
                self._run_jobs([j for j in jobs if j.finish is None], cancel)
                self._report(jobs)
            finally:
                self._on_result = None
            return [self._result(job) for job in jobs]

    def _run_jobs(self, jobs: Sequence[Job], cancel: threading.Event | None) -> None:
        """Run prepared jobs to their end through the continuous-batching scheduler."""
        Scheduler(self, cancel).run(jobs)

    def _report(self, jobs: Sequence[Job]) -> None:
        """Hand each newly finished job's result to the caller's ``on_result``."""
        if self._on_result is None:
            return
        for job in jobs:
            if job.finish is not None and not job.reported:
                job.reported = True
                self._on_result(job.index, self._result(job))

    def _prepare(self, index: int, request: CompletionRequest) -> Job:
        job = Job(index=index, request=request, prompt=[], grammar=None)
        try:
            job.prompt = self.tokenize_prompt(request.messages)
            if request.json_schema is not None:
                job.grammar = self._grammar(request.json_schema)
        except (SchemaGrammarError, native.PromptTooLong) as exc:
            job.finish, job.error = "error", str(exc)
            return job
        if not job.prompt:
            job.finish, job.error = "error", "the prompt is empty"
        elif len(job.prompt) >= self.n_ctx_seq:
            job.finish, job.error = (
                "error",
                f"the prompt has {len(job.prompt)} tokens; a sequence holds {self.n_ctx_seq}",
            )
        elif job.max_tokens == 0:
            job.finish = "length"
        return job

    def _decode(
        self, entries: Sequence[tuple[int, int, int, bool]], on_logits: Callable[[int, int], None] | None = None
    ) -> tuple[float, float]:
        """Decode (token, pos, seq, want_logits) entries in n_batch chunks, calling ``on_logits(seq,
        index)`` for each output after its chunk. Returns the seconds in ``llama_decode`` and in
        ``on_logits`` (the rest is filling the batch): where a step's time goes."""
        batch = self._native.batch
        assert batch is not None
        in_decode = in_callback = 0.0
        for start in range(0, len(entries), self.n_batch):
            batch.clear()
            outputs = []
            for token, pos, seq, want in entries[start : start + self.n_batch]:
                index = batch.add(token, pos, seq, want)
                if want:
                    outputs.append((seq, index))
            began = time.perf_counter()
            rc = int(llama_cpp.llama_decode(self._native.ctx, batch.raw))
            in_decode += (decoded := time.perf_counter()) - began
            if rc != 0:
                raise DecodeError(f"llama_decode failed with code {rc} on a batch of {batch.n_tokens} tokens")
            if on_logits is not None:
                for seq, index in outputs:
                    on_logits(seq, index)
                in_callback += time.perf_counter() - decoded
        return in_decode, in_callback

    @property
    def grammar_rejections(self) -> int:
        """Grammar-constrained steps whose first choice the grammar refused (all calls)."""
        return self.stats.grammar_rejections

    def _sample(self, job: Job, index: int) -> None:
        """Sample ``job``'s next token from output ``index``, and jump over the text its
        grammar forces after it: ``job.feed`` is what the next step decodes."""
        assert job.sampler is not None
        sampled = job.sampler.sample(self._native.ctx, index)
        job.pos = len(job.prompt) + len(job.generated)
        if sampled is None:
            job.finish, job.error = "error", "the grammar admits no further token"
            return
        token = sampled
        if llama_cpp.llama_vocab_is_eog(self._vocab, token):
            job.finish = "stop"
            return
        # The feed takes positions from this one on, within the answer's and the sequence's room.
        room = min(job.max_tokens - len(job.generated), self.n_ctx_seq - job.pos)
        feed, complete = job.sampler.jump(token, room)
        self.stats.forced_tokens += len(feed) - 1
        for fed in feed:
            if not self._emit(job, fed):
                return
        if complete:
            job.finish = "stop"
        elif len(job.generated) >= job.max_tokens or job.pos + len(feed) > self.n_ctx_seq:
            job.finish = "length"
        job.feed = feed

    def _emit(self, job: Job, token: int) -> bool:
        """Add a token to the answer; False when the answer's byte bound ends it."""
        job.generated.append(token)
        job.output_bytes += len(native.token_bytes(self._vocab, token, special=True))
        if job.output_bytes > self.max_output_bytes:
            job.finish, job.error = "error", bounds.output_overflow(self.max_output_bytes, len(job.generated))
            return False
        return True

    def _result(self, job: Job) -> CompletionResult:
        prompt_tokens = len(job.prompt) or None
        if job.finish == "error":
            return CompletionResult(finish_reason="error", error=job.error, prompt_tokens=prompt_tokens)
        return CompletionResult(
            # Control tokens the model writes (a new turn, a stray end marker) stay in the
            # raw text, as the grammar sees them, so that cleaning can find and cut them.
            text=native.detokenize(self._vocab, job.generated, special=True),
            finish_reason=job.finish or "stop",
            prompt_tokens=prompt_tokens,
            completion_tokens=len(job.generated),
        )

    # -- scoring (memorisation probes) -----------------------------------------

    def score_texts(self, texts: Sequence[str], *, prefix_tokens: int = 0) -> list[llama_scoring.TokenScores]:
        """Per-token log-likelihood (natural log) of each raw text, no chat template.

        Texts are decoded as parallel sequences with logits at every position, in waves
        when they outnumber the sequences or cells; a text's numbers do not depend on
        its neighbours beyond float rounding. Positions before ``max(1, prefix_tokens)``
        are context only (the first token has nothing to be predicted from). Each
        scored position also carries the mean and variance of log p over the whole
        vocabulary (``TokenScores.expected_logprobs``, ``logprob_variances``).
        """
        return llama_scoring.score_texts(self, texts, prefix_tokens)

    def greedy_continuations(self, prompts: Sequence[str | Sequence[int]], max_tokens: int) -> list[list[int]]:
        """Greedy (temperature 0) raw-text continuations: the token ids generated after each
        prompt, end-of-generation excluded. A str prompt is tokenized with BOS and no chat
        template; a token list is used as given (so a prompt can be an exact token prefix)."""
        return llama_scoring.greedy_continuations(self, prompts, max_tokens)

    # -- provenance --------------------------------------------------------------

    def model_sha256(self) -> str:
        return native.file_sha256(self.model_path)

    def describe(self) -> dict[str, Any]:
        """What to record with every result (``provenance.describe_engine``)."""
        return describe_engine(self)


class LlamaBackend:
    """The CompletionBackend (and ScoringBackend) of a local GGUF model in this process.

    Only the model worker child builds one (``factory.open_backend`` opens every local
    model in a worker, whose child calls ``specs.open_in_process``, and so this)."""

    def __init__(
        self,
        spec: str,
        model_path: str | Path,
        *,
        lora_path: str | Path | None = None,
        lora_scale: float = 1.0,
        n_ctx: int | None = None,
        n_gpu_layers: int = -1,
        n_threads: int | None = None,
        n_seq_max: int | None = None,
        jump_forward: bool = True,
        verbose: bool = False,
    ) -> None:
        self.spec = spec
        self.engine = BatchedLlamaEngine(
            model_path,
            lora_path=lora_path,
            lora_scale=lora_scale,
            n_seq_max=n_seq_max,
            n_ctx=n_ctx,
            n_gpu_layers=n_gpu_layers,
            n_threads=n_threads,
            verbose=verbose,
        )
        self.engine.jump_forward = jump_forward

    def describe(self) -> dict[str, Any]:
        return {"spec": self.spec, **self.engine.describe()}

    def complete_batch(
        self,
        requests: Sequence[CompletionRequest],
        cancel: threading.Event | None = None,
        on_result: ResultCallback | None = None,
    ) -> list[CompletionResult]:
        return self.engine.generate(requests, cancel, on_result)

    def count_prompt_tokens(self, requests: Sequence[CompletionRequest]) -> PromptCounts:
        """The prompt tokens each request would be decoded with, and what a sequence holds
        (prompt plus reply), so a caller can check the fit before the first call."""
        tokens = tuple(len(self.engine.tokenize_prompt(r.messages)) for r in requests)
        return PromptCounts(tokens=tokens, context=self.engine.n_ctx_seq)

    def score_texts(self, texts: Sequence[str], *, prefix_tokens: int = 0) -> list[llama_scoring.TokenScores]:
        return self.engine.score_texts(texts, prefix_tokens=prefix_tokens)

    def greedy_continuations(self, prompts: Sequence[str | Sequence[int]], max_tokens: int) -> list[list[int]]:
        return self.engine.greedy_continuations(prompts, max_tokens)

    def close(self) -> None:
        self.engine.close()
