"""Sampling parameters are refused when no model could honour them."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from gtreview.inference.backend import Sampling


@pytest.mark.parametrize(
    "values",
    [
        {"temperature": float("nan")},
        {"temperature": float("inf")},
        {"temperature": -0.1},
        {"top_p": 1.5},
        {"top_p": float("nan")},
        {"top_k": -1},
        {"max_tokens": -5},
    ],
)
def test_impossible_sampling_is_refused(values: dict[str, float]) -> None:
    with pytest.raises(ValidationError):
        Sampling(**values)


def test_the_edges_are_allowed() -> None:
    sampling = Sampling(temperature=0.0, top_p=1.0, top_k=0, max_tokens=0)
    assert (sampling.temperature, sampling.top_p, sampling.max_tokens) == (0.0, 1.0, 0)
