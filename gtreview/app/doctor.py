"""Check that local inference works here: ``gtreview doctor`` and Help > Check local inference.

A local model that dies in native code on this machine (the AMX tile fault, a wheel
built for another CPU, too little memory) otherwise shows only as failed answers in the
middle of a pass. The doctor says it first, in plain words:

1. the llama.cpp build: versions, backends, the CPU features it uses, GPU offload
   (read in a child process: a bad build can die as it loads);
2. the AMX verdict (the CPUID and kernel facts too, where the CPU advertises AMX);
3. each model, loaded in a worker process as a pass would and asked for a few greedy
   tokens: a tiny Q8_0 llama made on the spot (so llama.cpp is checked even with no
   model configured, on the quantized kernels where AMX lives), then the project's
   judge and the models of its last pass, then any model given;
4. what is wrong and what to do, one line each.
"""

from __future__ import annotations

import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import Engine

from gtreview.app.project_settings import last_pass, project_judge
from gtreview.core.errors import Cancelled
from gtreview.core.redaction import redact
from gtreview.inference import x86_probe
from gtreview.inference.amx_guard import AmxVerdict, amx_verdict
from gtreview.inference.backend import ChatMessage, CompletionRequest, Sampling
from gtreview.inference.build_info import LlamaBuild, read_llama_build
from gtreview.inference.factory import open_backend
from gtreview.inference.specs import LOCAL_KINDS, ModelSpecError, parse_model_spec
from gtreview.inference.tiny_model import write_tiny_llama_gguf

CHECK_MODEL = "check model (a tiny random Q8_0 llama made for this check)"
DEFAULT_TOKENS = 8
_PROMPT = "In one sentence: why does gold concentrate in quartz veins?"


@dataclass(frozen=True)
class ModelCheck:
    """One model loaded in a worker and asked for a few tokens."""

    label: str
    spec: str  # redacted
    ok: bool
    detail: str  # what happened, one line (the failure's own line when it failed)
    load_s: float | None = None
    tokens: int = 0
    tokens_per_s: float | None = None
    n_gpu_layers: int | None = None
    gpu_offload: bool | None = None


@dataclass
class DoctorReport:
    build: LlamaBuild
    amx: AmxVerdict
    amx_facts: list[str]
    models: list[ModelCheck] = field(default_factory=list)
    note: str | None = None  # e.g. that the project names no model yet

    @property
    def problems(self) -> list[str]:
        found = [f"llama.cpp cannot be used: {self.build.error}"] if self.build.error else []
        found += [f"{check.label}: {check.detail}" for check in self.models if not check.ok]
        return found

    @property
    def ok(self) -> bool:
        return not self.problems

    def lines(self) -> list[str]:
        out = ["llama.cpp build", *(f"  {line}" for line in self.build.lines())]
        out += ["CPU", f"  {self.amx.line()}", *(f"  {line}" for line in self.amx_facts)]
        out.append("models (each in a worker process, as a pass runs it)")
        for check in self.models:
            out.append(f"  {'ok  ' if check.ok else 'FAIL'} {check.label}: {check.detail}")
        if self.note:
            out.append(f"  {self.note}")
        if self.ok:
            out.append("local inference works here")
        else:
            out.append("what is wrong")
            out += [f"  {problem}" for problem in self.problems]
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "build": {**asdict(self.build), "cpu_features": self.build.cpu_features},
            "amx": {"state": self.amx.state, "detail": self.amx.detail, "deny": self.amx.deny, "facts": self.amx_facts},
            "models": [asdict(check) for check in self.models],
            "problems": self.problems,
            "note": self.note,
        }


def configured_models(engine: Engine | None) -> list[tuple[str, str]]:
    """(label, spec) of the project's local models: its judge, then its last pass's models."""
    if engine is None:
        return []
    found: list[tuple[str, str]] = []
    judge = project_judge(engine)
    if judge:
        found.append(("judge", judge))
    config = last_pass(engine)
    if config is not None:
        found += [(entry.label, entry.spec) for entry in config.models]
        if config.judge and config.judge != judge:
            found.append(("last pass's judge", config.judge))
    unique: dict[str, tuple[str, str]] = {}
    for label, spec in found:
        unique.setdefault(spec, (label, spec))
    return list(unique.values())


