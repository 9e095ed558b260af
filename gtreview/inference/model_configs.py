"""Import the Groundtruth harness's ``configs/models.json`` as gtreview model specs.

The harness lists its candidates as ``{label, model, lora, tokenizer, max_lora_rank,
provider}`` and serves them with vLLM (``model`` is a Hugging Face repo, ``lora`` an
adapter repo or folder). gtreview names models with spec strings, so an analyst who
already has such a file gets the same line-up without retyping it.

Two ways to run an entry, tried in this order:

1. **Local GGUF** (``gguf_dir``): llama.cpp cannot read the vLLM weights, so the entry's
   GGUF conversions must sit directly in ``gguf_dir``, named after the last part of the
   reference (``QuantTrio/gemma-4-31B-it-AWQ`` -> ``gemma-4-31B-it-AWQ``). A file
   matches when its stem, ignoring case, is that name, optionally followed by a
   llama.cpp type tag (``-Q4_K_M``, ``-F16``, ``.BF16``, ...), then ``-LoRA`` (what
   ``convert_lora_to_gguf.py`` appends), then ``-00001-of-0000N`` (the first shard). If
   nothing matches, the name is tried again without a serving-format suffix (``-AWQ``,
   ``-GPTQ-Int4``, ``-FP8``, ``-bnb-4bit``, ``-GGUF``, ...), because a GGUF of an AWQ repo
   is a GGUF of the same weights. An exact stem wins over tagged ones; two tagged
   candidates (``Q4_K_M`` and ``Q8_0``) are ambiguous and reported, never guessed. A
   LoRA entry needs both files: running the base alone under the fine-tune's label
   would silently benchmark the wrong model.
2. **vLLM** (``base_url``, for entries whose provider is vLLM or unset): the spec is
   ``openai:BASE_URL#SERVED_NAME``. gtreview's convention for serving a models.json
   from one vLLM server is: the base under its own repo name (vLLM's default served
   name) and each adapter as a LoRA module named after the entry's label::

       vllm serve QuantTrio/gemma-4-31B-it-AWQ --enable-lora --max-lora-rank 64 \\
           --lora-modules "Geology LoRA r32=org/adapter-r32" "Geology LoRA r64=/loras/r64"

   so a base entry asks for ``model`` and a LoRA entry asks for ``label`` (vLLM lists
   LoRA modules by that name in ``/v1/models``). The harness's own ``start_eval.sh``
   serves one entry per pod under the alias ``benchmark``; for such a pod write
   ``openai:URL#benchmark`` by hand.

An entry that fits neither is reported in ``MappedModels.problems`` (one line each),
never dropped silently; every spec produced is parsed back with ``parse_model_spec``
to prove it names what it was built from.

A server is then asked what it serves (``GET /v1/models``, ``served_names``) rather than
trusted to follow the convention: a name it serves is kept; when it serves exactly one
model (the harness's pod: ``benchmark``) the entry uses that one and a note says so;
otherwise the entry cannot run, and the one line names the models served. Two entries
that would so become the same model are refused: a base benchmarked under a LoRA's
label would be a silent error.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import NamedTuple
from urllib.parse import quote

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from gtreview.core.errors import UserError
from gtreview.core.jsonformat import loads_json
from gtreview.inference.specs import ModelSpecError, parse_model_spec
from gtreview.inputs import MAX_DATA_FILE_BYTES, InputReadError, read_limited

VLLM_PROVIDERS = frozenset({"", "vllm"})

_TYPE_TAG = r"(?:[-_.](?:[IT]?Q\d[0-9A-Z_]*|F16|BF16|F32|MXFP4))?"
_LORA_TAG = r"(?:[-_.]LoRA)?"
_FIRST_SHARD = r"(?:-00001-of-\d{5})?"
_SERVING_SUFFIX = re.compile(
    r"[-_.](?:AWQ|GPTQ(?:[-_]Int[48])?|FP8(?:[-_]Dynamic)?|bnb[-_]4bit|4bit|8bit|GGUF|MLX|unsloth)$", re.IGNORECASE
)


class ModelConfigError(UserError, ValueError):
    """A models.json that cannot be read at all; the message is one line."""


class HarnessModelConfig(BaseModel):
    """One entry of the harness's models.json; keys gtreview does not know are kept."""

    model_config = ConfigDict(extra="allow")

    label: str = Field(min_length=1)
    model: str = Field(min_length=1)
    lora: str | None = None
    tokenizer: str | None = None
    max_lora_rank: int | None = None
    provider: str | None = None

    @property
    def adapter(self) -> str | None:
        """The LoRA reference, if any (``start_eval.sh`` treats a blank one as none)."""
        return (self.lora or "").strip() or None


