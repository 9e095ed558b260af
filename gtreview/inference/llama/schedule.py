"""Continuous batching for the engine: a finished sequence's slot is refilled at once.

Static waves (a wave runs until its longest answer ends, then the cache is cleared)
leave most slots idle on a real model, whose answers end anywhere from 20 to hundreds
of tokens. Here every decode step asks whether a slot is free and a request waits; if
so the request is admitted in that same step: its prompt is prefilled in the batch
that also advances the running sequences. Requests are taken in prompt order (the
queue is sorted), so the ones that share a prefix come one after the other.

A shared prefix stays in the KV cache across the requests that share it. A finished
sequence's cells are kept ("dormant") until its slot or its cells are needed; a new
request copies, by ``llama_memory_seq_cp`` (which only tags cells in a unified cache),
the longest prompt prefix any running or dormant sequence holds, and prefills only the
rest. Requests admitted together share their common stretches as a prefix tree
(:mod:`gtreview.inference.llama.prefix_plan`), each stretch prefilled once.

Memory is accounted exactly (:class:`~gtreview.inference.llama.kv_cells.CellMap`): a request
is admitted only when the cells in use, its own new cells and every admitted
request's remaining ``max_tokens`` fit in ``n_ctx``, so no running sequence ever runs out
of room and a result does not depend on its neighbours beyond float rounding. Dormant
cells are dropped when room is needed; a lone request too long for the cache runs
alone and ends with ``length`` when the cells run out.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import llama_cpp

from gtreview.inference.backend import CompletionRequest, FinishReason
from gtreview.inference.llama.kv_cells import CellMap
from gtreview.inference.llama.prefix_plan import plan_prefixes, shared_prefix_length
from gtreview.inference.llama.sampling import SequenceSampler

if TYPE_CHECKING:
    from gtreview.inference.llama.engine import BatchedLlamaEngine


@dataclass
class Job:
    """One request on its way through the engine."""

    index: int
    request: CompletionRequest
    prompt: list[int]
    grammar: str | None
    sampler: SequenceSampler | None = None
    seq: int = 0
    pos: int = 0  # the position of feed[0] in this sequence
    feed: list[int] = field(default_factory=list)  # what the next step decodes: the sampled token, then forced ones
    generated: list[int] = field(default_factory=list)
    output_bytes: int = 0  # the answer's bytes so far (the engine bounds them)
    finish: FinishReason | None = None
    error: str | None = None
    reported: bool = False

    @property
    def max_tokens(self) -> int:
        return max(0, self.request.sampling.max_tokens)


class DecodeError(RuntimeError):
    """llama_decode failed; the scheduler fails the jobs in that batch."""


@dataclass
class _Slot:
    seq: int
    job: Job | None = None
    tokens: list[int] = field(default_factory=list)  # the prompt whose cells it holds


# Operations of an admission round, in order: ("rm", seq, p0), ("cp", src, dst, p0, p1),
# ("decode", job, seq, start, end) for a shared stretch, ("prefill", job, seq, start, end)
# for a request's own suffix (decoded last, in the step with the running sequences).
Op = tuple[object, ...]


class Scheduler:
    """Runs jobs (already prepared, not finished) through the engine's slots."""

    def __init__(self, engine: BatchedLlamaEngine, cancel: threading.Event | None) -> None:
        self.engine, self.cancel = engine, cancel
        self.slots = [_Slot(seq) for seq in range(engine.n_seq_max)]
        self.cells = CellMap()
        self.stats = engine.stats

    # -- the loop ---------------------------------------------------------------------

    def run(self, jobs: Sequence[Job]) -> None:
        engine = self.engine
        queue = deque(sorted(jobs, key=lambda j: j.prompt))
        llama_cpp.llama_memory_clear(engine._memory, True)
        self.cells.clear()
        try:
            while queue or self.live:
                if self.cancel is not None and self.cancel.is_set():
                    self._fail([*self.live, *queue], "cancelled")
                    break
                admitted = self._admit(queue)
                live = [j for j in self.live if j not in admitted]
                try:
                    self._step(admitted, live, waiting=bool(queue))
                except DecodeError as exc:  # the cache is in an unknown state: start afresh
                    self._fail([*admitted, *live], str(exc))
                    self._reset()
                self._retire()
        finally:
            for slot in self.slots:
                if slot.job is not None and slot.job.finish is None:
                    slot.job.finish, slot.job.error = "error", "the engine stopped"
            self._retire()
            llama_cpp.llama_memory_clear(engine._memory, True)
            self.cells.clear()

    @property
    def live(self) -> list[Job]:
        return [s.job for s in self.slots if s.job is not None and s.job.finish is None]

    def _step(self, admitted: list[Job], live: list[Job], *, waiting: bool) -> None:
        """One llama_decode: the admitted requests' own suffixes and one token of every
        running sequence; then sample each output."""
        engine, cells = self.engine, self.cells
        entries: list[tuple[int, int, int, bool]] = []
        for job in admitted:
            start = self.cells.length(job.seq)
            entries += [(job.prompt[p], p, job.seq, p == len(job.prompt) - 1) for p in range(start, len(job.prompt))]
            self.stats.prefill_tokens += len(job.prompt) - start
        prefill = len(entries)
        room = engine.n_ctx - cells.used - prefill
        fed: dict[int, tuple[int, int]] = {}  # seq -> the positions this step feeds
        for job in live:
            if room < len(job.feed):  # only a lone over-long request gets here: the cells ran out
                job.finish = "length"
                continue
            room -= len(job.feed)
            last = len(job.feed) - 1
            entries += [(token, job.pos + i, job.seq, i == last) for i, token in enumerate(job.feed)]
            fed[job.seq] = (job.pos, job.pos + len(job.feed))
        if not entries:
            return
        stepping = [j for j in live if j.finish is None]
        by_seq = {job.seq: job for job in [*admitted, *stepping]}
        forced_before = self.stats.forced_tokens
        began = time.perf_counter()
        in_decode, in_sampling = engine._decode(entries, lambda seq, i: engine._sample(by_seq[seq], i))
        took = time.perf_counter() - began
        for job in admitted:
            cells.add(job.seq, cells.length(job.seq), len(job.prompt))
        for job in stepping:
            cells.add(job.seq, *fed[job.seq])
        if stepping:
            # One token sampled by each stepping sequence (an end of generation too), and the
            # tokens a grammar forced after them (the admitted requests' forced ones count too).
            produced = len(stepping) + self.stats.forced_tokens - forced_before
            self.stats.steps += 1
            self.stats.step_tokens += produced
            if waiting:
                self.stats.queued_steps += 1
                self.stats.queued_live += len(stepping) + len(admitted)
            if not prefill:
                self.stats.pure_steps += 1
                self.stats.pure_step_tokens += produced
                self.stats.step_seconds += took
                self.stats.step_decode_seconds += in_decode
                self.stats.step_sample_seconds += in_sampling
        engine._report([*admitted, *stepping])

    def _retire(self) -> None:
        """Free the samplers of finished jobs; their slots turn dormant, keeping their
        prompt's cells (a prefix to reuse) but not the answer's: every step attends over
        the cache up to its highest cell in use, so unneeded cells cost time."""
        memory = self.engine._memory
        for slot in self.slots:
            job = slot.job
            if job is not None and job.finish is not None:
                if self.cells.length(slot.seq) > len(job.prompt):
                    llama_cpp.llama_memory_seq_rm(memory, slot.seq, len(job.prompt), -1)
                    self.cells.remove(slot.seq, len(job.prompt))
                if job.sampler is not None:
                    self.stats.grammar_rejections += job.sampler.rejections
                    self.stats.grammar_full_filters += job.sampler.full_filters
                    job.sampler.free()
                    job.sampler = None
                slot.job = None

    def _reset(self) -> None:
        llama_cpp.llama_memory_clear(self.engine._memory, True)
        self.cells.clear()
        for slot in self.slots:
            slot.tokens = []

    @staticmethod
    def _fail(jobs: Sequence[Job], message: str) -> None:
        for job in jobs:
            if job.finish is None:
                job.finish, job.error = "error", message

    # -- admission --------------------------------------------------------------------

    def _admit(self, queue: deque[Job]) -> list[Job]:
        """Take waiting requests, in order, into free slots while they fit; issue their
        rm/cp ops and shared prefills now (their own suffixes go into the next step)."""
        free = [s for s in self.slots if s.job is None]
        if not queue or not free:
            return []
        # Cells a running request may still add: what it has yet to feed (its last sampled
        # token and any forced ones) and the tokens it may still generate.
        reserve = sum(len(j.feed) + max(0, j.max_tokens - len(j.generated)) for j in self.live)
        chosen: list[tuple[Job, _Slot]] = []
        plan: list[Op] = []
        evict: list[_Slot] = []
        for job in queue:
            if len(chosen) == len(free):
                break
            taken = {s.seq for _, s in chosen}
            trial = [*chosen, (job, self._target(job, [s for s in free if s.seq not in taken]))]
            need = reserve + sum(j.max_tokens for j, _ in trial)
            found = None
            for extra in self._evictions(trial, evict):
                ops = self._plan(trial, [*evict, *extra])
                if self._fits([*evict, *extra], ops, need):
                    found = extra, ops
                    break
            if found is None:
                if not chosen and not self.live:  # alone and still too long: run it anyway
                    evict = [s for s in self.slots if s.job is None and s.tokens and s is not trial[0][1]]
                    chosen, plan = trial, self._plan(trial, evict)
                break
            evict = [*evict, *found[0]]
            chosen, plan = trial, found[1]
        for _ in chosen:
            queue.popleft()
        return self._execute(chosen, plan, evict) if chosen else []

    def _evictions(self, trial: list[tuple[Job, _Slot]], evict: list[_Slot]) -> list[list[_Slot]]:
        """What more to drop, in turn, to make room: nothing; the dormant sequences the
        plan does not reuse; every dormant sequence that is not a target."""
        targets = {s.seq for _, s in trial} | {s.seq for s in evict}
        dormant = [s for s in self.slots if s.job is None and s.tokens and s.seq not in targets]
        donors = {int(op[1]) for op in self._plan(trial, evict) if op[0] == "cp"}  # type: ignore[call-overload]
        unused = [s for s in dormant if s.seq not in donors]
        options: list[list[_Slot]] = [[]]
        if unused:
            options.append(unused)
        if len(dormant) > len(unused):
            options.append(dormant)
        return options

    def _fits(self, evict: list[_Slot], ops: list[Op], need: int) -> bool:
        trial = self.cells.clone()
        for slot in evict:
            trial.remove(slot.seq)
        _apply(trial, ops)
        return trial.used + need <= self.engine.n_ctx

    def _target(self, job: Job, free: list[_Slot]) -> _Slot:
        """The free slot whose dormant prompt shares most with ``job`` (an empty one else)."""
        return max(free, key=lambda s: (self._match(job, s), not s.tokens, -s.seq))

    def _match(self, job: Job, slot: _Slot) -> int:
        """Prompt tokens ``job`` can take from ``slot``'s cells (it keeps at least its last
        token to decode itself: that one gives its first logits)."""
        held = slot.tokens[: self.cells.length(slot.seq)]
        return min(shared_prefix_length([job.prompt, held]) if held else 0, len(job.prompt) - 1)

    def _plan(self, chosen: list[tuple[Job, _Slot]], evict: Sequence[_Slot] = ()) -> list[Op]:
        """The ops that give every chosen job its prompt's cells, reusing the cache: each
        takes the longest prefix its own (dormant) slot or another sequence holds, then
        the stretches the chosen share are prefilled once and copied, then each own
        suffix (a "prefill" op, decoded in the step)."""
        ops: list[Op] = []
        excluded = {s.seq for _, s in chosen} | {s.seq for s in evict}
        donors = [s for s in self.slots if s.tokens and s.seq not in excluded]
        have: list[int] = []
        for job, slot in chosen:
            own = self._match(job, slot)
            best = max(donors, key=lambda d: self._match(job, d), default=None)
            reuse = self._match(job, best) if best is not None else 0
            if best is not None and reuse > own:
                ops += [("rm", slot.seq, 0), ("cp", best.seq, slot.seq, 0, reuse)]
            else:
                reuse = own
                ops.append(("rm", slot.seq, own))
            have.append(reuse)
        prefix = plan_prefixes([job.prompt for job, _ in chosen])
        for segment in prefix.segments:  # parents first, so every member holds [0, start)
            members = [segment.owner, *segment.copies]
            if all(have[m] >= segment.end for m in members):
                continue
            decoder = max(members, key=lambda m: (have[m], m == segment.owner))
            job, slot = chosen[decoder]
            if have[decoder] < segment.end:
                ops.append(("decode", job, slot.seq, have[decoder], segment.end))
                have[decoder] = segment.end
            for m in members:
                if have[m] < segment.end:
                    ops.append(("cp", slot.seq, chosen[m][1].seq, have[m], segment.end))
                    have[m] = segment.end
        for (job, slot), start in zip(chosen, have, strict=True):
            ops.append(("prefill", job, slot.seq, start, len(job.prompt)))
        return ops

    def _execute(self, chosen: list[tuple[Job, _Slot]], plan: list[Op], evict: list[_Slot]) -> list[Job]:
        engine, memory, cells = self.engine, self.engine._memory, self.cells
        for slot in evict:
            llama_cpp.llama_memory_seq_rm(memory, slot.seq, 0, -1)
            cells.remove(slot.seq)
            slot.tokens = []
        admitted = []
        for job, slot in chosen:
            job.seq = slot.seq
            slot.job, slot.tokens = job, job.prompt
            try:
                job.sampler = SequenceSampler(
                    engine._vocab,
                    job.request.sampling,
                    job.grammar,
                    engine._candidates,
                    lazy=engine.lazy_grammar,
                    probe=engine.probe if engine.jump_forward and job.grammar is not None else None,
                    numpy_top_p=engine.numpy_top_p,
                )
            except ValueError as exc:
                job.finish, job.error = "error", str(exc)
                continue
            admitted.append(job)
        try:
            for op in plan:
                if op[0] == "rm":
                    _, seq, p0 = op
                    llama_cpp.llama_memory_seq_rm(memory, seq, p0, -1)
                    cells.remove(int(seq), int(p0))  # type: ignore[call-overload]
                    self.stats.reused_tokens += int(p0)  # type: ignore[call-overload]  # its own cells kept
                elif op[0] == "cp":
                    _, src, dst, p0, p1 = op
                    llama_cpp.llama_memory_seq_cp(memory, src, dst, p0, p1)
                    cells.copy(*(int(x) for x in (src, dst, p0, p1)))  # type: ignore[call-overload]
                    self.stats.reused_tokens += int(p1) - int(p0)  # type: ignore[call-overload]
                elif op[0] == "decode":
                    _, owner, seq, start, end = op
                    assert isinstance(owner, Job) and isinstance(seq, int) and isinstance(start, int)
                    assert isinstance(end, int)
                    engine._decode([(owner.prompt[p], p, seq, False) for p in range(start, end)])
                    cells.add(seq, start, end)
                    self.stats.prefill_tokens += end - start
        except DecodeError as exc:
            self._fail(admitted, str(exc))
            self._reset()
            return []
        return [j for j in admitted if j.finish is None]


def _apply(cells: CellMap, ops: list[Op]) -> None:
    """What ``ops`` do to the cell map (prefills of the own suffixes are not ops: the
    caller counts them with ``need``)."""
    for op in ops:
        if op[0] == "rm":
            cells.remove(int(op[1]), int(op[2]))  # type: ignore[call-overload]
        elif op[0] == "cp":
            cells.copy(*(int(x) for x in op[1:]))  # type: ignore[call-overload]
        else:
            cells.add(int(op[2]), int(op[3]), int(op[4]))  # type: ignore[call-overload]
