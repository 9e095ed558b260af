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

from gtreview.core.errors import UserError
from gtreview.inference.spec_passwords import keep_spec
from gtreview.inference.specs import parse_model_spec
from gtreview.runs.plan import PassConfig
from gtreview.store.db import write_session
from gtreview.store.sets import CALIBRATION_NOT_REQUIRED, CALIBRATION_REQUIRED, log_project_action
from gtreview.store.settings_repo import (
    APPROVAL_REQUIRES_CALIBRATION,
    JUDGE_GATE_MEASURE,
    JUDGE_GATE_THRESHOLD,
    JUDGE_SPEC,
    get_setting,
    put_setting,
    set_setting,
)


def project_judge(engine: Engine) -> str:
    """The judge spec the project uses for calibration and passes ('' when none is set)."""
    value = get_setting(engine, JUDGE_SPEC)
    return value.strip() if isinstance(value, str) else ""


def set_project_judge(engine: Engine, spec: str) -> str:
    """Keep ``spec`` as the project's judge, its URL password in the keyring; a spec that
    cannot be read, or a password that cannot be kept, is refused in one line."""
    spec = spec.strip()
    if spec:
        parse_model_spec(spec)  # ModelSpecError (a UserError) names what is wrong
    set_setting(engine, JUDGE_SPEC, keep_spec(spec))
    return JUDGE_SPEC


LAST_PASS = "last_pass"


def last_pass(engine: Engine) -> PassConfig | None:
    """The pass last started in this project (models, judge, repeats, sampling), if any."""
    value = get_setting(engine, LAST_PASS)
    if not isinstance(value, dict):
        return None
    try:
        return PassConfig.model_validate(value)
    except ValidationError:  # written by another version: start from the defaults
        return None


def set_last_pass(engine: Engine, config: PassConfig) -> str:
    """Keep ``config`` for the Run dialog, each spec's URL password in the keyring (every
    password kept before anything is written, so a refusal writes nothing)."""
    kept = config.model_copy(
        update={
            "models": [entry.model_copy(update={"spec": keep_spec(entry.spec)}) for entry in config.models],
            "judge": keep_spec(config.judge),
        }
    )
    set_setting(engine, LAST_PASS, kept.model_dump(mode="json"))
    return LAST_PASS


def set_approval_requires_calibration(engine: Engine, required: bool, *, actor: str, reason: str = "") -> str:
    """Require (or stop requiring) a reproduced calibration before an approval. A change
    is an entry of the review log (who, when, why), in the same transaction: approvals
    made while it is off are marked as such, and so are the sign-offs and releases of them."""
    with write_session(engine) as session:
        before = put_setting(session, APPROVAL_REQUIRES_CALIBRATION, bool(required))
        if (True if before is None else bool(before)) != bool(required):  # unset: required
            action = CALIBRATION_REQUIRED if required else CALIBRATION_NOT_REQUIRED
            log_project_action(session, actor=actor, action=action, comment=reason)
        session.commit()
    return APPROVAL_REQUIRES_CALIBRATION


class GateSettingError(UserError, ValueError):
    """A judge-gate setting that cannot be kept (one line)."""


GateMeasure = Literal["weighted_kappa", "krippendorff_alpha"]
GATE_MEASURES: tuple[GateMeasure, ...] = get_args(GateMeasure)
DEFAULT_GATE_THRESHOLD = 0.6  # "substantial" agreement on Landis and Koch's scale
DEFAULT_GATE_MEASURE: GateMeasure = "weighted_kappa"


def judge_gate_threshold(engine: Engine) -> float:
    """The lower bound the judge's agreement with the expert must reach (default 0.6)."""
    value = get_setting(engine, JUDGE_GATE_THRESHOLD)
    ok = isinstance(value, int | float) and not isinstance(value, bool) and -1 <= value <= 1
    return float(value) if ok else DEFAULT_GATE_THRESHOLD


def set_judge_gate_threshold(engine: Engine, threshold: float) -> str:
    if not math.isfinite(threshold) or not -1 <= threshold <= 1:
        raise GateSettingError(f"a judge-gate threshold is an agreement in -1..1, not {threshold}")
    set_setting(engine, JUDGE_GATE_THRESHOLD, float(threshold))
    return JUDGE_GATE_THRESHOLD


def judge_gate_measure(engine: Engine) -> GateMeasure:
    """The agreement on totals the gate reads: quadratic weighted kappa (default) or
    Krippendorff's interval alpha."""
    value = get_setting(engine, JUDGE_GATE_MEASURE)
    return next((m for m in GATE_MEASURES if m == value), DEFAULT_GATE_MEASURE)


def set_judge_gate_measure(engine: Engine, measure: str) -> str:
    chosen = next((m for m in GATE_MEASURES if m == measure), None)
    if chosen is None:
        raise GateSettingError(f"{measure!r} is not a judge-gate measure ({', '.join(GATE_MEASURES)})")
    set_setting(engine, JUDGE_GATE_MEASURE, chosen)
    return JUDGE_GATE_MEASURE


GATE_SETTING_KEYS = frozenset({JUDGE_GATE_THRESHOLD, JUDGE_GATE_MEASURE})
"""The settings a judge gate reads: a view that shows a gate refreshes when one changes."""


class JudgeGateSettings(BaseModel):
    """What the judge's agreement with the expert must reach for its figures to count."""

    measure: GateMeasure
    threshold: float


def judge_gate_settings(engine: Engine) -> JudgeGateSettings:
    return JudgeGateSettings(measure=judge_gate_measure(engine), threshold=judge_gate_threshold(engine))


def set_judge_gate_settings(
    engine: Engine, *, threshold: float | None = None, measure: str | None = None
) -> frozenset[str]:
    """Keep the threshold and/or the measure; both are checked before either is written,
    so a bad value changes nothing. Returns the keys written."""
    if threshold is not None and (not math.isfinite(threshold) or not -1 <= threshold <= 1):
        raise GateSettingError(f"a judge-gate threshold is an agreement in -1..1, not {threshold}")
    if measure is not None and measure not in GATE_MEASURES:
        raise GateSettingError(f"{measure!r} is not a judge-gate measure ({', '.join(GATE_MEASURES)})")
    changed = set()
    if threshold is not None:
        changed.add(set_judge_gate_threshold(engine, threshold))
    if measure is not None:
        changed.add(set_judge_gate_measure(engine, measure))
    return frozenset(changed)


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
