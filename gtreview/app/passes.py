"""Running a benchmark pass over a set (or a rubric file): the one use case the CLI's
``gtreview run`` and the app's Run dialog both call.

Models can come from the Groundtruth harness's ``configs/models.json``; each server is
then asked which models it serves before anything runs (``models_from_config``). A
pass in which every generation of a model failed is not a success: it is marked
stopped and raised as ``GenerationsFailed``, one line naming the model and the first
error, so a server that answered every request with 404 never reads as a finished pass.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel
from sqlalchemy import Engine

from gtreview.core.errors import UserError
from gtreview.core.jsonmodel import canonical_hash
from gtreview.core.rubric import Question, Rubric
from gtreview.inference.backend import CompletionBackend
from gtreview.inference.factory import open_backend as open_model
from gtreview.inference.model_configs import ModelConfigError, read_models_json, served_names, to_model_specs
from gtreview.inference.openai_client import served_models
from gtreview.inference.specs import with_runtime_defaults
from gtreview.judging.calibration import DriftError
from gtreview.runs.execute import PassCancelled, PassResult, Progress, run_pass
from gtreview.runs.plan import PassConfig
from gtreview.runs.record import RunStatus
from gtreview.store import runs_repo, sets_repo


class PassSetupError(UserError):
    """A pass that cannot start as asked (no such set, nothing to run)."""


class GenerationsFailed(UserError):
    """Every generation of a model failed: what was stored is kept, but the pass is no success."""

    exit_status = 1

    def __init__(self, message: str, result: PassResult) -> None:
        super().__init__(message)
        self.result = result


class ModelLineup(BaseModel):
    """Models from a models.json: (label, spec) pairs, and a note for each served name changed."""

    models: list[tuple[str, str]]
    notes: list[str]


def models_from_config(
    path: Path,
    *,
    base_url: str | None,
    gguf_dir: Path | None,
    entries: list[str] | None = None,
    ask: Callable[[str], list[str]] = served_models,
) -> ModelLineup:
    """The entries of a harness ``configs/models.json`` (all, or those labelled ``entries``) as
    model specs, each OpenAI-compatible server asked (``GET /v1/models``) what it serves."""
    configs = read_models_json(path)
    if entries:
        labels = [c.label for c in configs]
        missing = [e for e in entries if e not in labels]
        if missing:
            raise ModelConfigError(f"{path} has no entry {', '.join(missing)} (it has {', '.join(labels)})")
        configs = [c for c in configs if c.label in entries]
    mapped = to_model_specs(configs, base_url=base_url, gguf_dir=gguf_dir)
    if mapped.problems:
        raise ModelConfigError(f"{path}: {mapped.problems[0]} ({len(mapped.problems)} entries cannot be run)")
    served = served_names(mapped.specs, ask)
    return ModelLineup(models=served.specs, notes=served.notes)


def _check_generations(engine: Engine, result: PassResult) -> None:
    """Raise ``GenerationsFailed`` (and mark the run stopped) when a model produced no usable answer."""
    by_model: dict[str, list[tuple[str, str]]] = {}
    for generation in runs_repo.run_generations(engine, result.run_id):
        by_model.setdefault(generation.model_label, []).append(
            (generation.status, f"{generation.qid}: {generation.error}")
        )
    failed = [(m, g) for m, g in by_model.items() if g and all(status != "ok" for status, _ in g)]
    if not failed:
        return
    runs_repo.set_run_status(engine, result.run_id, RunStatus.STOPPED)
    model, generations = failed[0]
    others = f" (and every one of {', '.join(m for m, _ in failed[1:])})" if len(failed) > 1 else ""
    raise GenerationsFailed(
        f"run {result.run_id}: every generation of {model} failed ({len(generations)} of {len(generations)}){others}; "
        f"the first: {generations[0][1]}",
        result,
    )


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
    """Generate, judge and compare over a project set (its active questions) or a rubric file.
    Raises ``GenerationsFailed`` when every generation of a model failed."""
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
    result = run_pass(
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
    _check_generations(engine, result)
    return result


# What a front-end names of a pass without reaching below the application layer: the
# two ways a pass stops short (both leave what finished stored).
__all__ = [
    "DriftError",
    "GenerationsFailed",
    "ModelLineup",
    "PassCancelled",
    "PassResult",
    "PassSetupError",
    "active_questions",
    "models_from_config",
    "run_benchmark_pass",
    "with_runtime",
]
