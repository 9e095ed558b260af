"""The GUI thread's garbage collector: nothing examined while the user works (the young
objects are frozen in constant time), cyclic garbage collected once it is quiet, and
never later than the longest wait under sustained work."""

from __future__ import annotations

import gc

from gtreview.ui.gui_thread import GuiThreadCollector


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Cycle:
    collected = 0

    def __init__(self) -> None:
        self.me = self

    def __del__(self) -> None:
        Cycle.collected += 1


def make_garbage(cycles: int = 50) -> None:
    for _ in range(cycles):
        Cycle()  # unreachable at once, but only a collection can free a cycle


def work(objects: int = 5_000) -> list[dict[str, int]]:
    return [{"n": n} for n in range(objects)]  # what a worker's read leaves: many young objects


def collector(clock: Clock) -> GuiThreadCollector:
    gc.collect()
    made = GuiThreadCollector(None, quiet_s=1.0, longest_wait_s=60.0, min_growth=1_000, growth=0.0, clock=clock)
    made.timer.stop()  # ticks are driven by the test
    return made


def test_busy_ticks_freeze_instead_of_collecting_and_a_quiet_tick_collects() -> None:
    clock = Clock()
    gc_collector = collector(clock)
    try:
        Cycle.collected = 0
        kept = []
        for _ in range(4):  # four busy ticks: a worker keeps allocating
            make_garbage()
            kept.append(work())
            clock.now += 0.25
            gc_collector.collect()
        assert Cycle.collected == 0 and gc_collector.full_collections == 0
        assert gc.get_count()[0] < 2_000  # the young objects left the collector's way
        clock.now += 1.0  # quiet: no burst of new objects since
        gc_collector.collect()
        assert gc_collector.full_collections == 1 and Cycle.collected == 200
        assert all(len(batch) == 5_000 for batch in kept)  # live objects are kept, of course
    finally:
        gc_collector.stop()


def test_sustained_work_is_collected_after_the_longest_wait() -> None:
    clock = Clock()
    gc_collector = collector(clock)
    try:
        Cycle.collected = 0
        ticks, kept = 0, []
        while gc_collector.full_collections == 0 and ticks < 400:
            make_garbage(5)
            kept.append(work())  # a long pass: what it reads stays (results, progress)
            clock.now += 0.25
            ticks += 1
            gc_collector.collect()
        assert gc_collector.full_collections == 1
        assert 60.0 <= ticks * 0.25 <= 61.0  # never quiet, so at the longest wait and not before
        assert Cycle.collected == 5 * ticks
    finally:
        gc_collector.stop()


class Hub:
    def __init__(self) -> None:
        self.running = True

    def working(self) -> bool:
        return self.running


def test_a_read_or_change_in_flight_counts_as_work() -> None:
    clock = Clock()
    gc_collector = collector(clock)
    hub = Hub()
    gc_collector.watch(hub)
    try:
        Cycle.collected = 0
        make_garbage()
        kept = work()
        for _ in range(8):  # two seconds of a worker in C (no new objects), its op in flight
            clock.now += 0.25
            gc_collector.collect()
        assert gc_collector.full_collections == 0
        hub.running = False
        clock.now += 1.0
        gc_collector.collect()
        assert gc_collector.full_collections == 1 and Cycle.collected == 50 and len(kept) == 5_000
    finally:
        gc_collector.stop()


def test_an_overdue_collection_waits_for_the_read_in_flight_to_end() -> None:
    clock = Clock()
    gc_collector = collector(clock)
    hub = Hub()
    gc_collector.watch(hub)
    try:
        Cycle.collected = 0
        kept = []
        for _ in range(4 * 70):  # 70 s of actions one after another, each read in flight
            make_garbage(1)
            kept.append(work(100))
            clock.now += 0.25
            gc_collector.collect()
        assert gc_collector.full_collections == 0  # past the longest wait, but never inside a read
        hub.running = False  # the read delivered; the user is not quiet yet (still allocating)
        make_garbage(1)
        kept.append(work(5_000))
        clock.now += 0.25
        gc_collector.collect()
        assert gc_collector.full_collections == 1 and Cycle.collected == 281
    finally:
        gc_collector.stop()


def test_work_that_never_pauses_is_collected_at_last() -> None:
    clock = Clock()
    gc_collector = collector(clock)
    gc_collector.watch(hub := Hub())
    try:
        ticks = 0
        while gc_collector.full_collections == 0 and ticks < 4 * 700:
            make_garbage(5)  # a pass's progress: garbage, and the heap growing
            clock.now += 0.25
            ticks += 1
            gc_collector.collect()
        assert hub.running and gc_collector.full_collections == 1
        assert ticks * 0.25 == GuiThreadCollector.OVERDUE_FACTOR * 60.0
    finally:
        gc_collector.stop()


def test_small_growth_waits_for_a_full_collection() -> None:
    clock = Clock()
    gc_collector = GuiThreadCollector(None, min_growth=10_000_000, clock=clock)
    gc_collector.timer.stop()
    try:
        Cycle.collected = 0
        make_garbage()
        work()
        clock.now += 100.0
        gc_collector.collect()
        assert gc_collector.full_collections == 0 and Cycle.collected == 0  # frozen, waiting
        gc_collector.collect_all()
        assert Cycle.collected == 50
    finally:
        gc_collector.stop()
