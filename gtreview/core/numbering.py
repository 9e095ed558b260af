"""How things are numbered and ordered where people read them (app, CLI, PDF): samples
from 1 (the store counts repeats from 0), ids with their numbers as numbers, difficulty
by rank. One function each, so no two places can disagree."""

from __future__ import annotations

import re


def sample_number(sample_index: int) -> int:
    """The number a user reads for the stored repeat ``sample_index``."""
    return sample_index + 1


def natural_key(text: str) -> tuple[tuple[int, int | str], ...]:
    """Sort key that reads numbers as numbers: D9 before D10, as people count."""
    return tuple(
        (0, int(part)) if part.isdigit() else (1, part.casefold()) for part in re.split(r"(\d+)", text) if part
    )


DIFFICULTY_ORDER = {"easy": 0, "moderate": 1, "medium": 1, "hard": 2}


def difficulty_rank(word: str) -> int:
    """Easy before moderate before hard (an unknown word after them, none last)."""
    key = word.strip().casefold()
    return DIFFICULTY_ORDER.get(key, len(DIFFICULTY_ORDER) if key else len(DIFFICULTY_ORDER) + 1)
