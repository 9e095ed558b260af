"""The project's own settings the expert changes from the app: the judge, whether
approval needs a reproduced calibration, and the last pass asked for (the Run dialog
starts from it). Stored in the project, so the CLI and every window agree on them."""

from __future__ import annotations

from pydantic import ValidationError
from sqlalchemy import Engine

from gtreview.inference.specs import parse_model_spec
from gtreview.runs.plan import PassConfig
from gtreview.store.settings_repo import APPROVAL_REQUIRES_CALIBRATION, JUDGE_SPEC, get_setting, set_setting


def project_judge(engine: Engine) -> str:
    """The judge spec the project uses for calibration and passes ('' when none is set)."""
    value = get_setting(engine, JUDGE_SPEC)
    return value.strip() if isinstance(value, str) else ""


def set_project_judge(engine: Engine, spec: str) -> str:
    """Keep ``spec`` as the project's judge; a spec that cannot be read is refused in one line."""
    spec = spec.strip()
    if spec:
        parse_model_spec(spec)  # ModelSpecError (a UserError) names what is wrong
    set_setting(engine, JUDGE_SPEC, spec)
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
    set_setting(engine, LAST_PASS, config.model_dump(mode="json"))
    return LAST_PASS


def set_approval_requires_calibration(engine: Engine, required: bool) -> str:
    set_setting(engine, APPROVAL_REQUIRES_CALIBRATION, bool(required))
    return APPROVAL_REQUIRES_CALIBRATION


__all__ = [
    "LAST_PASS",
    "last_pass",
    "project_judge",
    "set_approval_requires_calibration",
    "set_last_pass",
    "set_project_judge",
]
