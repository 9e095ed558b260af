"""Fitting the KV cache and parallelism to a GPU's free memory: pure arithmetic, no model.

``fit_to_memory`` only ever shrinks what was asked for, parallelism first, never below
one sequence's floor, and never touches a value the user set; ``kv_shape`` reads a
cache cell's size from GGUF metadata; ``offloaded_layers`` is how ``n_gpu_layers``
resolves on a GPU and a CPU build.
"""

from __future__ import annotations

from typing import Any

import pytest

from gtreview.inference.memory_fit import (
    GIB,
    MARGIN_BYTES,
    MIB,
    MIN_CTX,
    KvShape,
    compute_estimate,
    fit_to_memory,
    kv_shape,
    offloaded_layers,
)

KIB = 1024
CELL = 100 * KIB  # a cache cell of a mid-size model
FIXED = 4 * GIB + 512 * MIB  # weights plus compute buffers


def exact(free_cells: int, **options: Any) -> Any:
    """A fit with no reserve, ``free_cells`` cells of room beyond the weights and buffers."""
    settings: dict[str, Any] = {
        "n_ctx": 8192,
        "n_seq_max": 8,
        "margin_fraction": 0.0,
        "margin_bytes": 0,
        "weight_bytes": 4 * GIB,
        "overhead_bytes": 512 * MIB,
    }
    settings.update(options)
    return fit_to_memory(free_bytes=FIXED + free_cells * CELL, bytes_per_cell=CELL, **settings)


# -- fit_to_memory ------------------------------------------------------------------------


def test_requested_values_are_kept_when_they_fit() -> None:
    fit = exact(8192)
    assert (fit.n_ctx, fit.n_seq_max, fit.fits, fit.changed) == (8192, 8, True, False)
    assert fit.needed_bytes == FIXED + 8192 * CELL
    assert "fits" in fit.reason and "8192 cells x 8 sequences" in fit.reason
    roomy = exact(10**6)
    assert (roomy.n_ctx, roomy.n_seq_max, roomy.changed) == (8192, 8, False)  # never grows


def test_parallelism_goes_first_each_sequence_keeping_its_share() -> None:
    fit = exact(5000)  # 8192 / 8 = 1024 cells a sequence
    assert (fit.n_ctx, fit.n_seq_max, fit.fits, fit.changed) == (4864, 4, True, True)  # 5000 rounded to 256s
    assert fit.n_ctx // fit.n_seq_max >= 1024
    assert "4864 cells x 4 sequences instead of 8192 cells x 8 sequences" in fit.reason
    assert exact(2100).n_seq_max == 2 and exact(2100).n_ctx == 2048


def test_then_the_one_sequence_gets_what_fits() -> None:
    fit = exact(700)
    assert (fit.n_ctx, fit.n_seq_max, fit.fits) == (512, 1, True)


def test_never_below_one_sequences_floor() -> None:
    fit = exact(300)  # 256 cells would fit, the floor is 512
    assert (fit.n_ctx, fit.n_seq_max, fit.fits) == (MIN_CTX, 1, False)
    assert "even 512 cells" in fit.reason
    nothing = exact(0, weight_bytes=40 * GIB)  # not even the weights fit
    assert (nothing.n_ctx, nothing.n_seq_max, nothing.fits) == (MIN_CTX, 1, False)


def test_the_longest_prompt_sets_the_floor_when_known() -> None:
    assert exact(5000, min_ctx=2000).n_ctx == 4864  # fits above the floor: unchanged by it
    fit = exact(1500, min_ctx=2000)
    assert (fit.n_ctx, fit.fits) == (2000, False)
    assert exact(1500, min_ctx=20_000).n_ctx == 8192  # a floor is never above what was asked


def test_a_context_the_user_set_is_kept() -> None:
    fit = exact(1000, ctx_fixed=True)
    assert (fit.n_ctx, fit.n_seq_max, fit.fits, fit.changed) == (8192, 8, False, False)
    assert "kept (ctx set in the spec)" in fit.reason and "lower ctx" in fit.reason
    both = exact(1000, ctx_fixed=True, seq_fixed=True)
    assert (both.n_ctx, both.n_seq_max) == (8192, 8) and "ctx and seq set in the spec" in both.reason
    assert exact(9000, ctx_fixed=True).fits  # kept and fits


def test_parallelism_the_user_set_is_kept_and_the_cache_shrinks() -> None:
    fit = exact(5000, seq_fixed=True)
    assert (fit.n_ctx, fit.n_seq_max, fit.fits) == (4864, 8, True)
    assert "(seq set in the spec)" in fit.reason


