"""How samples are numbered where people read them (app, CLI, PDF): from 1, while the
store counts repeats from 0. One function, so no two places can disagree."""

from __future__ import annotations


def sample_number(sample_index: int) -> int:
    """The number a user reads for the stored repeat ``sample_index``."""
    return sample_index + 1