class MappedModels(NamedTuple):
    """``specs``: (label, spec) pairs in file order; ``problems``: one line per entry left out."""

    specs: list[tuple[str, str]]
    problems: list[str]


def parse_models_json(text: str | bytes, *, source: str = "models.json") -> list[HarnessModelConfig]:
    """Entries of a models.json: a JSON array, or an object whose ``models`` is one."""
    try:
        data = loads_json(text)
    except json.JSONDecodeError as exc:
        raise ModelConfigError(f"{source} is not valid JSON: {exc}") from None
    except UnicodeDecodeError as exc:
        raise ModelConfigError(f"{source} is not UTF-8 text: {exc}") from None
    entries = data.get("models") if isinstance(data, dict) else data
    if not isinstance(entries, list):
        raise ModelConfigError(f"{source}: expected a JSON array of models or an object with a 'models' array")
    configs: list[HarnessModelConfig] = []
    for index, entry in enumerate(entries, start=1):
        if not isinstance(entry, dict):
            raise ModelConfigError(f"{source}: entry {index} is not an object")
        try:
            configs.append(HarnessModelConfig.model_validate(entry))
        except ValidationError as exc:
            first = exc.errors()[0]
            field = ".".join(str(part) for part in first["loc"]) or "entry"
            label = entry.get("label")
            name = f" ({label!r})" if isinstance(label, str) and label else ""
            raise ModelConfigError(f"{source}: entry {index}{name}: {field}: {first['msg']}") from None
    return configs


def read_models_json(path: str | Path) -> list[HarnessModelConfig]:
    """Read a harness models.json file; any problem is a one-line ``ModelConfigError``."""
    file = Path(path)
    try:
        raw = read_limited(file, MAX_DATA_FILE_BYTES)
    except InputReadError as exc:
        raise ModelConfigError(str(exc)) from None
    return parse_models_json(raw, source=str(file))


def to_model_specs(
    configs: Sequence[HarnessModelConfig], *, base_url: str | None, gguf_dir: Path | None
) -> MappedModels:
    """Spec strings for the entries (see the module docstring for the rules).

    Raises ``ModelConfigError`` only for a bad ``base_url`` or ``gguf_dir``: those are
    the caller's input, not a property of one entry.
    """
    url = _checked_base_url(base_url)
    ggufs = _gguf_files(gguf_dir)
    specs: list[tuple[str, str]] = []
    problems: list[str] = []
    seen: set[str] = set()
    for index, config in enumerate(configs, start=1):
        where = f"entry {index} ({config.label!r})"
        if config.label in seen:
            problems.append(f"{where}: duplicate label; labels name models in results, so each must be unique")
            continue
        seen.add(config.label)
        if "=" in config.label or config.label != config.label.strip():
            problems.append(f"{where}: a label with '=' or surrounding spaces cannot be given as --model LABEL=SPEC")
            continue
        spec, reasons = _map_one(config, url, ggufs)
        if spec is None:
            problems.append(f"{where}: " + "; ".join(reasons))
        else:
            specs.append((config.label, spec))
    return MappedModels(specs, problems)


def _map_one(config: HarnessModelConfig, url: str | None, ggufs: list[Path] | None) -> tuple[str | None, list[str]]:
    reasons: list[str] = []
    if ggufs is not None:
        spec, reason = _gguf_spec(config, ggufs)
        if spec is not None:
            return spec, []
        reasons.append(reason)
    provider = (config.provider or "").strip()
    if provider.lower() not in VLLM_PROVIDERS:
        reasons.append(f"provider {provider!r} is not vLLM, so there is no server gtreview can address for it")
    elif url is None:
        reasons.append("no vLLM base URL was given")
    else:
        served = config.label if config.adapter else config.model.strip()
        spec = f"openai:{url}#{served}"
        try:
            parsed = parse_model_spec(spec)
        except ModelSpecError as exc:
            reasons.append(f"cannot be written as a spec: {exc}")
        else:
            if parsed.url == url and parsed.model == served:
                return spec, []
            reasons.append(f"served name {served!r} cannot be carried by an openai:URL#MODEL spec")
    return None, reasons


def _gguf_spec(config: HarnessModelConfig, ggufs: list[Path]) -> tuple[str | None, str]:
    """A ``llama:`` spec when ``ggufs`` holds the entry's files, else why not."""
    base, why = find_gguf(ggufs, config.model, adapter=False)
    if base is None:
        return None, f"model {config.model!r}: {why}"
    adapter: Path | None = None
    if config.adapter is not None:
        adapter, why = find_gguf(ggufs, config.adapter, adapter=True)
        if adapter is None:
            return None, f"lora {config.adapter!r}: {why}"
        if adapter == base:
            return None, f"lora {config.adapter!r} and model match the same file {base.name}"
    spec = f"llama:{base}"
    if adapter is not None:
        spec += "?lora=" + quote(str(adapter), safe="/:\\")
    try:
        parsed = parse_model_spec(spec)
    except ModelSpecError as exc:
        return None, f"cannot be written as a spec: {exc}"
    if parsed.path != base or parsed.lora != (None if adapter is None else str(adapter)):
        return None, f"path {base} cannot be carried by a llama: spec (it contains '?')"
    return spec, ""


