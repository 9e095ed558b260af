"""The learner's teaching text, and the check that it owes the corpus no sentence.

``learner_text.md`` teaches, in words written for it, the principles the sample set's
questions test (folds and saddle reefs, ore shoots and their plunge, faults, oxidation
and recovery, refractory ore, conflicting sources, name variants, deep leads, coarse-gold
sampling). A fine-tune on it has seen none of the reports, so its facts come from
nowhere in the corpus. That is only true if no sentence was borrowed: :func:`borrowed`
finds every run of ``SHINGLE`` words the text shares with the reports, the tables or the
set's grading key, and ``make_fixtures.py --with-learner`` refuses to train on a text
that has one.

    .venv/bin/python benchmarks/known_answers/learner.py      # the check alone
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TEXT = Path(__file__).with_name("learner_text.md")
SHINGLE = 8  # words: long enough that a shared run is a borrowed phrase, not common usage
SOURCES = (
    *sorted((REPO / "sample_corpus" / "reports").iterdir()),
    *sorted((REPO / "sample_corpus" / "tables").iterdir()),
    *sorted((REPO / "sample_corpus" / "benchmark").iterdir()),
)


def words(text: str) -> list[str]:
    """Lower-case word tokens; punctuation and layout do not hide a borrowed phrase."""
    return re.findall(r"[a-z0-9]+", text.lower())


def shingles(text: str, n: int = SHINGLE) -> set[tuple[str, ...]]:
    tokens = words(text)
    return {tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)}


def borrowed(text: str, sources: tuple[Path, ...] = SOURCES, n: int = SHINGLE) -> list[str]:
    """Every ``n``-word run of ``text`` found in one of ``sources``, as 'run (file)'."""
    mine = shingles(text, n)
    found = []
    for source in sources:
        for shared in sorted(mine & shingles(source.read_text(encoding="utf-8"), n)):
            found.append(f"{' '.join(shared)!r} ({source.name})")
    return found


def checked_text() -> str:
    """The teaching text, once it is shown to share no ``SHINGLE``-word run with the sources."""
    text = TEXT.read_text(encoding="utf-8")
    shared = borrowed(text)
    if shared:
        raise SystemExit(
            f"{TEXT.name} shares {len(shared)} {SHINGLE}-word run(s) with the corpus or its key: "
            + "; ".join(shared[:5])
        )
    return text


if __name__ == "__main__":
    body = checked_text()
    print(f"{TEXT.name}: {len(words(body))} words, no {SHINGLE}-word run shared with {len(SOURCES)} source files")
    sys.exit(0)
