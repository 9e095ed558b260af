"""Running a benchmark pass over a set (or a rubric file): the one use case the CLI's
``gtreview run`` and the app's Run dialog both call."""

from __future__ import annotations

import threading
from collections.abc import Callable

from sqlalchemy import Engine

from gtreview.core.errors import UserError
from gtreview.core.jsonmodel import canonical_hash
from gtreview.core.rubric import Question, Rubric
from gtreview.inference.backend import CompletionBackend
from gtreview.inference.factory import open_backend as open_model
from gtreview.inference.specs import with_runtime_defaults
from gtreview.judging.calibration import DriftError
from gtreview.runs.execute import PassCancelled, PassResult, Progress, run_pass
from gtreview.runs.plan import PassConfig
from gtreview.store import sets_repo


class PassSetupError(UserError):
    """A pass that cannot start as asked (no such set, nothing to run)."""


def active_questions(engine: Engine, set_id: int, rubric: Rubric) -> list[Question]:
    """The set's questions less the retired ones (retired questions are never run)."""
    retired = {
        s.qid for s in sets_repo.list_questions(engine, set_id) if s.review_status is sets_repo.ReviewStatus.RETIRED
    }
    return [q for q in rubric.questions if q.id not in retired]


def with_runtime(config: PassConfig, runtime: dict[str, int] | None) -> PassConfig:
    """Fill what local model specs leave out (GPU layers, threads) from the preferences."""
    if not runtime:
        return config
    return config.model_copy(
        update={
            "models": [m.model_copy(update={"spec": with_runtime_defaults(m.spec, **runtime)}) for m in config.models],
            "judge": with_runtime_defaults(config.judge, **runtime),
        }
    )


def run_benchmark_pass(
    engine: Engine,
    config: PassConfig,
    *,
    set_id: int | None = None,
    rubric: Rubric | None = None,
    runtime: dict[str, int] | None = None,
    open_backend: Callable[[str], CompletionBackend] = open_model,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
) -> PassResult:
    """Generate, judge and compare over a project set (its active questions) or a rubric file."""
    if (set_id is None) == (rubric is None):
        raise PassSetupError("name either a set of the project or a rubric file")
    if set_id is not None:
        if set_id not in {s.id for s in sets_repo.list_sets(engine)}:
            raise PassSetupError(f"the project has no set {set_id}")
        rubric = sets_repo.export_rubric(engine, set_id)
        questions = active_questions(engine, set_id, rubric)
    else:
        assert rubric is not None
        questions = list(rubric.questions)
    if not questions:
        raise PassSetupError("the set has no active questions to run")
    return run_pass(
        engine,
        with_runtime(config, runtime),
        questions,
        rubric_hash=canonical_hash(rubric.to_json_dict()),
        open_backend=open_backend,
        set_id=set_id,
        global_variants=rubric.global_variants,
        progress=progress,
        cancel=cancel,
    )


# What a front-end names of a pass without reaching below the application layer: the
# two ways a pass stops short (both leave what finished stored).
__all__ = [
    "DriftError",
    "PassCancelled",
    "PassResult",
    "PassSetupError",
    "active_questions",
    "run_benchmark_pass",
    "with_runtime",
]
