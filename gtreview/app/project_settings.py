"""The project's own settings the expert changes from the app: the judge, whether
approval needs a reproduced calibration, and the last pass asked for (the Run dialog
starts from it). Stored in the project, so the CLI and every window agree on them.

A model spec is kept without its URL password (``user:***@``): the password goes to the
OS keyring (``inference.spec_passwords``) and is put back when the spec is opened, so no
project file, copy or backup of it carries a credential."""

from __future__ import annotations

import math
from typing import Literal, get_args

from pydantic import BaseModel, ValidationError
from sqlalchemy import Engine

from gtreview.core.changes import OpChanges
from gtreview.core.errors import UserError
from gtreview.inference.spec_passwords import keep_spec
from gtreview.inference.specs import parse_model_spec
from gtreview.runs.plan import PassConfig
from gtreview.store.db import reading, unit_of_work
from gtreview.store.sets import CALIBRATION_NOT_REQUIRED, CALIBRATION_REQUIRED, log_project_action
from gtreview.store.settings_repo import (
    APPROVAL_REQUIRES_CALIBRATION,
    JUDGE_GATE_MEASURE,
    JUDGE_GATE_THRESHOLD,
    JUDGE_SPEC,
    get_setting,
    set_setting,
)


def project_judge(engine: Engine) -> str:
    """The judge spec the project uses for calibration and passes ('' when none is set)."""
    with reading(engine) as session:
        value = get_setting(session, JUDGE_SPEC)
    return value.strip() if isinstance(value, str) else ""


def set_project_judge(engine: Engine, spec: str) -> OpChanges:
    """Keep ``spec`` as the project's judge, its URL password in the keyring; a spec that
    cannot be read, or a password that cannot be kept, is refused in one line."""
    spec = spec.strip()
    if spec:
        parse_model_spec(spec)  # ModelSpecError (a UserError) names what is wrong
    kept = keep_spec(spec)
    with unit_of_work(engine) as tx:
        set_setting(tx, JUDGE_SPEC, kept)
    return _changed(JUDGE_SPEC)


LAST_PASS = "last_pass"


def last_pass(engine: Engine) -> PassConfig | None:
    """The pass last started in this project (models, judge, repeats, sampling), if any."""
    with reading(engine) as session:
        value = get_setting(session, LAST_PASS)
    if not isinstance(value, dict):
        return None
    try:
        return PassConfig.model_validate(value)
    except ValidationError:  # written by another version: start from the defaults
        return None


def set_last_pass(engine: Engine, config: PassConfig) -> OpChanges:
    """Keep ``config`` for the Run dialog, each spec's URL password in the keyring (every
    password kept before anything is written, so a refusal writes nothing)."""
    kept = config.model_copy(
        update={
            "models": [entry.model_copy(update={"spec": keep_spec(entry.spec)}) for entry in config.models],
            "judge": keep_spec(config.judge),
        }
    )
    with unit_of_work(engine) as tx:
        set_setting(tx, LAST_PASS, kept.model_dump(mode="json"))
    return _changed(LAST_PASS)


def set_approval_requires_calibration(engine: Engine, required: bool, *, actor: str, reason: str = "") -> OpChanges:
    """Require (or stop requiring) a reproduced calibration before an approval. A change
    is an entry of the review log (who, when, why), in the same transaction: approvals
    made while it is off are marked as such, and so are the sign-offs and releases of them."""
    with unit_of_work(engine) as tx:
        before = set_setting(tx, APPROVAL_REQUIRES_CALIBRATION, bool(required))
        if (True if before is None else bool(before)) != bool(required):  # unset: required
            action = CALIBRATION_REQUIRED if required else CALIBRATION_NOT_REQUIRED
            log_project_action(tx, actor=actor, action=action, comment=reason)
    return _changed(APPROVAL_REQUIRES_CALIBRATION)


def _changed(*keys: str) -> OpChanges:
    return OpChanges(settings=frozenset(keys))