def find_gguf(files: Iterable[Path], reference: str, *, adapter: bool) -> tuple[Path | None, str]:
    """The GGUF among ``files`` that ``reference`` (a repo id or path) names, or why none does.

    Only an adapter lookup accepts a ``-LoRA`` tag: ``convert_lora_to_gguf.py`` names
    adapters after their base model, and such a file must not be taken for the base.
    """
    names = _names_for(reference)
    candidates = list(files)
    tail = _TYPE_TAG + (_LORA_TAG if adapter else "") + _FIRST_SHARD
    for name in names:
        pattern = re.compile(re.escape(name) + tail, re.IGNORECASE)
        matches = [f for f in candidates if pattern.fullmatch(_stem(f))]
        exact = [f for f in matches if _stem(f).lower() == name.lower()]
        chosen = exact or matches
        if len(chosen) == 1:
            return chosen[0], ""
        if chosen:
            return None, f"several GGUF files match ({', '.join(sorted(f.name for f in chosen))}); keep one"
    wanted = " or ".join(f"{name}[-TYPE].gguf" for name in names)
    return None, f"no GGUF named {wanted} in the GGUF folder"


def _names_for(reference: str) -> list[str]:
    """File names to look for: the reference's last part, then without serving suffixes."""
    name = re.split(r"[/\\]", reference.strip().rstrip("/\\"))[-1]
    if name.lower().endswith(".gguf"):
        name = name[: -len(".gguf")]
    names = [name]
    stripped = name
    while (shorter := _SERVING_SUFFIX.sub("", stripped)) != stripped and shorter:
        stripped = shorter
    if stripped != name:
        names.append(stripped)
    return names


def _stem(path: Path) -> str:
    return path.name[: -len(".gguf")]


def _gguf_files(gguf_dir: Path | None) -> list[Path] | None:
    if gguf_dir is None:
        return None
    folder = gguf_dir.expanduser().absolute()
    if not folder.is_dir():
        raise ModelConfigError(f"GGUF folder {folder} does not exist or is not a folder")
    return sorted(p for p in folder.iterdir() if p.name.lower().endswith(".gguf") and p.is_file())


def _checked_base_url(base_url: str | None) -> str | None:
    if base_url is None:
        return None
    url = base_url.strip()
    if "#" in url:
        raise ModelConfigError(f"bad vLLM base URL {base_url!r}: it may not contain '#'")
    try:
        parse_model_spec(f"openai:{url}#probe")
    except ModelSpecError as exc:
        raise ModelConfigError(f"bad vLLM base URL {base_url!r}: {exc}") from None
    return url


class ServedModels(NamedTuple):
    """``specs``: (label, spec) pairs naming what the servers serve; ``notes``: each name changed."""

    specs: list[tuple[str, str]]
    notes: list[str]


def served_names(specs: Sequence[tuple[str, str]], ask: Callable[[str], list[str]]) -> ServedModels:
    """The specs with each OpenAI-compatible model name checked against what its server serves.

    ``ask(url)`` returns the names a server serves (asked once per server). Raises
    ``ModelConfigError`` (one line) for an entry no served name fits.
    """
    served: dict[str, list[str]] = {}
    out: list[tuple[str, str]] = []
    notes: list[str] = []
    chosen_by: dict[str, str] = {}
    for label, spec in specs:
        parsed = parse_model_spec(spec)
        if parsed.kind != "openai" or parsed.url is None or parsed.model is None:
            out.append((label, spec))
            continue
        if parsed.url not in served:
            served[parsed.url] = ask(parsed.url)
        names = served[parsed.url]
        if parsed.model in names:
            chosen_by.setdefault(spec, label)
            out.append((label, spec))
            continue
        if len(names) != 1:
            listed = ", ".join(repr(n) for n in names) or "no model"
            raise ModelConfigError(f"{label}: {parsed.url} does not serve {parsed.model!r}; it serves {listed}")
        name = names[0]
        new = f"openai:{parsed.url}#{name}"
        if new in chosen_by:
            raise ModelConfigError(
                f"{chosen_by[new]} and {label} would both be {name!r}, the one model {parsed.url} serves; "
                "run one entry there at a time, or give each model its own server"
            )
        chosen_by[new] = label
        notes.append(f"{label}: {parsed.url} does not serve {parsed.model!r}; it serves only {name!r}, used instead")
        out.append((label, new))
    return ServedModels(out, notes)
