"""What a long job is doing, as one value every job reports and every front-end shows.

A pass, a calibration, drafting, the probes and the exports run for minutes or hours.
Each reports ``JobProgress`` values as it goes (the phase, n of N in the phase's unit,
the tokens generated, the seconds the phase has run, what it waits for), and the window
keeps one ``Activity`` per running job (its kind, what runs, when it started, whether
it can be cancelled, its latest progress). ``Activity.line`` is the one wording of a
running job; ``JobProgress.describe`` the one wording of a phase (the CLI's progress
lines, the Runs view).

Pure: the clock is passed in (``now``, seconds of ``time.monotonic``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from pydantic import BaseModel


class JobKind(StrEnum):
    PASS = "pass"
    CALIBRATION = "calibration"
    DRAFTING = "drafting"
    PROBES = "probes"
    EXPORT = "export"


def duration(seconds: float) -> str:
    """``2m05s``, ``1h03m``, ``7s``: how long, at a glance."""
    whole = max(0, int(seconds))
    if whole >= 3600:
        return f"{whole // 3600}h{whole % 3600 // 60:02d}m"
    if whole >= 60:
        return f"{whole // 60}m{whole % 60:02d}s"
    return f"{whole}s"


class JobProgress(BaseModel):
    """One report of a job: ``done`` of ``total`` ``unit`` in ``phase`` (``total`` 0: not
    counted yet), ``elapsed`` seconds since the phase began. ``message`` says what the
    phase is doing in the phase's own words; ``waiting_for`` what it waits on, if it does."""

    phase: str
    done: int = 0
    total: int = 0
    unit: str = ""
    tokens: int = 0
    elapsed: float = 0.0
    message: str = ""
    waiting_for: str = ""
    # The phase's place in the whole job (0: a job of one phase), and the phases after it,
    # so what is still to come is seen, not only the phase's own n of N.
    step: int = 0
    steps: int = 0
    later: list[str] = []

    def heading(self) -> str:
        """``phase 3 of 5: judge``; the phase alone in a job of one phase."""
        return f"phase {self.step} of {self.steps}: {self.phase}" if self.steps > 1 and self.step else self.phase

    def still_to_come(self) -> str:
        """``then: generate geo, judge, pairwise``; empty at the last phase."""
        return f"then: {', '.join(self.later)}" if self.later else ""

    @property
    def tokens_per_second(self) -> float:
        return self.tokens / self.elapsed if self.elapsed > 0 else 0.0

    @property
    def eta_seconds(self) -> float | None:
        """The rest of the phase at the rate so far; None before the first unit is done."""
        if self.done <= 0 or self.done >= self.total:
            return None
        return self.elapsed / self.done * (self.total - self.done)

    def counter(self) -> str:
        """``verdicts 3 of 12``; ``verdicts 3`` while the total is unknown."""
        unit = f"{self.unit} " if self.unit else ""
        return f"{unit}{self.done} of {self.total}" if self.total else f"{unit}{self.done}".strip()

    def describe(self) -> str:
        """What the phase is doing (its message, else its counter), its tokens/s and ETA,
        or what it waits for: the one wording the CLI and the Runs view show."""
        if self.waiting_for:
            return f"waiting for {self.waiting_for}"
        parts = [self.message or (self.counter() if self.unit else f"{self.done}/{self.total}")]
        if self.tokens:
            parts.append(f"{self.tokens_per_second:.1f} tok/s")
        eta = self.eta_seconds
        if eta is not None:
            parts.append(f"ETA {int(eta // 60)}m{int(eta % 60):02d}s")
        return " · ".join(parts)


@dataclass(frozen=True)
class Activity:
    """A running job as the window lists it: what runs, since when, its latest report."""

    job_id: int
    kind: JobKind
    title: str
    started: float
    cancellable: bool = True
    progress: JobProgress | None = None
    reported: float = 0.0  # when ``progress`` arrived
    cancelling: bool = False

    def reporting(self, progress: JobProgress, now: float) -> Activity:
        return replace(self, progress=progress, reported=now)

    def eta_seconds(self, now: float) -> float | None:
        """The phase's ETA as of its last report, counted down since."""
        if self.progress is None:
            return None
        eta = self.progress.eta_seconds
        return None if eta is None else max(0.0, eta - (now - self.reported))

    @property
    def fraction(self) -> float | None:
        """How far the phase is (0-1); None while it cannot say: nothing counted yet, or
        nothing done yet (a judge loading or reading its first prompt for minutes shows
        as busy, not as a bar stuck at 0)."""
        p = self.progress
        if p is None or p.total <= 0 or p.done <= 0 or p.waiting_for:
            return None
        return min(1.0, p.done / p.total)

    def line(self, now: float) -> str:
        """``Pass "x" · judge: verdicts 3 of 12 · ETA 2m05s · running 5m12s``: what runs,
        then its ``status``."""
        return f"{self.title} · {self.status(now)}"

    def status(self, now: float) -> str:
        """Its phase and counter, the ETA, and how long it has run (so a slow phase never
        reads as a hang): what a narrow place shows first."""
        parts = []
        p = self.progress
        if self.cancelling:
            parts.append("cancelling…")
        elif p is None:
            parts.append("starting…")
        elif p.waiting_for:
            parts.append(f"waiting for {p.waiting_for}")
        else:
            # before the first unit, what it is doing ("loading the judge") says more than "0 of 4"
            doing = p.counter() if (p.unit or p.total) and not (p.done <= 0 and p.message) else p.message
            parts.append(f"{p.heading()}: {doing}" if doing else p.heading())
            eta = self.eta_seconds(now)
            if eta is not None:
                parts.append(f"ETA {duration(eta)}")
        parts.append(f"running {duration(now - self.started)}")
        return " · ".join(parts)


def short_spec(spec: str) -> str:
    """A model spec as a job's title names it: a local file by its name (``llama:/m/x.gguf?ctx=8``
    is ``x.gguf``), anything else as it is (redacted by the caller)."""
    kind, _, rest = spec.partition(":")
    if kind in ("llama", "hf") and rest:
        return rest.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1] or spec
    return spec


__all__ = ["Activity", "JobKind", "JobProgress", "duration", "short_spec"]
