"""The typed run record: what a run stores about itself, with a schema version.

One pydantic model replaces the ad hoc keys of ``run.config_json``. A pass stores
what it was asked for (``pass``) and what its results need to find its records again
after the set is edited (``questions``, identities, template hashes); an imported run
stores where its files came from (``harness``) and the questions they answer. Every
reader and writer goes through this module, so an unknown key is a bug, not a habit.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from sqlmodel import Session

from gtreview.core.errors import UserError
from gtreview.core.redaction import redact, redact_json
from gtreview.core.rubric import Question, VariantRule
from gtreview.runs.plan import ModelEntry, PassConfig
from gtreview.runs.statuses import RecordKind, RunSource, RunStatus
from gtreview.store import runs_repo
from gtreview.store.attempts import stop_reason

RUN_CONFIG_VERSION: Literal[1] = 1
VERBATIM_FIELDS = frozenset({"questions", "global_variants"})
"""Fields stored exactly as they are: their content hashes key the run's records, and they
hold the set's own text, not anything a backend sent back."""


class HarnessSource(BaseModel):
    model_config = ConfigDict(extra="forbid")

    scores: str | None = None
    answers: dict[str, str] = Field(default_factory=dict)
    errors: dict[str, str] = Field(default_factory=dict)  # the harness errors file found beside each answers file
    labels: list[str] = Field(default_factory=lambda: ["a", "b"])  # the models of the score file's sides A and B
    base: str | None = None  # the label the others are compared with (None: side A's)
    rubric_key: str | None = None  # the harness leaderboard's key for the rubric, when known
    rubric_file: str | None = None  # the rubric file's name, as the import was given it

    @property
    def base_label(self) -> str:
        return self.base or self.labels[0]


class Templates(BaseModel):
    model_config = ConfigDict(extra="forbid")

    pointwise: str = ""
    pairwise: str = ""


class RunConfig(BaseModel):
    """``run.config_json``, typed (schema version 1)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    schema_version: Literal[1] = RUN_CONFIG_VERSION
    config_hash: str = ""
    pass_config: PassConfig | None = Field(default=None, alias="pass")
    harness: HarnessSource | None = None
    questions: list[dict[str, Any]] = Field(default_factory=list)
    global_variants: list[dict[str, Any]] = Field(default_factory=list)
    identities: dict[str, dict[str, Any]] = Field(default_factory=dict)
    judge_identity: dict[str, Any] = Field(default_factory=dict)
    templates: Templates = Field(default_factory=Templates)
    models: dict[str, dict[str, Any]] = Field(default_factory=dict)  # what each backend said about itself
    probes: dict[str, Any] | None = None  # familiarity and recall reports kept with the pass
    # [start, end] of each attempt, and why it stopped when it stopped short (store.attempts)
    attempts: list[list[str | None]] = Field(default_factory=list)

    @property
    def stopped_because(self) -> str:
        """Why the pass last stopped short, when it was kept (cancelled, drift, failed: ...)."""
        return stop_reason({"attempts": self.attempts})

    @property
    def has_plan(self) -> bool:
        """A pass whose records can be re-planned (an imported run has none)."""
        return self.pass_config is not None and bool(self.identities) and bool(self.judge_identity)

    def question_models(self) -> list[Question]:
        return [Question.model_validate(q) for q in self.questions]

    def variant_models(self) -> list[VariantRule]:
        return [VariantRule.model_validate(v) for v in self.global_variants]

    def to_json(self) -> dict[str, Any]:
        """The record as it is written to the project: redacted, so that no credential (a
        URL password in a spec, a key a server echoed into describe()) is ever stored."""
        data = self.model_dump(mode="json", by_alias=True, exclude_none=True)
        return {key: value if key in VERBATIM_FIELDS else redact_json(value) for key, value in data.items()}


class RunRecordError(UserError):
    """A run that does not exist, or whose stored record cannot be read."""


def read_run_config(session: Session, run_id: int) -> RunConfig:
    try:
        stored = runs_repo.run_config(session, run_id)
    except KeyError:
        raise RunRecordError(f"the project has no run {run_id}") from None
    try:
        return RunConfig.model_validate(stored)
    except ValueError as exc:
        first = str(exc).splitlines()[0]
        raise RunRecordError(f"run {run_id}: its stored configuration cannot be read ({first})") from None


def update_run_config(session: Session, run_id: int, **values: Any) -> RunConfig:
    """Change some fields of the stored record, validated as a whole before it is written
    (read and written in the caller's unit of work)."""
    config = read_run_config(session, run_id).model_copy(update=values)
    config = RunConfig.model_validate(config.to_json())
    runs_repo.write_run_config(session, run_id, config.to_json())
    return config


def record_backend(session: Session, run_id: int, spec: str, describe: dict[str, Any]) -> None:
    """Keep what a backend said about itself (file hashes, versions, settings) with the run."""
    models = dict(read_run_config(session, run_id).models)
    models[redact(spec)] = json.loads(json.dumps(describe, default=str))
    update_run_config(session, run_id, models=models)


def new_pass_config(config_hash: str, pass_config: PassConfig) -> dict[str, Any]:
    return RunConfig(config_hash=config_hash, pass_config=pass_config).to_json()


def new_import_config(harness: HarnessSource, questions: list[Question], *, config_hash: str = "") -> dict[str, Any]:
    return RunConfig(
        config_hash=config_hash, harness=harness, questions=[q.to_json_dict() for q in questions]
    ).to_json()


__all__ = [
    "RUN_CONFIG_VERSION",
    "HarnessSource",
    "ModelEntry",
    "PassConfig",
    "RecordKind",
    "RunConfig",
    "RunRecordError",
    "RunSource",
    "RunStatus",
    "Templates",
    "new_import_config",
    "new_pass_config",
    "read_run_config",
    "record_backend",
    "update_run_config",
]
