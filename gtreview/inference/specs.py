"""Model spec strings: one line that names a model and how to run it.

The CLI, saved run plans and result records all name models the same way, so a run
can be repeated from what it recorded:

    llama:PATH.gguf[?lora=ADAPTER.gguf&scale=1.0&n_gpu_layers=-1&ctx=8192&threads=N&seq=8&timeout=900&jump=on]
    hf:OWNER/REPO/FILE.gguf[?same options]   (downloaded into the Hugging Face cache)
    openai:URL#MODEL[?timeout=120]            (vLLM, llama-server, LM Studio)
    anthropic:MODEL

Parsing is pure and strict (an unknown option is an error, not a silent default),
because a typo such as ``ctx=8912`` or ``n_gpu_layer=0`` would otherwise produce a
whole benchmark pass with settings nobody asked for. Opening is separate and imports
each backend lazily, so that naming a model never loads llama.cpp or the hub client.

Open models with :func:`gtreview.inference.factory.open_backend`, which puts every
local model in a worker process. :func:`open_in_process` here is what that worker's
child runs; nothing else should call it, since a native crash in a model opened in
the caller takes the caller (the GUI window, a whole pass) down with it.
"""

from __future__ import annotations

import importlib
import math
from pathlib import Path
from typing import Any, Literal, Protocol, cast
from urllib.parse import unquote

import httpx
from pydantic import BaseModel, ConfigDict, model_validator

from gtreview.core.errors import UserError
from gtreview.core.redaction import redact
from gtreview.inference.backend import CompletionBackend

SpecKind = Literal["llama", "hf", "openai", "anthropic"]

SPEC_FORMS = (
    "llama:PATH.gguf[?lora=ADAPTER.gguf&n_gpu_layers=-1&ctx=8192], hf:OWNER/REPO/FILE.gguf, "
    "openai:URL#MODEL or anthropic:MODEL"
)
LLAMA_OPTIONS = ("lora", "scale", "n_gpu_layers", "ctx", "threads", "seq", "timeout", "jump")
OPENAI_OPTIONS = ("timeout",)  # seconds one reply may take (120 unless set): a slow server's long verdicts need more
DEFAULT_ANSWER_TIMEOUT_S = 900.0
"""How long a local model may go without finishing an answer before its worker is
killed and the answer is an error: long enough for 1024 tokens of a large model on a
CPU, short enough that a runaway (a chat template that loops) never hangs a pass."""
LOCAL_KINDS: frozenset[SpecKind] = frozenset({"llama", "hf"})  # model files run by llama.cpp here


class ModelSpecError(UserError, ValueError):
    """A spec string that does not name a model; the message says what would.

    The message quotes the spec, so it is redacted: a mistyped ``openai:`` URL may still
    carry a password, and this line is printed and logged."""

    def __init__(self, message: str) -> None:
        super().__init__(redact(message))


class BackendOpenError(UserError, ValueError):
    """A valid spec whose backend cannot be opened here (missing file, no llama.cpp, offline)."""

    def __init__(self, message: str) -> None:
        super().__init__(redact(message))


class ModelSpec(BaseModel):
    """A parsed spec. ``raw`` is the string as given, credentials included, so that the
    backend can be opened from it; what is shown or stored is ``redact(raw)``.

    Local-model fields (``path``/``repo_id``+``filename``, ``lora`` and the runtime
    options) are set for ``llama`` and ``hf``; ``url`` for ``openai``; ``model`` for
    ``openai`` and ``anthropic``. ``lora`` is a local path or an ``hf:`` reference.

    Which runtime options the spec itself set is :meth:`chose` (pydantic's
    ``model_fields_set``, which pickles with the spec into the worker): an ``n_ctx`` or
    ``n_seq_max`` left at its default may be shrunk to fit a GPU, one set never is.
    """

    model_config = ConfigDict(frozen=True)

    kind: SpecKind
    raw: str
    path: Path | None = None
    repo_id: str | None = None
    filename: str | None = None
    lora: str | None = None
    lora_scale: float = 1.0
    n_gpu_layers: int = -1
    n_ctx: int = 8192
    n_threads: int | None = None
    n_seq_max: int = 8
    # Option ``timeout``: a local model's worker bound per answer; for ``openai`` how long one
    # reply may take before it is asked again (the client's 120 s unless the spec sets it).
    answer_timeout_s: float = DEFAULT_ANSWER_TIMEOUT_S
    # Option ``jump``: a local judge feeds the JSON text its verdict grammar forces in one
    # step (``llama/jump_forward.py``); ``jump=off`` decodes it token by token, as before.
    jump_forward: bool = True
    url: str | None = None
    model: str | None = None

    @model_validator(mode="after")
    def _has_what_its_kind_needs(self) -> ModelSpec:
        """A spec read back from a saved plan must be as complete as a parsed one."""
        needed = {
            "llama": ("path",),
            "hf": ("repo_id", "filename"),
            "openai": ("url", "model"),
            "anthropic": ("model",),
        }
        missing = [name for name in needed[self.kind] if getattr(self, name) in (None, "")]
        if missing:
            raise ValueError(f"{self.kind} model spec needs {', '.join(missing)}")
        return self

    def __str__(self) -> str:
        return self.raw

    def chose(self, field: str) -> bool:
        """Whether the spec set ``field`` (e.g. ``n_ctx`` from ``ctx=``) rather than leaving its default."""
        return field in self.model_fields_set


