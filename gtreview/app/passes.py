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
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

from pydantic import BaseModel
from sqlalchemy import Engine

from gtreview.core.errors import UserError
from gtreview.core.jsonmodel import canonical_hash
from gtreview.core.redaction import MASK
from gtreview.core.review_flow import is_active
from gtreview.core.rubric import Question, Rubric
from gtreview.inference.backend import CompletionBackend
from gtreview.inference.factory import check_can_open
from gtreview.inference.factory import open_backend as open_model
from gtreview.inference.model_configs import ModelConfigError, read_models_json, served_names, to_model_specs
from gtreview.inference.openai_client import served_models
from gtreview.inference.specs import parse_model_spec, with_runtime_defaults
from gtreview.judging.calibration import DriftError
from gtreview.runs.execute import ModelUnreachable, PassCancelled, PassResult, Progress, run_pass
from gtreview.runs.identity import SameModelError
from gtreview.runs.pass_context import PassEvent as PassEvent  # re-exported: what a pass reports as it goes
from gtreview.runs.plan import PassConfig
from gtreview.runs.record import RunSource, RunStatus, read_run_config
from gtreview.runs.statuses import GenerationStatus
from gtreview.store import runs_repo, sets
from gtreview.store.db import reading, unit_of_work


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
    with unit_of_work(engine) as tx:
        for generation in runs_repo.run_generations(tx, result.run_id):
            by_model.setdefault(generation.model_label, []).append(
                (generation.status, f"{generation.qid}: {generation.error}")
            )
        failed = [(m, g) for m, g in by_model.items() if g and all(status != GenerationStatus.OK for status, _ in g)]
        if not failed:
            return
        model, generations = failed[0]
        runs_repo.set_run_status(tx, result.run_id, RunStatus.STOPPED, f"failed: every generation of {model} failed")
    others = f" (and every one of {', '.join(m for m, _ in failed[1:])})" if len(failed) > 1 else ""
    raise GenerationsFailed(
        f"run {result.run_id}: every generation of {model} failed ({len(generations)} of {len(generations)}){others}; "
        f"the first: {generations[0][1]}",
        result,
    )


def active_questions(engine: Engine, set_id: int, rubric: Rubric) -> list[Question]:
    """The set's questions less the retired ones (retired questions are never run)."""
    with reading(engine) as session:
        retired = {s.qid for s in sets.list_questions(session, set_id) if not is_active(s.review_status)}
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


BUSY_POLL_S = 2.0  # how often a pass waiting for the same pass elsewhere asks again


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
    on_busy: Callable[[str], None] | None = None,
    busy_poll_s: float = BUSY_POLL_S,
    check_backend: Callable[[str], None] | None = None,
) -> PassResult:
    """Generate, judge and compare over a project set (its active questions) or a rubric file.
    Raises ``GenerationsFailed`` when every generation of a model failed.

    The same pass already running elsewhere (another process, or another pass of this
    one) is refused with ``RunBusyError``, unless ``on_busy`` is given: then it hears the
    reason once and this pass waits for that one (until it ends, or its owner is gone
    and its heartbeat stale), then runs, reusing everything the other pass stored; a
    ``cancel`` stops the waiting.

    Every model and the judge are checked before the run exists (``check_backend``,
    by default the factory's own check when ``open_backend`` is the factory; a fake
    opener opens what it likes): a pass that cannot start, a missing API key say, is
    one line and leaves no run behind."""
    if (set_id is None) == (rubric is None):
        raise PassSetupError("name either a set of the project or a rubric file")
    if set_id is not None:
        with reading(engine) as session:
            if set_id not in {s.id for s in sets.list_sets(session)}:
                raise PassSetupError(f"the project has no set {set_id}")
        from gtreview.app.workflow import frozen_rubric  # the set as a sign-off freezes it: one hash

        rubric = frozen_rubric(engine, set_id)
        questions = list(rubric.questions)
    else:
        assert rubric is not None
        questions = list(rubric.questions)
    if not questions:
        raise PassSetupError("the set has no active questions to run")
    config = with_runtime(config, runtime)
    check = check_backend if check_backend is not None else check_can_open if open_backend is open_model else None
    if check is not None:
        for spec in dict.fromkeys([*(m.spec for m in config.models), config.judge]):
            check(spec)
    told = False
    while True:
        try:
            with heartbeat(engine):
                result = run_pass(
                    engine,
                    config,
                    questions,
                    rubric_hash=canonical_hash(rubric.to_json_dict()),
                    open_backend=open_backend,
                    set_id=set_id,
                    global_variants=rubric.global_variants,
                    progress=progress,
                    cancel=cancel,
                )
            break
        except runs_repo.RunBusyError as busy:  # refused before the run was touched: safe to ask again
            if on_busy is None:
                raise
            if not told:
                on_busy(f"{busy}; waiting for it to end, then this pass reuses what it stored")
                told = True
            if (cancel or threading.Event()).wait(busy_poll_s):
                raise PassCancelled("stopped waiting for the other pass; nothing was run") from None
    _check_generations(engine, result)
    return result