def test_the_reserve_is_a_fraction_of_free_memory_plus_a_fixed_amount() -> None:
    cell = MIB  # a large model's cell: 8 GiB of cache
    free = FIXED + 8192 * cell  # exactly enough without a reserve
    tight = fit_to_memory(free_bytes=free, bytes_per_cell=cell, weight_bytes=FIXED, n_ctx=8192, n_seq_max=8)
    reserve = int(free * 0.05) + MARGIN_BYTES  # 5% of 12.5 GiB and 512 MiB: 1,152 cells
    assert (tight.n_ctx, tight.n_seq_max, tight.fits) == (6912, 6, True)  # 8192 - 1152 = 7040, in 256s
    assert tight.needed_bytes == FIXED + reserve + 6912 * cell <= free
    roomy = fit_to_memory(
        free_bytes=free + 2 * reserve, bytes_per_cell=cell, weight_bytes=FIXED, n_ctx=8192, n_seq_max=8
    )
    assert not roomy.changed and roomy.fits
    wider = fit_to_memory(
        free_bytes=free + 2 * reserve,
        bytes_per_cell=cell,
        weight_bytes=FIXED,
        n_ctx=8192,
        n_seq_max=8,
        margin_fraction=0.2,
    )
    assert wider.changed and wider.n_ctx < 8192  # a larger margin leaves fewer cells
    none = fit_to_memory(
        free_bytes=free,
        bytes_per_cell=cell,
        weight_bytes=FIXED,
        n_ctx=8192,
        n_seq_max=8,
        margin_fraction=0.0,
        margin_bytes=0,
    )
    assert not none.changed


# A Llama-3-8B-shaped model at Q4_K_M: 32 layers x 8 KV heads x 128, f16 cache: 128 KiB a cell.
LLAMA8B = KvShape(n_layer=32, k_elements=32 * 8 * 128, v_elements=32 * 8 * 128)
LLAMA8B_WEIGHTS = 4_920 * MIB


@pytest.mark.parametrize(
    ("vram_gib", "expected"),
    [
        (80, (32768, 16, True)),
        (24, (32768, 16, True)),
        (12, (32768, 16, True)),  # 4 GiB of cache beside 4.8 GiB of weights
        (10, (31232, 15, True)),  # one sequence of 2,048 cells less
        (8, (15872, 7, True)),
        (6, (MIN_CTX, 1, True)),  # room for one short sequence
        (5, (MIN_CTX, 1, False)),  # the weights and the reserve leave nothing: the floor, said not to fit
    ],
)
def test_an_8b_model_on_cards_of_several_sizes(vram_gib: int, expected: tuple[int, int, bool]) -> None:
    overhead, per_cell = compute_estimate(n_batch=512, n_vocab=128_256, n_embd=4096, n_head=32, flash_attn=True)
    fit = fit_to_memory(
        free_bytes=vram_gib * GIB,
        bytes_per_cell=LLAMA8B.bytes_per_cell() + per_cell,
        weight_bytes=LLAMA8B_WEIGHTS,
        overhead_bytes=overhead,
        n_ctx=32768,
        n_seq_max=16,
    )
    assert (fit.n_ctx, fit.n_seq_max, fit.fits) == expected
    assert fit.fits == (fit.needed_bytes <= fit.free_bytes)
    assert f"{vram_gib}" in fit.reason.split(" GiB free")[0]


def test_more_memory_never_gives_less() -> None:
    previous = (0, 0)
    for free_mib in range(4_000, 40_000, 250):
        fit = fit_to_memory(
            free_bytes=free_mib * MIB,
            bytes_per_cell=LLAMA8B.bytes_per_cell(),
            weight_bytes=LLAMA8B_WEIGHTS,
            n_ctx=32768,
            n_seq_max=16,
        )
        assert (fit.n_ctx, fit.n_seq_max) >= previous
        assert fit.n_ctx <= 32768 and 1 <= fit.n_seq_max <= 16
        assert fit.n_ctx % 256 == 0
        previous = (fit.n_ctx, fit.n_seq_max)
    assert previous == (32768, 16)


def test_bad_requests_are_refused() -> None:
    with pytest.raises(ValueError):
        fit_to_memory(free_bytes=GIB, bytes_per_cell=CELL, n_ctx=0, n_seq_max=1)
    with pytest.raises(ValueError):
        fit_to_memory(free_bytes=-1, bytes_per_cell=CELL, n_ctx=16, n_seq_max=1)


def test_the_decision_is_recorded_whole() -> None:
    recorded = exact(5000).as_dict()
    assert recorded["n_ctx"] == 4864 and recorded["requested_ctx"] == 8192 and recorded["requested_seq"] == 8
    assert set(recorded) == {
        "n_ctx",
        "n_seq_max",
        "requested_ctx",
        "requested_seq",
        "free_bytes",
        "needed_bytes",
        "fits",
        "reason",
    }