def parse_model_spec(spec: str) -> ModelSpec:
    """Parse a spec string; raise ``ModelSpecError`` with a one-line hint when it is not one."""
    text = spec.strip() if isinstance(spec, str) else ""
    if not text:
        raise ModelSpecError(f"empty model spec; expected {SPEC_FORMS}")
    kind, sep, rest = text.partition(":")
    kind = kind.lower()
    if not sep or kind not in ("llama", "hf", "openai", "anthropic"):
        hint = f" (did you mean llama:{text}?)" if text.lower().endswith(".gguf") else ""
        raise ModelSpecError(f"unknown model spec {text!r}{hint}; expected {SPEC_FORMS}")
    if kind == "openai":
        return _parse_openai(text, rest)
    if kind == "anthropic":
        model = rest.strip()
        if not model or any(c.isspace() for c in model):
            raise ModelSpecError(
                f"bad anthropic spec {text!r}; expected anthropic:MODEL, e.g. anthropic:claude-sonnet-4-6"
            )
        return ModelSpec(kind="anthropic", raw=text, model=model)
    location, _, query = rest.partition("?")
    options = _parse_options(text, kind, query)
    if kind == "llama":
        if not location.lower().endswith(".gguf"):
            raise ModelSpecError(f"bad llama spec {text!r}; expected llama:PATH.gguf[?lora=ADAPTER.gguf&ctx=8192]")
        return ModelSpec(kind="llama", raw=text, path=Path(location).expanduser(), **options)
    parts = location.split("/")
    if len(parts) < 3 or not all(parts) or not location.lower().endswith(".gguf"):
        raise ModelSpecError(
            f"bad hf spec {text!r}; expected hf:OWNER/REPO/FILE.gguf, e.g. hf:Qwen/Qwen2.5-0.5B-Instruct-GGUF/qwen2.5-0.5b-instruct-q4_k_m.gguf"
        )
    return ModelSpec(kind="hf", raw=text, repo_id="/".join(parts[:2]), filename="/".join(parts[2:]), **options)


def _parse_openai(text: str, rest: str) -> ModelSpec:
    url, sep, model = rest.rpartition("#")
    model, _, query = model.partition("?")
    example = "openai:http://127.0.0.1:8080/v1#MODEL"
    if not sep or not model.strip() or not url.strip():
        raise ModelSpecError(f"bad openai spec {text!r}; expected openai:URL#MODEL, e.g. {example}")
    try:
        parsed = httpx.URL(url.strip())
    except (httpx.InvalidURL, ValueError) as exc:
        raise ModelSpecError(f"bad URL in openai spec {text!r} ({exc}); expected {example}") from exc
    if parsed.scheme not in ("http", "https") or not parsed.host:
        raise ModelSpecError(
            f"bad URL in openai spec {text!r}: needs http:// or https:// and a host; expected {example}"
        )
    options = _parse_options(text, "openai", query, OPENAI_OPTIONS)
    return ModelSpec(kind="openai", raw=text, url=url.strip(), model=model.strip(), **options)


