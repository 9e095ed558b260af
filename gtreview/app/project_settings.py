"""The project's own settings the expert changes from the app: the judge and whether
approval needs a reproduced calibration. Stored in the project, so the CLI and every
window agree on them."""

from __future__ import annotations

from sqlalchemy import Engine

from gtreview.inference.specs import parse_model_spec
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


def set_approval_requires_calibration(engine: Engine, required: bool) -> str:
    set_setting(engine, APPROVAL_REQUIRES_CALIBRATION, bool(required))
    return APPROVAL_REQUIRES_CALIBRATION


__all__ = ["project_judge", "set_approval_requires_calibration", "set_project_judge"]
