"""How a use case opens a model, named for the front-ends.

Every use case that calls a model takes an ``open_backend`` (a scripted fake in tests)
and defaults to the one backend factory (``inference.factory.open_backend``: a local
GGUF always loads in a worker process). The GUI's controllers hold an opener so a test
can swap one in, and hand it to the app function they call; they never open a backend
themselves, and they do not import the factory (the GUI's forbidden contract).
"""

from __future__ import annotations

from gtreview.app.judging import OpenBackend
from gtreview.inference.factory import open_backend as open_model

__all__ = ["OpenBackend", "open_model"]