def _parse_options(text: str, kind: str, query: str, valid: tuple[str, ...] = LLAMA_OPTIONS) -> dict[str, Any]:
    """Runtime options from the query string; values are percent-decoded (``%26`` is ``&``)."""
    seen: dict[str, str] = {}
    for item in filter(None, query.split("&")):
        key, eq, value = item.partition("=")
        if key not in valid:
            raise ModelSpecError(f"unknown option {key!r} in {kind} spec {text!r}; valid options: {', '.join(valid)}")
        if not eq or not value:
            raise ModelSpecError(f"option {key!r} in {text!r} needs a value, e.g. {key}=...")
        if key in seen:
            raise ModelSpecError(f"option {key!r} given twice in {text!r}")
        seen[key] = unquote(value)
    options: dict[str, Any] = {}
    if "lora" in seen:
        if not seen["lora"].lower().endswith(".gguf"):
            raise ModelSpecError(f"lora in {text!r} must be a .gguf adapter (a path or hf:OWNER/REPO/FILE.gguf)")
        options["lora"] = seen["lora"]
    if "scale" in seen:
        if "lora" not in seen:
            raise ModelSpecError(f"scale in {text!r} needs a lora adapter to scale")
        options["lora_scale"] = _number(text, "scale", seen["scale"])
    for key, field, minimum in (
        ("n_gpu_layers", "n_gpu_layers", -1),
        ("ctx", "n_ctx", 1),
        ("threads", "n_threads", 1),
        ("seq", "n_seq_max", 1),
    ):
        if key in seen:
            options[field] = _integer(text, key, seen[key], minimum)
    if "jump" in seen:
        if seen["jump"] not in ("on", "off"):
            raise ModelSpecError(f"option jump in {text!r} must be on or off (got {seen['jump']!r})")
        options["jump_forward"] = seen["jump"] == "on"
    if "timeout" in seen:
        options["answer_timeout_s"] = _number(text, "timeout", seen["timeout"])
        if options["answer_timeout_s"] <= 0:
            raise ModelSpecError(f"option timeout in {text!r} must be a positive number of seconds")
    return options


def _integer(text: str, key: str, value: str, minimum: int) -> int:
    try:
        number = int(value)
    except ValueError:
        number = minimum - 1
    if number < minimum:
        raise ModelSpecError(f"option {key} in {text!r} must be an integer >= {minimum} (got {value!r})")
    return number


