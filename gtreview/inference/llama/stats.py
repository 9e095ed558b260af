"""What the engine did, counted as it works: prefill, cache reuse, decode steps and where
their time went, the grammar's refusals and the tokens it forced."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class EngineStats:
    """What the engine did, summed over calls (a benchmark reads differences).

    ``occupancy`` is live sequences per slot over the decode steps taken while requests
    were still waiting (once the queue has drained, slots empty as answers end).
    """

    prefill_tokens: int = 0  # prompt tokens decoded (shared stretches once)
    reused_tokens: int = 0  # prompt tokens taken from the cache instead
    steps: int = 0  # decode steps (one llama_decode of every live sequence)
    step_tokens: int = 0  # tokens those steps sampled (live sequences, summed) plus those a grammar forced
    step_seconds: float = 0.0  # decode steps without a prefill in them, sampling included
    step_decode_seconds: float = 0.0  # of those, the time inside llama_decode (llama.cpp's own compute)
    step_sample_seconds: float = 0.0  # and the time sampling and checking each output (the rest: the batch)
    pure_steps: int = 0
    pure_step_tokens: int = 0
    queued_steps: int = 0  # steps taken while a request waited
    queued_live: int = 0
    slots: int = 1
    grammar_rejections: int = 0  # grammar-constrained steps whose first choice was refused
    grammar_full_filters: int = 0  # of those, the ones that filtered the whole vocabulary
    forced_tokens: int = 0  # tokens a grammar forced, fed without a step of their own (jump forward)

    @property
    def occupancy(self) -> float:
        return self.queued_live / (self.queued_steps * self.slots) if self.queued_steps else 1.0

    @property
    def decode_tokens_per_second(self) -> float:
        return self.pure_step_tokens / self.step_seconds if self.step_seconds > 0 else 0.0

    def copy(self) -> EngineStats:
        return EngineStats(**self.__dict__)

    def since(self, before: EngineStats) -> EngineStats:
        """The work done after ``before`` was taken."""
        fields = {k: v - getattr(before, k) for k, v in self.__dict__.items() if k != "slots"}
        return EngineStats(**fields, slots=self.slots)
