"""The statuses of runs and their records, under the runs layer's name.

They are defined in ``gtreview.core.statuses``: the store types its run tables' read
models by them and sits below ``runs`` (the layers contract in pyproject.toml), so they
cannot live here. Code above the store imports them from this module.
"""

from __future__ import annotations

from gtreview.core.statuses import GenerationStatus, JudgementStatus, RecordKind, RunSource, RunStatus

__all__ = ["GenerationStatus", "JudgementStatus", "RecordKind", "RunSource", "RunStatus"]
