"""Storing benchmark passes: runs, generations, judgements and pairwise judgements.

Every record has a content key (unique), so writing the same record twice is a no-op:
this is what makes a killed pass resumable without duplicates.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, TypeVar

from pydantic import BaseModel
from sqlalchemy import Engine
from sqlmodel import Session, col, select

from gtreview.core.jsonmodel import canonical_hash
from gtreview.store import tables


class RunSummary(BaseModel):
    id: int
    name: str
    source: str
    status: str
    set_id: int | None
    generations: int
    judgements: int
    pairs: int


def create_run(
    engine: Engine,
    *,
    name: str,
    rubric_hash: str,
    source: str,
    status: str,
    set_id: int | None = None,
    config: dict[str, Any] | None = None,
) -> int:
    with Session(engine) as session:
        run = tables.Run(
            name=name,
            set_id=set_id,
            rubric_hash=rubric_hash,
            source=source,
            status=status,
            config_json=json.dumps(config or {}, ensure_ascii=False),
        )
        session.add(run)
        session.commit()
        assert run.id is not None
        return run.id


def find_or_create_run(
    engine: Engine, *, name: str, rubric_hash: str, set_id: int | None, config: dict[str, Any]
) -> int:
    """The run for this exact configuration and rubric (resumed), or a new one."""
    config_hash = canonical_hash({"config": config, "rubric": rubric_hash})
    with Session(engine) as session:
        for run in session.exec(select(tables.Run).where(col(tables.Run.rubric_hash) == rubric_hash)):
            if json.loads(run.config_json).get("config_hash") == config_hash:
                assert run.id is not None
                run.status = "running"
                session.add(run)
                session.commit()
                return run.id
    return create_run(
        engine,
        name=name,
        rubric_hash=rubric_hash,
        source="gtreview",
        status="running",
        set_id=set_id,
        config={"config_hash": config_hash, "pass": config, "models": {}},
    )


def set_run_status(engine: Engine, run_id: int, status: str) -> None:
    with Session(engine) as session:
        run = session.get(tables.Run, run_id)
        if run is not None:
            run.status = status
            session.add(run)
            session.commit()


def record_model(engine: Engine, run_id: int, spec: str, describe: dict[str, Any]) -> None:
    """Keep what a backend said about itself (file hashes, versions, settings) with the run."""
    with Session(engine) as session:
        run = session.get(tables.Run, run_id)
        if run is None:
            return
        config = json.loads(run.config_json)
        config.setdefault("models", {})[spec] = describe
        run.config_json = json.dumps(config, ensure_ascii=False, default=str)
        session.add(run)
        session.commit()


def update_run_config(engine: Engine, run_id: int, values: dict[str, Any]) -> None:
    with Session(engine) as session:
        run = session.get(tables.Run, run_id)
        if run is None:
            return
        run.config_json = json.dumps({**json.loads(run.config_json), **values}, ensure_ascii=False, default=str)
        session.add(run)
        session.commit()


def run_config(engine: Engine, run_id: int) -> dict[str, Any]:
    with Session(engine) as session:
        run = session.get(tables.Run, run_id)
        if run is None:
            raise KeyError(f"no run {run_id}")
        config: dict[str, Any] = json.loads(run.config_json)
        return config


_Keyed = TypeVar("_Keyed", tables.Generation, tables.Judgement, tables.PairJudgement)


def existing_keys(engine: Engine, model: type[_Keyed], keys: list[str]) -> set[str]:
    found: set[str] = set()
    with Session(engine) as session:
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            found.update(session.exec(select(model.key).where(col(model.key).in_(chunk))).all())
    return found


def generations_by_keys(engine: Engine, keys: list[str]) -> list[tables.Generation]:
    rows: list[tables.Generation] = []
    with Session(engine) as session:
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            rows.extend(session.exec(select(tables.Generation).where(col(tables.Generation.key).in_(chunk))))
    return rows


def add_records(engine: Engine, records: Sequence[tables.Generation | tables.Judgement | tables.PairJudgement]) -> int:
    """Insert records whose key is new, in one transaction; return how many were new."""
    added = 0
    with Session(engine) as session:
        for record in records:
            model = type(record)
            if session.exec(select(model).where(col(model.key) == record.key)).first() is None:
                session.add(record)
                added += 1
        session.commit()
    return added


def list_runs(engine: Engine) -> list[RunSummary]:
    with Session(engine) as session:
        runs = list(session.exec(select(tables.Run).order_by(col(tables.Run.id))))
        summaries = []
        for run in runs:
            counts = [
                len(session.exec(select(model.id).where(col(model.run_id) == run.id)).all())
                for model in (tables.Generation, tables.Judgement, tables.PairJudgement)
            ]
            summaries.append(
                RunSummary(
                    id=run.id or 0,
                    name=run.name,
                    source=run.source,
                    status=run.status,
                    set_id=run.set_id,
                    generations=counts[0],
                    judgements=counts[1],
                    pairs=counts[2],
                )
            )
        return summaries


_Record = TypeVar("_Record", tables.Generation, tables.Judgement, tables.PairJudgement)


def _of_run(engine: Engine, model: type[_Record], run_id: int) -> list[_Record]:
    with Session(engine) as session:
        return list(session.exec(select(model).where(col(model.run_id) == run_id).order_by(col(model.id))))


def run_generations(engine: Engine, run_id: int) -> list[tables.Generation]:
    return _of_run(engine, tables.Generation, run_id)


def run_judgements(engine: Engine, run_id: int) -> list[tables.Judgement]:
    return _of_run(engine, tables.Judgement, run_id)


def run_pairs(engine: Engine, run_id: int) -> list[tables.PairJudgement]:
    return _of_run(engine, tables.PairJudgement, run_id)
