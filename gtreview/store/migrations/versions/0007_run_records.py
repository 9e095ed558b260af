"""Runs linked to the records they use; the run configuration gets a schema version.

Revision ID: 0007
Revises: 0006

Before this revision a record pointed only at the run that first wrote it, so a pass
that reused earlier answers, or extended a pass to more repeats, could not list its
own records. The data step links every record to the run that wrote it and, for the
project's own passes, to every run whose stored plan names its key. Configurations
of harness imports move their file names under ``harness``.
"""

import json
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

_KINDS = (("generation", "generation"), ("judgement", "judgement"), ("pair", "pair_judgement"))


def upgrade() -> None:
    op.create_table(
        "run_record",
        sa.Column("run_id", sa.Integer(), sa.ForeignKey("run.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("kind", sa.String(), primary_key=True),
        sa.Column("key", sa.String(), primary_key=True),
    )
    op.create_index("ix_run_record_key", "run_record", ["key"])
    for kind, table in _KINDS:
        op.execute(f"INSERT OR IGNORE INTO run_record (run_id, kind, key) SELECT run_id, '{kind}', key FROM {table}")
    connection = op.get_bind()
    for run_id, source, config_json in connection.execute(sa.text("SELECT id, source, config_json FROM run")).all():
        config = _normalised(source, json.loads(config_json or "{}"))
        connection.execute(
            sa.text("UPDATE run SET config_json = :c WHERE id = :i"),
            {"c": json.dumps(config, ensure_ascii=False), "i": run_id},
        )
        if source == "gtreview":
            _link_planned(connection, run_id, config)


def _normalised(source: str, config: dict[str, Any]) -> dict[str, Any]:
    config = dict(config)
    config["schema_version"] = 1
    if source == "harness-import" and "harness" not in config:
        config["harness"] = {
            "scores": config.pop("scores", None),
            "answers": config.pop("answers", {}) or {},
            "labels": config.pop("labels", ["a", "b"]) or ["a", "b"],
        }
    return config


def _link_planned(connection: Any, run_id: int, config: dict[str, Any]) -> None:
    """Link the records a pass's stored plan names (its reused ones too), where they exist."""
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
    except Exception:  # noqa: BLE001 - an unreadable old plan keeps the links of its own records
        return
    wanted = {
        "generation": [t.key for t in plan.all_generations()],
        "judgement": list(plan.judgement_keys.values()),
        "pair": [p.key for p in plan.pairs],
    }
    for kind, table in _KINDS:
        keys = wanted[kind]
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            marks = ", ".join(f":k{i}" for i in range(len(chunk)))
            connection.execute(
                sa.text(
                    f"INSERT OR IGNORE INTO run_record (run_id, kind, key) "
                    f"SELECT :run, '{kind}', key FROM {table} WHERE key IN ({marks})"
                ),
                {"run": run_id, **{f"k{i}": key for i, key in enumerate(chunk)}},
            )


def downgrade() -> None:
    op.drop_index("ix_run_record_key", "run_record")
    op.drop_table("run_record")
