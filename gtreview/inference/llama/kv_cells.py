"""How many KV cells are in use, when sequences share cells (pure Python, no llama.cpp).

In a unified KV cache ``llama_memory_seq_cp`` does not copy data: it tags the source's
cells with one more sequence id. A cell is free again only when no sequence holds it,
and llama.cpp no longer reports the number of cells in use, so the engine keeps this
map of which sequence holds which stretch of positions and in which cells, mirroring
every ``decode``/``seq_cp``/``seq_rm`` it issues. The continuous-batching scheduler
asks it whether a new request still fits beside the running ones.

A sequence holds positions ``[0, length)`` as a list of blocks; a block is a run of
cells for consecutive positions, shared by the sequences in its ``holders``.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(eq=False)
class _Block:
    start: int
    end: int
    holders: set[int] = field(default_factory=set)


class CellMap:
    """The cells each sequence holds; ``used`` is the number of cells held by any."""

    def __init__(self) -> None:
        self._seqs: dict[int, list[_Block]] = {}
        self.used = 0

    def clone(self) -> CellMap:
        """An independent copy (for trying a plan before issuing it)."""
        other = CellMap()
        blocks: dict[int, _Block] = {}
        for seq, held in self._seqs.items():
            copies = []
            for block in held:
                if id(block) not in blocks:
                    blocks[id(block)] = _Block(block.start, block.end, set(block.holders))
                copies.append(blocks[id(block)])
            other._seqs[seq] = copies
        other.used = self.used
        return other

    def length(self, seq: int) -> int:
        """Positions ``seq`` holds (it always holds a prefix ``[0, length)``)."""
        held = self._seqs.get(seq)
        return held[-1].end if held else 0

    def add(self, seq: int, start: int, end: int) -> None:
        """New cells decoded into ``seq`` for positions ``[start, end)``, after what it holds."""
        if end <= start:
            return
        if start != self.length(seq):
            raise ValueError(f"sequence {seq} holds {self.length(seq)} positions; cannot add from {start}")
        held = self._seqs.setdefault(seq, [])
        last = held[-1] if held else None
        if last is not None and last.holders == {seq}:
            last.end = end  # its own stretch grows (a generated token per step)
        else:
            held.append(_Block(start, end, {seq}))
        self.used += end - start

    def copy(self, src: int, dst: int, p0: int, p1: int) -> None:
        """``seq_cp(src, dst, p0, p1)``: ``dst``, holding exactly ``[0, p0)``, now shares
        ``src``'s cells for ``[p0, p1)``."""
        if p1 <= p0:
            return
        if self.length(dst) != p0 or self.length(src) < p1:
            raise ValueError(f"cannot copy [{p0}, {p1}) from sequence {src} to {dst}")
        self._split(src, p0)
        self._split(src, p1)
        held = self._seqs.setdefault(dst, [])
        for block in self._seqs[src]:
            if p0 <= block.start and block.end <= p1:
                block.holders.add(dst)
                held.append(block)

    def remove(self, seq: int, p0: int = 0) -> None:
        """``seq_rm(seq, p0, -1)``: ``seq`` lets go of positions ``[p0, ...)``."""
        if self.length(seq) <= p0:
            return
        self._split(seq, p0)
        held = self._seqs[seq]
        keep = [b for b in held if b.end <= p0]
        for block in held[len(keep) :]:
            block.holders.discard(seq)
            if not block.holders:
                self.used -= block.end - block.start
        if keep:
            self._seqs[seq] = keep
        else:
            del self._seqs[seq]

    def clear(self) -> None:
        self._seqs.clear()
        self.used = 0

    def _split(self, seq: int, pos: int) -> None:
        """Make ``pos`` a block boundary in ``seq`` (and in every holder of that block)."""
        for block in self._seqs.get(seq, []):
            if block.start < pos < block.end:
                tail = _Block(pos, block.end, set(block.holders))
                block.end = pos
                for holder in block.holders:
                    blocks = self._seqs[holder]
                    blocks.insert(blocks.index(block) + 1, tail)
                return
