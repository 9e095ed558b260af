"""The one way to open a model: local GGUFs always in a worker process, servers directly.

llama.cpp is native code: a failed ``GGML_ASSERT``, a segfault in a kernel or the OOM
killer ends the whole process. Opened in the caller, that would close the GUI window
mid-review or stop a benchmark pass. So every ``llama:`` and ``hf:`` spec, whoever asks
(Review > Calibrate, drafting, ``score``/``compare``/``calibrate``, a pass, the
memorisation probes), is opened in a :class:`~gtreview.inference.worker.WorkerBackend`:
a spawned child holds the model and a crash there comes back as error results (or, for
the probes' scoring calls, a one-line :class:`~gtreview.inference.worker.WorkerDied`)
while the caller carries on. ``openai:`` and ``anthropic:`` specs are HTTP clients with
nothing native to crash, so they are opened in the caller.

A backend object keeps its one child for its lifetime (a fresh one only after a crash
or ``restart()``), so the start-up cost, about half a second on a small model, is paid
once per opened model and not per call.

A spec whose URL password was masked where it was kept (``user:***@``, see
``spec_passwords``) is opened with the password put back from the keyring.
"""

from __future__ import annotations

from typing import Any

from gtreview.inference.backend import CompletionBackend, ScoringBackend
from gtreview.inference.spec_passwords import with_kept_password
from gtreview.inference.specs import (
    LOCAL_KINDS,
    BackendOpenError,
    ModelSpec,
    local_files,
    open_in_process,
    parse_model_spec,
)
from gtreview.inference.worker import WorkerBackend

__all__ = ["check_can_open", "open_backend", "open_scoring_backend"]


def open_backend(spec: str | ModelSpec, **overrides: Any) -> CompletionBackend:
    """The backend a spec names, ready to use: a worker-process backend for local models.

    ``overrides`` go to the backend's constructor (in the child for local models, so
    they must pickle there): ``transport``/``api_key``/``concurrency`` for the HTTP
    clients, a llama setting such as ``n_gpu_layers`` the GUI changed. A bad spec
    (:class:`~gtreview.inference.specs.ModelSpecError`), a missing file
    (:class:`~gtreview.inference.specs.BackendOpenError`) or a damaged GGUF
    (:class:`~gtreview.inference.gguf_check.ModelFileError`) raise here, in one line, as
    does a masked URL password the keyring does not have.
    """
    parsed = spec if isinstance(spec, ModelSpec) else parse_model_spec(spec)
    if parsed.kind == "openai" and (restored := with_kept_password(parsed.raw)) != parsed.raw:
        parsed = parse_model_spec(restored)
    if parsed.kind in LOCAL_KINDS:
        return WorkerBackend(parsed, overrides=overrides)
    return open_in_process(parsed, **overrides)


def open_scoring_backend(spec: str | ModelSpec, **overrides: Any) -> ScoringBackend:
    """A local model for per-token log-likelihoods and greedy continuations (the
    memorisation probes), in a worker process like every local model.

    Servers and APIs do not return the logits of every position of a raw text, so an
    ``openai:`` or ``anthropic:`` spec is refused with a one-line BackendOpenError.
    """
    parsed = spec if isinstance(spec, ModelSpec) else parse_model_spec(spec)
    if parsed.kind not in LOCAL_KINDS:
        raise BackendOpenError(
            f"{parsed.raw} cannot score texts: per-token log-likelihoods need a local llama: or hf: model"
        )
    return WorkerBackend(parsed, overrides=overrides)


def check_can_open(spec: str | ModelSpec) -> None:
    """Raise the one-line error :func:`open_backend` would raise for ``spec``, without
    opening anything: a bad spec, an Anthropic key found neither in the keyring nor in
    the environment, a server URL that is not http(s) or whose masked password the keyring
    lacks, a missing or damaged local file.
    A pass checks every backend it names this way before its run exists, so one that
    cannot start leaves no run (and is not refused by its judge hours into generating)."""
    parsed = spec if isinstance(spec, ModelSpec) else parse_model_spec(spec)
    if parsed.kind == "anthropic":
        from gtreview.inference.anthropic_client import resolve_api_key

        resolve_api_key()
    elif parsed.kind == "openai":
        from gtreview.inference.openai_client import api_root

        with_kept_password(parsed.raw)  # a masked password the keyring does not have
        assert parsed.url is not None
        api_root(parsed.url)
    else:
        from gtreview.inference.gguf_check import check_adapter_file, check_model_file

        model, lora = local_files(parsed)
        info = check_model_file(model)
        if lora is not None:
            check_adapter_file(lora, info)
