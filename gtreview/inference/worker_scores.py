"""Token scores as they cross the model worker's pipe: lists and floats (pickled as
exact doubles, so the numbers are the child's)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gtreview.inference.backend import TokenScores


def _optional_floats(values: Sequence[float] | None) -> tuple[float, ...] | None:
    return None if values is None else tuple(float(x) for x in values)


def scores_to_plain(scores: TokenScores) -> dict[str, Any]:
    """TokenScores as the lists and floats a pipe carries (floats as exact doubles)."""
    return {
        "text_tokens": [int(t) for t in scores.text_tokens],
        "start": int(scores.start),
        "logprobs": [float(x) for x in scores.logprobs],
        "expected_logprobs": None if scores.expected_logprobs is None else list(scores.expected_logprobs),
        "logprob_variances": None if scores.logprob_variances is None else list(scores.logprob_variances),
    }


def scores_from_plain(plain: Mapping[str, Any]) -> TokenScores:
    return TokenScores(
        text_tokens=tuple(int(t) for t in plain["text_tokens"]),
        start=int(plain["start"]),
        logprobs=tuple(float(x) for x in plain["logprobs"]),
        expected_logprobs=_optional_floats(plain.get("expected_logprobs")),
        logprob_variances=_optional_floats(plain.get("logprob_variances")),
    )


__all__ = ["scores_from_plain", "scores_to_plain"]