def check_model(label: str, spec: str, *, tokens: int = DEFAULT_TOKENS) -> ModelCheck:
    """Open ``spec`` in a worker, decode ``tokens`` greedy tokens, say how it went."""
    shown = redact(spec)
    try:
        parsed = parse_model_spec(spec)
    except ModelSpecError as exc:
        return ModelCheck(label, shown, False, str(exc))
    if parsed.kind not in LOCAL_KINDS:
        return ModelCheck(label, shown, True, "not a local model (nothing native to check here)")
    started = time.monotonic()
    try:
        backend = open_backend(parsed)
    except Exception as exc:  # noqa: BLE001 - every open failure is this model's one line
        return ModelCheck(label, shown, False, f"cannot load: {exc}")
    try:
        load_s = time.monotonic() - started
        request = CompletionRequest(
            messages=[ChatMessage(role="user", content=_PROMPT)],
            sampling=Sampling(temperature=0.0, max_tokens=tokens, seed=0),
        )
        started = time.monotonic()
        result = backend.complete_batch([request])[0]
        decode_s = time.monotonic() - started
        try:  # what it ran on; a model that answered is not failed for a describe that did not
            info = backend.describe() if result.ok else {}
        except Exception:  # noqa: BLE001
            info = {}
    finally:
        backend.close()
    if not result.ok:
        return ModelCheck(label, shown, False, result.error or "the model gave no answer", load_s=load_s)
    produced = result.completion_tokens or 0
    rate = produced / decode_s if decode_s > 0 and produced else None
    layers = info.get("n_gpu_layers")
    offload = info.get("gpu_offload")
    where = "GPU" if offload and layers not in (None, 0) else "CPU"
    detail = f"loaded in {load_s:.1f} s; {produced} tokens in {decode_s:.1f} s with the prompt"
    detail += f" ({rate:.1f} tokens/s)" if rate else ""
    detail += f" on the {where}" + (f" (n_gpu_layers {layers})" if where == "GPU" else "")
    return ModelCheck(label, shown, True, detail, load_s, produced, rate, layers, offload)


def check_local_inference(
    engine: Engine | None = None,
    specs: Sequence[str] = (),
    *,
    tokens: int = DEFAULT_TOKENS,
    on_progress: Callable[[str], None] | None = None,
    cancel: threading.Event | None = None,
) -> DoctorReport:
    """The whole check (module doc). ``engine``: a project whose configured models are
    checked too; ``specs``: more models; ``on_progress`` hears each step as it starts."""

    def step(text: str) -> None:
        if cancel is not None and cancel.is_set():
            raise Cancelled("the check was cancelled")
        if on_progress is not None:
            on_progress(text)

    step("reading the llama.cpp build")
    build = read_llama_build()
    step("probing the CPU")
    verdict = amx_verdict()
    facts = x86_probe.amx_facts()
    fact_lines = facts.lines() if facts is not None and facts.advertised else []
    report = DoctorReport(build, verdict, fact_lines)
    if build.error:
        return report
    models: list[tuple[str, str]] = []
    configured = configured_models(engine)
    if engine is not None and not configured:
        report.note = (
            "this project names no model yet (Edit > Judge model, Run > Run a pass); give one with --model SPEC"
        )
    for label, spec in [*configured, *((redact(s), s) for s in specs)]:
        if spec not in {s for _, s in models}:
            models.append((label, spec))
    with tempfile.TemporaryDirectory(prefix="gtreview-doctor-") as folder:
        tiny = write_tiny_llama_gguf(Path(folder) / "check-q8_0.gguf", q8_0=True, ctx=512)
        step(f"loading the {CHECK_MODEL}")
        report.models.append(check_model(CHECK_MODEL, f"llama:{tiny}?ctx=512&seq=1", tokens=tokens))
    for label, spec in models:
        step(f"loading {label}: {redact(spec)}")
        report.models.append(check_model(label, spec, tokens=tokens))
    return report