def _number(text: str, key: str, value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        number = math.nan
    if not math.isfinite(number):
        raise ModelSpecError(f"option {key} in {text!r} must be a number (got {value!r})")
    return number


# -- opening ---------------------------------------------------------------------------


class _LlamaFactory(Protocol):
    """The constructor of ``gtreview.inference.llama.LlamaBackend``."""

    def __call__(
        self,
        spec: str,
        model_path: Path,
        *,
        lora_path: Path | None,
        lora_scale: float,
        n_ctx: int | None,
        n_gpu_layers: int,
        n_threads: int | None,
        n_seq_max: int | None,
        jump_forward: bool,
    ) -> CompletionBackend: ...


def open_in_process(spec: str | ModelSpec, **overrides: Any) -> CompletionBackend:
    """The backend a spec names, opened IN THIS PROCESS; ``overrides`` go to its constructor.

    Internal: the model worker child calls it (and the HTTP kinds are opened with it by
    the factory). Everyone else calls the factory, so that a llama.cpp crash never
    takes the caller down. Overrides are for what a spec string cannot carry:
    ``transport``/``http_client`` in tests, ``api_key``, ``concurrency``, or a llama
    setting the GUI changed.

    ``n_ctx``/``n_seq_max`` the spec does not set go as None: the engine's defaults,
    which it fits to a GPU's free memory; ``n_gpu_layers`` unset is -1, every layer
    (no layer on a CPU-only build).
    """
    parsed = spec if isinstance(spec, ModelSpec) else parse_model_spec(spec)
    if parsed.kind == "openai":
        from gtreview.inference.openai_client import OpenAICompatibleBackend

        assert parsed.url is not None and parsed.model is not None
        timeout = {"timeout": parsed.answer_timeout_s} if parsed.chose("answer_timeout_s") else {}
        return OpenAICompatibleBackend(parsed.url, parsed.model, **{"spec": parsed.raw, **timeout, **overrides})
    if parsed.kind == "anthropic":
        from gtreview.inference.anthropic_client import AnthropicBackend

        assert parsed.model is not None
        return AnthropicBackend(parsed.model, **{"spec": parsed.raw, **overrides})
    model_path, lora_path = local_files(parsed)
    settings: dict[str, Any] = {
        "lora_path": lora_path,
        "lora_scale": parsed.lora_scale,
        "n_ctx": parsed.n_ctx if parsed.chose("n_ctx") else None,
        "n_gpu_layers": parsed.n_gpu_layers,
        "n_threads": parsed.n_threads,
        "n_seq_max": parsed.n_seq_max if parsed.chose("n_seq_max") else None,
        "jump_forward": parsed.jump_forward,
    }
    return _llama_factory()(parsed.raw, model_path, **{**settings, **overrides})


def local_files(spec: str | ModelSpec) -> tuple[Path, Path | None]:
    """The model and adapter files a llama or hf spec names (downloading hf files once)."""
    parsed = spec if isinstance(spec, ModelSpec) else parse_model_spec(spec)
    if parsed.kind == "hf":
        assert parsed.repo_id is not None and parsed.filename is not None
        model_path = download_hf_file(parsed.repo_id, parsed.filename)
    elif parsed.kind == "llama":
        assert parsed.path is not None
        model_path = _existing(parsed.path, "model file")
    else:
        raise ModelSpecError(f"{parsed.raw} names a server model, not local files")
    lora_path = _resolve_lora(parsed.lora) if parsed.lora is not None else None
    return model_path, lora_path


def _llama_factory() -> _LlamaFactory:
    try:
        factory = importlib.import_module("gtreview.inference.llama").LlamaBackend
    except (ImportError, OSError, AttributeError) as exc:
        raise BackendOpenError(f"the llama.cpp backend is not available here: {exc}") from exc
    return cast(_LlamaFactory, factory)


def _resolve_lora(reference: str) -> Path:
    if reference.lower().startswith("hf:"):
        parts = reference[3:].split("/")
        if len(parts) < 3 or not all(parts):
            raise ModelSpecError(f"bad hf adapter {reference!r}; expected hf:OWNER/REPO/FILE.gguf")
        return download_hf_file("/".join(parts[:2]), "/".join(parts[2:]))
    return _existing(Path(reference).expanduser(), "LoRA adapter")


def _existing(path: Path, what: str) -> Path:
    if not path.is_file():
        raise BackendOpenError(f"{what} not found: {path}")
    return path


def download_hf_file(repo_id: str, filename: str) -> Path:
    """The local path of a hub file, downloading it into the hub cache if needed.

    ``huggingface_hub`` honours ``HF_ENDPOINT`` (a mirror) and ``HF_HUB_OFFLINE`` (cache
    only) itself; this turns its exceptions into one line that says what to do.
    """
    from huggingface_hub import constants, hf_hub_download
    from huggingface_hub.errors import (
        EntryNotFoundError,
        GatedRepoError,
        LocalEntryNotFoundError,
        RepositoryNotFoundError,
    )

    where = f"{filename} from {repo_id}"
    try:
        return Path(hf_hub_download(repo_id=repo_id, filename=filename))
    except LocalEntryNotFoundError as exc:
        reason = "HF_HUB_OFFLINE is set" if constants.HF_HUB_OFFLINE else f"{constants.ENDPOINT} cannot be reached"
        raise BackendOpenError(
            f"{where} is not in the Hugging Face cache and {reason}; download it once while online "
            "(or set HF_ENDPOINT to a reachable mirror)"
        ) from exc
    except GatedRepoError as exc:
        raise BackendOpenError(f"{repo_id} is gated: accept its terms on the hub and log in (hf auth login)") from exc
    except RepositoryNotFoundError as exc:
        raise BackendOpenError(f"no repository {repo_id} on {constants.ENDPOINT} (or it is private)") from exc
    except EntryNotFoundError as exc:
        raise BackendOpenError(f"{repo_id} has no file {filename}") from exc
    except (OSError, ValueError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise BackendOpenError(f"cannot download {where}: {first}") from exc


def with_runtime_defaults(spec: str, **defaults: int) -> str:
    """Add machine settings (``n_gpu_layers``, ``threads``) a local spec does not set itself.

    The user's preferences describe the workstation; a spec's own options always win.
    """
    parsed = parse_model_spec(spec)
    if parsed.kind not in LOCAL_KINDS:
        return spec
    base, _, query = spec.partition("?")
    present = {part.split("=", 1)[0] for part in query.split("&") if part}
    extra = [f"{key}={value}" for key, value in defaults.items() if key in LLAMA_OPTIONS and key not in present]
    if not extra:
        return spec
    return f"{base}?{'&'.join([part for part in query.split('&') if part] + extra)}"