# -- the cache cell from GGUF metadata ---------------------------------------------------


SMOLLM2 = {
    "llama.block_count": 30,
    "llama.embedding_length": 576,
    "llama.attention.head_count": 9,
    "llama.attention.head_count_kv": 3,
}
GEMMA3 = {
    "gemma3.block_count": 18,
    "gemma3.embedding_length": 640,
    "gemma3.attention.head_count": 4,
    "gemma3.attention.head_count_kv": 1,
    "gemma3.attention.key_length": 256,
    "gemma3.attention.value_length": 256,
}


def test_kv_shape_of_real_models() -> None:
    smol = kv_shape(SMOLLM2, "llama")  # head size 576 / 9 = 64
    assert smol == KvShape(n_layer=30, k_elements=30 * 3 * 64, v_elements=30 * 3 * 64, n_head=9)
    assert smol.bytes_per_cell() == 23_040  # f16: what llama.cpp's KV buffer takes a cell
    gemma = kv_shape(GEMMA3, "gemma3")  # key_length given (not 640 / 4)
    assert gemma == KvShape(n_layer=18, k_elements=18 * 256, v_elements=18 * 256, n_head=4)
    assert gemma.bytes_per_cell(type_size=1.0625) == round(2 * 18 * 256 * 1.0625)  # q8_0 cache


def test_kv_shape_per_layer_heads_and_defaults() -> None:
    hybrid = {
        "h.block_count": 3,
        "h.embedding_length": 256,
        "h.attention.head_count": 4,
        "h.attention.head_count_kv": [0, 2, 2],  # a recurrent layer keeps no KV
        "h.attention.key_length": 64,
        "h.attention.value_length": 32,
    }
    assert kv_shape(hybrid, "h") == KvShape(n_layer=3, k_elements=4 * 64, v_elements=4 * 32, n_head=4)
    no_kv_heads = {"a.block_count": 2, "a.embedding_length": 128, "a.attention.head_count": 4}
    assert kv_shape(no_kv_heads, "a") == KvShape(n_layer=2, k_elements=2 * 4 * 32, v_elements=2 * 4 * 32, n_head=4)
    long_array = {**no_kv_heads, "a.attention.head_count_kv": {"array_length": 2}}  # too long to have been kept
    assert kv_shape(long_array, "a") == kv_shape(no_kv_heads, "a")  # all heads: the larger estimate


@pytest.mark.parametrize(
    "metadata",
    [
        {},
        {"x.block_count": 2},
        {"x.block_count": 0, "x.attention.head_count": 4, "x.embedding_length": 64},
        {"x.block_count": 2, "x.attention.head_count": [4, 4, 4], "x.embedding_length": 64},
        {"x.block_count": True, "x.attention.head_count": 4, "x.embedding_length": 64},
        {"x.block_count": 2, "x.attention.head_count": 4},  # no width and no key_length
    ],
)
def test_kv_shape_unknown(metadata: dict[str, Any]) -> None:
    assert kv_shape(metadata, "x") is None


def test_partial_offload_puts_that_share_of_the_cache_on_the_gpu() -> None:
    assert LLAMA8B.bytes_per_cell(layers_offloaded=16) == LLAMA8B.bytes_per_cell() // 2
    assert LLAMA8B.bytes_per_cell(layers_offloaded=99) == LLAMA8B.bytes_per_cell()
    assert LLAMA8B.bytes_per_cell(layers_offloaded=0) == 0


def test_compute_estimate_counts_attention_scores_only_without_flash_attention() -> None:
    fixed, flash = compute_estimate(n_batch=512, n_vocab=1000, n_embd=64, n_head=8, flash_attn=True)
    again, plain = compute_estimate(n_batch=512, n_vocab=1000, n_embd=64, n_head=8, flash_attn=False)
    assert fixed == again == 4 * 512 * (1000 + 8 * 64)
    assert (flash, plain) == (4 * 512, 4 * 512 * 9)


# -- n_gpu_layers --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n_gpu_layers", "gpu_offload", "gpus", "expected"),
    [
        (-1, True, 1, 30),  # the default: every layer
        (-1, True, 2, 30),
        (999, True, 1, 30),
        (12, True, 1, 12),  # the user's number
        (0, True, 1, 0),  # the user asked for the CPU
        (-1, False, 0, 0),  # a CPU-only build: nothing moves
        (-1, False, 1, 0),
        (-1, True, 0, 0),  # a GPU build on a machine without a GPU
    ],
)
def test_offloaded_layers(n_gpu_layers: int, gpu_offload: bool, gpus: int, expected: int) -> None:
    assert offloaded_layers(n_gpu_layers, 30, gpu_offload, gpus) == expected
