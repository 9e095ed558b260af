"""How many cache cells and parallel sequences fit in a GPU's free memory (pure arithmetic).

The engine holds one context over a unified KV cache of ``n_ctx`` cells shared by up to
``n_seq_max`` sequences (:mod:`.llama_engine`). With every layer offloaded, that cache
lives in GPU memory beside the weights, and a context that does not fit fails to be
created (or, on some drivers, spills to host memory and crawls). So, when the user did
not set ``ctx``/``seq`` in the spec, the engine asks the GPU what is free and shrinks
the request until it fits:

* the KV cache costs ``n_ctx x`` :meth:`KvShape.bytes_per_cell` (K and V of every
  offloaded layer, f16 unless told otherwise); a unified cache costs that whatever the
  parallelism, so what has to give is the number of cells;
* parallelism goes first: each sequence keeps the share of the cache it was asked with
  (``n_ctx / n_seq_max``) and fewer sequences run side by side;
* when one sequence's share no longer fits, the one remaining sequence gets what fits,
  but never less than ``min_ctx`` (the longest prompt plus its reply when the caller
  knows it, else :data:`MIN_CTX`): below that the request is kept as the floor and the
  result says it does not fit.

A setting the user chose is never changed (``ctx_fixed``/``seq_fixed``), and the
requested values are kept whenever they fit: this only ever shrinks. A reserve stays
free for what the estimate leaves out (the CUDA context, the compute graph's buffers,
other programs): ``margin_fraction`` of the free memory plus ``margin_bytes``.

The estimate over-counts for models whose sliding-window layers keep a shorter cache
(Gemma 3) and ignores recurrent state (Mamba-style layers); both err on the side of
fitting.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

GIB = 2**30
MIB = 2**20
MIN_CTX = 512  # the floor of a cache when the caller knows no prompt
CTX_STEP = 256  # llama.cpp pads a cache to 256 cells; a shrunk one is a multiple of it
MARGIN_FRACTION = 0.05
MARGIN_BYTES = 512 * MIB
F16_BYTES = 2.0


@dataclass(frozen=True)
class KvShape:
    """What one cache cell (one token of one sequence) holds: K and V rows of each layer."""

    n_layer: int
    k_elements: int  # K elements per token, summed over the layers (n_embd_k_gqa each)
    v_elements: int  # V elements per token, summed over the layers
    n_head: int = 0  # query heads of the widest layer (attention scores without flash attention)

    def bytes_per_cell(self, type_size: float = F16_BYTES, layers_offloaded: int | None = None) -> int:
        """Bytes one cell takes in GPU memory when ``layers_offloaded`` of the layers are
        there (all by default); K and V stored at ``type_size`` bytes an element."""
        share = 1.0 if layers_offloaded is None else max(0, min(layers_offloaded, self.n_layer)) / self.n_layer
        return round((self.k_elements + self.v_elements) * type_size * share)


def _per_layer(value: Any, n_layer: int) -> list[int] | None:
    """A per-layer hyperparameter: one integer for every layer, or a list of them."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return [value] * n_layer
    if isinstance(value, list) and len(value) == n_layer and all(isinstance(v, int) for v in value):
        return list(value)
    return None  # absent, or an array too long to have been kept (gguf_check keeps 64 items)


def kv_shape(metadata: Mapping[str, Any], architecture: str) -> KvShape | None:
    """The KV shape from a GGUF's metadata (``{arch}.block_count``, ``.embedding_length``,
    ``.attention.head_count[_kv]``, ``.attention.key_length``/``value_length``), or None
    when it does not say enough (then nothing is sized)."""

    def key(name: str) -> Any:
        return metadata.get(f"{architecture}.{name}")

    n_layer = key("block_count")
    n_embd = key("embedding_length")
    if not isinstance(n_layer, int) or n_layer <= 0 or isinstance(n_layer, bool):
        return None
    heads = _per_layer(key("attention.head_count"), n_layer)
    kv_heads = _per_layer(key("attention.head_count_kv"), n_layer) or heads
    if heads is None or kv_heads is None:
        return None
    k_length = key("attention.key_length")
    v_length = key("attention.value_length")
    if not isinstance(k_length, int) or k_length <= 0:
        widest = max(heads)
        if not isinstance(n_embd, int) or widest <= 0:
            return None
        k_length = n_embd // widest
    if not isinstance(v_length, int) or v_length <= 0:
        v_length = k_length
    return KvShape(
        n_layer=n_layer,
        k_elements=sum(kv_heads) * k_length,
        v_elements=sum(kv_heads) * v_length,
        n_head=max(heads),
    )


@dataclass(frozen=True)
class MemoryFit:
    """The cache and parallelism chosen for the memory there is, and why (``reason``)."""

    n_ctx: int
    n_seq_max: int
    requested_ctx: int
    requested_seq: int
    free_bytes: int
    needed_bytes: int  # the estimate at the chosen n_ctx: weights + cache + overhead + reserve
    fits: bool
    reason: str  # one line, logged and recorded

    @property
    def changed(self) -> bool:
        return (self.n_ctx, self.n_seq_max) != (self.requested_ctx, self.requested_seq)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _gib(n: float) -> str:
    if abs(n) < GIB:
        return f"{n / MIB:.0f} MiB"
    return f"{n / GIB:.2f} GiB" if abs(n) < 10 * GIB else f"{n / GIB:.1f} GiB"


