"""The memory bound of a model worker: what it may hold beyond the loaded model.

A generation's time is bounded (the spec's ``timeout``), but memory was not: a chat
template that loops while it writes grew a worker to 2.3 GB in 30 s. The parent, which
already watches the child while it waits, also reads the child's anonymous resident
memory (``RssAnon``: heap and anonymous maps, not the mmapped model file, whose pages
the kernel may drop and refetch at will) and stops the child once it has grown more than
its headroom above what it held when the model was loaded, with one line that says so;
the requests lost come back as error results, as for any worker that dies.

The baseline is taken when the child reports the model open: by then llama.cpp has
allocated its weights (when copied, repacked or offloaded), the KV cache and the
compute buffers. What a generation adds on top (token lists, the rendered prompt, the
sampler and grammar state) is megabytes; the headroom is a GiB plus a quarter of the
baseline, so only a runaway reaches it.

Linux only (``/proc``); elsewhere the memory is not read and the time bound remains.
"""

from __future__ import annotations

from dataclasses import dataclass

GIB = 2**30
DEFAULT_HEADROOM_BYTES = GIB
HEADROOM_FRACTION = 0.25
CHECK_EVERY_S = 0.05  # one small /proc read: the parent's wait loop already wakes this often


def anon_rss_bytes(pid: int | None) -> int | None:
    """The process's anonymous resident memory in bytes; None when it cannot be read."""
    if pid is None:
        return None
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("RssAnon:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


@dataclass(frozen=True)
class MemoryBound:
    """The most anonymous memory the child may hold: its baseline plus the headroom."""

    baseline: int
    limit: int

    @classmethod
    def above(cls, baseline: int, headroom: int | None = None) -> MemoryBound:
        room = headroom if headroom is not None else DEFAULT_HEADROOM_BYTES + int(baseline * HEADROOM_FRACTION)
        return cls(baseline=baseline, limit=baseline + room)

    def exceeded(self, pid: int | None) -> str | None:
        """The one line to record when the child holds more than the limit, else None."""
        held = anon_rss_bytes(pid)
        if held is None or held <= self.limit:
            return None
        return (
            f"the model worker held {_size(held)}, over its bound of {_size(self.limit)} "
            f"({_size(self.limit - self.baseline)} above the loaded model: a generation or chat template "
            "that grows without end); the model worker was stopped"
        )


def _size(n: int) -> str:
    return f"{n / GIB:.2f} GiB" if n >= GIB else f"{n / 2**20:.0f} MiB"


__all__ = ["DEFAULT_HEADROOM_BYTES", "MemoryBound", "anon_rss_bytes"]
