"""Revision 0010: a project written before the links carried their places in the plan
reads the same results after the migration as the re-planning loader read before it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from gtreview.results import loader
from gtreview.results.loader import load_run_results
from gtreview.runs.plan import plan_pass
from gtreview.runs.record import RunConfig
from gtreview.store import runs_repo, sets, tables
from gtreview.store.db import current_revision, head_revision, make_engine, unit_of_work
from gtreview.store.project import DB_FILE, create_project, open_project
from tests.report.test_exports import RUBRIC
from tests.results.test_one_source import config, run
from tests.store.revisions import drop_revisions_after_0010

_COORDINATES = ("position", "base_model", "judge_repeat", "sample_index", "qid", "model")


def _as_revision_0009(folder: Path) -> None:
    """The project as revision 0009 stored it: links to stored records only, no places."""
    engine = make_engine(folder / DB_FILE)
    with engine.begin() as connection:
        connection.execute(
            text(
                "DELETE FROM run_record WHERE "
                "(kind = 'generation' AND key NOT IN (SELECT key FROM generation)) OR "
                "(kind = 'judgement' AND key NOT IN (SELECT key FROM judgement)) OR "
                "(kind = 'pair' AND key NOT IN (SELECT key FROM pair_judgement))"
            )
        )
        for column in _COORDINATES:
            connection.execute(text(f"ALTER TABLE run_record DROP COLUMN {column}"))
        drop_revisions_after_0010(connection)
        connection.execute(text("UPDATE alembic_version SET version_num = '0009'"))
    engine.dispose()


def _replanned(session: Any, run_id: int, stored: RunConfig) -> Any:
    """The loader before revision 0010, which re-planned the pass (kept here to compare with)."""
    assert stored.pass_config is not None
    plan = plan_pass(
        stored.pass_config,
        stored.question_models(),
        stored.identities,
        stored.judge_identity,
        pointwise_template=stored.templates.pointwise,
        pairwise_template=stored.templates.pairwise,
    )
    generations = {g.key: g for g in runs_repo.generations_by_keys(session, [t.key for t in plan.all_generations()])}
    judgements = {j.key: j for j in loader._by_keys(session, tables.Judgement, plan.all_judgement_keys())}
    pair_rows = {p.key: p for p in loader._by_keys(session, tables.PairJudgement, [p.key for p in plan.pairs])}
    samples = []
    for task in plan.all_generations():
        judgement_key = plan.judgement_keys[task.key]
        sample = loader._sample(
            task.model_label,
            task.question.id,
            task.sample_index,
            generations.get(task.key),
            judgements.get(judgement_key),
        )
        sample.generation_key, sample.judgement_key = task.key, judgement_key
        samples.append(sample)
    pairs = [
        loader._pair(
            p.key,
            p.finetune.question.id,
            p.finetune.sample_index,
            p.finetune.model_label,
            p.base.model_label,
            pair_rows.get(p.key),
        )
        for p in plan.pairs
    ]
    repeats = []
    for task in plan.all_generations():
        for repeat in plan.judge_repeats.get(task.key, []):
            row = judgements.get(repeat.key)
            if row is None:
                continue
            scored = row.status == "scored" and row.total is not None
            repeats.append(
                loader.RepeatVerdict(
                    model=task.model_label,
                    qid=task.question.id,
                    sample_index=task.sample_index,
                    repeat=repeat.repeat,
                    total=float(row.total) if scored else None,
                    gate_passed=row.gate_passed if scored else None,
                )
            )
    return samples, pairs, stored.pass_config, repeats


def test_an_old_project_reads_the_same_results(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("gtreview.runs.execute.spec_identity", lambda spec: {"spec": spec})
    folder = tmp_path / "project"
    project = create_project(folder)
    with unit_of_work(project.engine) as tx:
        set_id = sets.import_rubric(tx, RUBRIC, source_name="Tiny.json", source_sha256="s", actor="t")
    first = run(project.engine, set_id, config())
    extended = run(project.engine, set_id, config(repeats=4, judge_repeats=2))  # reuses the first's answers
    runs = (first, extended)
    project.close()

    _as_revision_0009(folder)
    engine = make_engine(folder / DB_FILE)
    assert current_revision(engine) == "0009"
    with monkeypatch.context() as patched:  # the old loader, on the old project
        patched.setattr(loader, "_planned", lambda s, _run, stored: _replanned(s, _run, stored))
        before = {run_id: load_run_results(engine, run_id).model_dump() for run_id in runs}
    engine.dispose()
    assert before[extended]["repeat_verdicts"] and before[first]["pairs"]

    project = open_project(folder)
    try:
        assert current_revision(project.engine) == head_revision()
        for run_id in runs:
            after = load_run_results(project.engine, run_id).model_dump()
            assert after.keys() == before[run_id].keys()
            for field in after:
                assert after[field] == before[run_id][field], field
    finally:
        project.close()
