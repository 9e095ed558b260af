"""The KV cell map: shared cells are counted once and freed with their last holder."""

import pytest

from gtreview.inference.llama.kv_cells import CellMap


def test_adding_copying_and_removing_counts_each_cell_once() -> None:
    cells = CellMap()
    cells.add(0, 0, 100)  # a shared prefix, decoded in sequence 0
    cells.copy(0, 1, 0, 100)  # tagged for sequence 1: no new cells
    cells.copy(0, 2, 0, 60)  # a shorter prefix for sequence 2
    assert cells.used == 100 and [cells.length(s) for s in range(3)] == [100, 100, 60]
    cells.add(1, 100, 110)
    cells.add(2, 60, 70)
    assert cells.used == 120
    cells.remove(0)  # sequence 0 ends: its prefix lives on in 1 and 2
    assert cells.used == 120 and cells.length(0) == 0
    cells.remove(1, 50)  # 1 keeps [0, 50): its [60, 110) cells were its own or 0's
    assert cells.length(1) == 50 and cells.used == 70
    cells.remove(2)
    assert cells.used == 50
    cells.remove(1)
    assert cells.used == 0


def test_generated_tokens_grow_the_sequences_own_block() -> None:
    cells = CellMap()
    cells.add(0, 0, 10)
    cells.copy(0, 1, 0, 10)
    for pos in range(10, 20):  # one token per step, each in its own sequence
        cells.add(0, pos, pos + 1)
        cells.add(1, pos, pos + 1)
    assert cells.used == 30 and cells.length(0) == cells.length(1) == 20
    assert len(cells._seqs[0]) == 2  # the shared block and one growing block of its own


def test_a_clone_is_independent() -> None:
    cells = CellMap()
    cells.add(0, 0, 8)
    cells.copy(0, 1, 0, 8)
    trial = cells.clone()
    trial.remove(0)
    trial.remove(1, 4)
    assert (trial.used, cells.used) == (4, 8)
    assert cells.length(0) == cells.length(1) == 8


def test_copies_must_extend_what_the_target_holds() -> None:
    cells = CellMap()
    cells.add(0, 0, 8)
    with pytest.raises(ValueError, match="cannot copy"):
        cells.copy(0, 1, 2, 8)  # sequence 1 holds nothing of [0, 2)
    with pytest.raises(ValueError, match="cannot add"):
        cells.add(0, 9, 10)  # a gap