def _cells(n_ctx: int, n_seq: int) -> str:
    return f"{n_ctx} cells x {n_seq} sequence{'' if n_seq == 1 else 's'}"


def fit_to_memory(
    *,
    free_bytes: int,
    bytes_per_cell: int,
    n_ctx: int,
    n_seq_max: int,
    weight_bytes: int = 0,
    overhead_bytes: int = 0,
    ctx_fixed: bool = False,
    seq_fixed: bool = False,
    min_ctx: int | None = None,
    margin_fraction: float = MARGIN_FRACTION,
    margin_bytes: int = MARGIN_BYTES,
    where: str = "the GPU",
) -> MemoryFit:
    """The ``n_ctx``/``n_seq_max`` that fit in ``free_bytes`` of device memory.

    ``weight_bytes`` is what the model's offloaded weights will take (0 when ``free_bytes``
    was read after they were loaded), ``overhead_bytes`` the compute buffers beside the
    cache, ``bytes_per_cell`` the cache's cost per cell. ``ctx_fixed``/``seq_fixed``: the
    user set that value, which is then kept whatever the estimate says. ``min_ctx``: the
    cells one sequence of the longest prompt needs (prompt plus reply), when known.
    """
    if n_ctx < 1 or n_seq_max < 1 or bytes_per_cell < 0 or free_bytes < 0:
        raise ValueError("n_ctx and n_seq_max must be positive, bytes and free memory non-negative")
    reserve = int(free_bytes * margin_fraction) + margin_bytes
    fixed = weight_bytes + overhead_bytes + reserve
    room = free_bytes - fixed
    cells = room // bytes_per_cell if bytes_per_cell and room > 0 else (n_ctx if room >= 0 else 0)
    share = -(-n_ctx // n_seq_max)  # each sequence's part of the requested cache

    def needed(ctx: int) -> int:
        return fixed + ctx * bytes_per_cell

    def result(ctx: int, seq: int, fits: bool, reason: str) -> MemoryFit:
        return MemoryFit(ctx, seq, n_ctx, n_seq_max, free_bytes, needed(ctx), fits, reason)

    budget = f"{_gib(free_bytes)} free on {where}"
    asked = _cells(n_ctx, n_seq_max)
    if n_ctx <= cells:
        return result(n_ctx, n_seq_max, True, f"{budget}: the cache of {asked} ({_gib(n_ctx * bytes_per_cell)}) fits")
    if ctx_fixed:
        who = "ctx set in the spec" if not seq_fixed else "ctx and seq set in the spec"
        return result(
            n_ctx,
            n_seq_max,
            False,
            f"{budget}: {asked} needs about {_gib(needed(n_ctx))} with the reserve, more than there is; "
            f"kept ({who}); lower ctx if the context cannot be created",
        )
    floor = min(n_ctx, max(min_ctx or MIN_CTX, 1))
    ctx = max(cells // CTX_STEP * CTX_STEP, min(cells, CTX_STEP))
    seq = n_seq_max if seq_fixed else max(1, min(n_seq_max, ctx // share))
    if ctx < floor:
        return result(
            floor,
            seq,
            False,
            f"{budget}: even {floor} cells (one sequence's least) need about {_gib(needed(floor))} with the reserve; "
            f"trying {_cells(floor, seq)} instead of {asked}",
        )
    kept = " (seq set in the spec)" if seq_fixed else ""
    return result(
        ctx,
        seq,
        True,
        f"{budget}: {_cells(ctx, seq)}{kept} instead of {asked} "
        f"({_gib(bytes_per_cell * 1024)} per 1k cells, {_gib(fixed)} for weights, buffers and reserve)",
    )


def offloaded_layers(n_gpu_layers: int, n_layer: int, gpu_offload: bool, gpu_devices: int) -> int:
    """The repeating layers llama.cpp puts on a GPU for ``n_gpu_layers``: a negative value
    (the default, -1) means all of them (llama.cpp 0.5 reads it so), N means the last N;
    none on a build without GPU offload or with no GPU device."""
    if not gpu_offload or gpu_devices <= 0 or n_layer <= 0:
        return 0
    return n_layer if n_gpu_layers < 0 else min(n_gpu_layers, n_layer)


def compute_estimate(*, n_batch: int, n_vocab: int, n_embd: int, n_head: int, flash_attn: bool) -> tuple[int, int]:
    """(bytes, bytes per cache cell) of the compute buffers beside the cache: a batch's
    logits and activations (f32), and per cell the attention mask, plus, without flash
    attention, the attention scores of every head (the graph reuses them layer to layer)."""
    fixed = 4 * n_batch * (n_vocab + 8 * n_embd)
    per_cell = 4 * n_batch * (1 + (0 if flash_attn else n_head))
    return fixed, per_cell
