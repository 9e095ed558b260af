"""A run's links carry their records' places in its plan, so results are read without re-planning.

Revision ID: 0010
Revises: 0009

Each link of a pass names the model, question, sample, judge verdict (and for a pair
its base) of its record and its order in the plan; a record the plan names that is not
stored (a pass stopped before it) is linked too, so it reads as missing. The data step
re-plans each stored pass once, the way revision 0007 does, and writes these places;
an import's links keep none (its records carry their own model, question and sample).
"""

import json
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

_COLUMNS = (
    ("model", sa.String()),
    ("qid", sa.String()),
    ("sample_index", sa.Integer()),
    ("judge_repeat", sa.Integer()),
    ("base_model", sa.String()),
    ("position", sa.Integer()),
)


def upgrade() -> None:
    for name, kind in _COLUMNS:
        op.add_column("run_record", sa.Column(name, kind, nullable=True))
    connection = op.get_bind()
    rows = connection.execute(sa.text("SELECT id, source, config_json FROM run")).all()
    for run_id, source, config_json in rows:
        if source == "gtreview":
            _place(connection, run_id, json.loads(config_json or "{}"))


def _place(connection: Any, run_id: int, config: dict[str, Any]) -> None:
    """Link every record the pass's stored plan names, with its place in the plan."""
    if not all(k in config for k in ("pass", "questions", "identities", "judge_identity")):
        return
    from gtreview.core.rubric import Question
    from gtreview.runs.plan import PassConfig, plan_pass

    templates = config.get("templates") or {}
    try:
        plan = plan_pass(
            PassConfig.model_validate(config["pass"]),
            [Question.model_validate(q) for q in config["questions"]],
            config["identities"],
            config["judge_identity"],
            pointwise_template=templates.get("pointwise", ""),
            pairwise_template=templates.get("pairwise", ""),
        )
    except Exception:  # noqa: BLE001 - an unreadable old plan keeps its links as they are
        return
    seen: set[tuple[str, str]] = set()
    for record in plan.planned_records():
        if (record.kind.value, record.key) in seen:  # the first place wins, as when a pass links it
            continue
        seen.add((record.kind.value, record.key))
        values = {
            "run": run_id,
            "kind": record.kind.value,
            "key": record.key,
            "model": record.model,
            "qid": record.qid,
            "sample_index": record.sample_index,
            "judge_repeat": record.judge_repeat,
            "base_model": record.base_model,
            "position": record.position,
        }
        connection.execute(
            sa.text("INSERT OR IGNORE INTO run_record (run_id, kind, key) VALUES (:run, :kind, :key)"), values
        )
        connection.execute(
            sa.text(
                "UPDATE run_record SET model = :model, qid = :qid, sample_index = :sample_index, "
                "judge_repeat = :judge_repeat, base_model = :base_model, position = :position "
                "WHERE run_id = :run AND kind = :kind AND key = :key"
            ),
            values,
        )


def downgrade() -> None:
    connection = op.get_bind()
    connection.execute(  # a planned link whose record was never stored did not exist before
        sa.text(
            "DELETE FROM run_record WHERE model IS NOT NULL AND ("
            "(kind = 'generation' AND key NOT IN (SELECT key FROM generation)) OR "
            "(kind = 'judgement' AND key NOT IN (SELECT key FROM judgement)) OR "
            "(kind = 'pair' AND key NOT IN (SELECT key FROM pair_judgement)))"
        )
    )
    with op.batch_alter_table("run_record") as batch:
        for name, _ in reversed(_COLUMNS):
            batch.drop_column(name)
