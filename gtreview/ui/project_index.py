"""The project's corpus index, built once, on first use, in whichever worker needs it."""

from __future__ import annotations

import threading

from sqlalchemy import Engine

from gtreview.app import review
from gtreview.corpus.locators import CorpusIndex


class SharedIndex:
    """Reading and indexing the corpus takes a while on a large project, so it is never
    done on the GUI thread: the first read that needs it builds it, the others wait."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._lock = threading.Lock()
        self._index: CorpusIndex | None = None

    def get(self) -> CorpusIndex:
        with self._lock:
            if self._index is None:
                self._index = review.corpus_index(self._engine)
            return self._index

    @property
    def ready(self) -> CorpusIndex | None:
        """The index if it is built (the GUI thread never builds it)."""
        return self._index

    def invalidate(self) -> None:
        """After a corpus import: the next read indexes again."""
        with self._lock:
            self._index = None