@contextmanager
def heartbeat(engine: Engine, every_s: float | None = None) -> Iterator[None]:
    """While the block runs, a thread keeps this process's running runs' heartbeat fresh,
    so other processes (another window, the CLI) see the pass as live; once the
    process dies the heartbeat goes stale and the run reads as interrupted."""
    stop = threading.Event()
    interval = runs_repo.HEARTBEAT_S if every_s is None else every_s
    owner = runs_repo.process_owner()

    def beat() -> None:
        while not stop.wait(interval):
            try:
                with unit_of_work(engine) as tx:  # stored at once: other processes read it
                    runs_repo.heartbeat(tx, owner)
            except Exception:  # noqa: BLE001 - a missed beat (a locked database) is retried at the next
                continue

    thread = threading.Thread(target=beat, name="gtreview-pass-heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=5)


def _local_file(reference: str, folders: list[Path], what: str) -> Path:
    """The existing file ``reference`` names: as given, or under the first model folder
    that holds it (a relative path); a missing file is one line saying where it looked."""
    path = Path(reference).expanduser()
    if path.is_absolute():
        if not path.is_file():
            raise PassSetupError(f"{what} not found: {path}")
        return path
    for folder in folders:
        if (folder.expanduser() / path).is_file():
            return (folder.expanduser() / path).resolve()
    if path.is_file():
        return path.resolve()
    where = ", ".join(str(f) for f in folders) or "the working folder (no model folders are set in Preferences)"
    raise PassSetupError(f"{what} not found: {reference} (looked in {where})")


def resolve_local_spec(spec: str, folders: list[Path]) -> str:
    """A llama: spec with its GGUF and adapter paths made absolute (relative ones are
    looked up in the model folders); refused in one line when a file does not exist.
    Other specs (servers, hf:) are returned as they are."""
    parsed = parse_model_spec(spec)  # a malformed spec is a ModelSpecError, one line
    if parsed.kind != "llama":
        return spec
    location, _, query = spec.strip().partition(":")[2].partition("?")
    model = _local_file(location, folders, "model file")
    parts = []
    for part in filter(None, query.split("&")):
        key, _, value = part.partition("=")
        if key == "lora" and parsed.lora is not None and not parsed.lora.lower().startswith("hf:"):
            value = quote(str(_local_file(parsed.lora, folders, "LoRA adapter")), safe="/:._-~")
        parts.append(f"{key}={value}")
    return f"llama:{model}" + (f"?{'&'.join(parts)}" if parts else "")


def resolve_local_files(config: PassConfig, folders: list[Path]) -> PassConfig:
    """Every model and the judge of a pass with their local files found (see ``resolve_local_spec``)."""
    return config.model_copy(
        update={
            "models": [m.model_copy(update={"spec": resolve_local_spec(m.spec, folders)}) for m in config.models],
            "judge": resolve_local_spec(config.judge, folders),
        }
    )


class ResumablePass(BaseModel):
    """A stopped or interrupted pass, as it was asked for: running it again resumes it."""

    run_id: int
    set_id: int
    config: PassConfig


def resumable_pass(engine: Engine, run_id: int) -> ResumablePass:
    """The stored configuration of a stopped (or interrupted) pass of a project set;
    a run that cannot be resumed is refused in one line that says why."""
    with reading(engine) as session:
        summary = next((r for r in runs_repo.list_runs(session) if r.id == run_id), None)
    if summary is None:
        raise PassSetupError(f"the project has no run {run_id}")
    if summary.source is not RunSource.PASS:
        raise PassSetupError(f"run {run_id} was imported from harness files; there is nothing to resume")
    if summary.live:
        raise PassSetupError(f"run {run_id} is running ({summary.owner}); there is nothing to resume")
    if summary.status is RunStatus.FINISHED:
        raise PassSetupError(f"run {run_id} finished; there is nothing to resume")
    with reading(engine) as session:
        stored = read_run_config(session, run_id).pass_config
    if stored is None:
        raise PassSetupError(f"run {run_id} keeps no pass configuration to resume from")
    if summary.set_id is None:
        raise PassSetupError(f"run {run_id} ran over a rubric file; resume it with gtreview run --rubric")
    # A credential in a spec is stored masked; resumed with the mask, every answer still
    # missing would be stored as a final 401. Only the user can give it again.
    masked = [m.label for m in stored.models if MASK in m.spec] + (["the judge"] if MASK in stored.judge else [])
    if masked:
        raise PassSetupError(
            f"run {run_id}: the server URL of {', '.join(masked)} had a password, which is never stored; "
            "resume it with gtreview run giving the same models with their URLs"
        )
    return ResumablePass(run_id=run_id, set_id=summary.set_id, config=stored)


# What a front-end names of a pass without reaching below the application layer: the
# ways a pass stops short (each leaves what finished stored).
__all__ = [
    "DriftError",
    "GenerationsFailed",
    "ModelLineup",
    "ModelUnreachable",
    "PassCancelled",
    "PassEvent",
    "PassResult",
    "PassSetupError",
    "ResumablePass",
    "SameModelError",
    "active_questions",
    "heartbeat",
    "models_from_config",
    "resolve_local_files",
    "resolve_local_spec",
    "resumable_pass",
    "run_benchmark_pass",
    "with_runtime",
]