class GateSettingError(UserError, ValueError):
    """A judge-gate setting that cannot be kept (one line)."""


GateMeasure = Literal["weighted_kappa", "krippendorff_alpha"]
GATE_MEASURES: tuple[GateMeasure, ...] = get_args(GateMeasure)
DEFAULT_GATE_THRESHOLD = 0.6  # "substantial" agreement on Landis and Koch's scale
DEFAULT_GATE_MEASURE: GateMeasure = "weighted_kappa"


def judge_gate_threshold(engine: Engine) -> float:
    """The lower bound the judge's agreement with the expert must reach (default 0.6)."""
    with reading(engine) as session:
        value = get_setting(session, JUDGE_GATE_THRESHOLD)
    ok = isinstance(value, int | float) and not isinstance(value, bool) and -1 <= value <= 1
    return float(value) if ok else DEFAULT_GATE_THRESHOLD


def set_judge_gate_threshold(engine: Engine, threshold: float) -> OpChanges:
    return set_judge_gate_settings(engine, threshold=threshold)


def judge_gate_measure(engine: Engine) -> GateMeasure:
    """The agreement on totals the gate reads: quadratic weighted kappa (default) or
    Krippendorff's interval alpha."""
    with reading(engine) as session:
        value = get_setting(session, JUDGE_GATE_MEASURE)
    return next((m for m in GATE_MEASURES if m == value), DEFAULT_GATE_MEASURE)


def set_judge_gate_measure(engine: Engine, measure: str) -> OpChanges:
    return set_judge_gate_settings(engine, measure=measure)


GATE_SETTING_KEYS = frozenset({JUDGE_GATE_THRESHOLD, JUDGE_GATE_MEASURE})
"""The settings a judge gate reads: a view that shows a gate refreshes when one changes."""


class JudgeGateSettings(BaseModel):
    """What the judge's agreement with the expert must reach for its figures to count."""

    measure: GateMeasure
    threshold: float


def judge_gate_settings(engine: Engine) -> JudgeGateSettings:
    return JudgeGateSettings(measure=judge_gate_measure(engine), threshold=judge_gate_threshold(engine))


def set_judge_gate_settings(engine: Engine, *, threshold: float | None = None, measure: str | None = None) -> OpChanges:
    """Keep the threshold and/or the measure, in one transaction; both are checked before
    either is written, so a bad value changes nothing. Its changes name the keys written."""
    if threshold is not None and (not math.isfinite(threshold) or not -1 <= threshold <= 1):
        raise GateSettingError(f"a judge-gate threshold is an agreement in -1..1, not {threshold}")
    chosen = next((m for m in GATE_MEASURES if m == measure), None)
    if measure is not None and chosen is None:
        raise GateSettingError(f"{measure!r} is not a judge-gate measure ({', '.join(GATE_MEASURES)})")
    changed: list[str] = []
    if threshold is None and chosen is None:
        return _changed()
    with unit_of_work(engine) as tx:
        if threshold is not None:
            set_setting(tx, JUDGE_GATE_THRESHOLD, float(threshold))
            changed.append(JUDGE_GATE_THRESHOLD)
        if chosen is not None:
            set_setting(tx, JUDGE_GATE_MEASURE, chosen)
            changed.append(JUDGE_GATE_MEASURE)
    return _changed(*changed)


__all__ = [
    "DEFAULT_GATE_MEASURE",
    "DEFAULT_GATE_THRESHOLD",
    "GATE_MEASURES",
    "GATE_SETTING_KEYS",
    "LAST_PASS",
    "GateMeasure",
    "GateSettingError",
    "JudgeGateSettings",
    "judge_gate_measure",
    "judge_gate_settings",
    "judge_gate_threshold",
    "last_pass",
    "project_judge",
    "set_approval_requires_calibration",
    "set_judge_gate_measure",
    "set_judge_gate_settings",
    "set_judge_gate_threshold",
    "set_last_pass",
    "set_project_judge",
]
