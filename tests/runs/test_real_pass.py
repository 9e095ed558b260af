"""A whole benchmark pass on a real model: SmolLM2 answers, a random-LoRA fine-tune of it
answers differently, and SmolLM2 judges both under the rubric's grammar and compares
them. Every local model runs in its worker process, as in production. One question,
one repeat and short answers keep it to seconds; it skips when SmolLM2 cannot be had."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gtreview.core.pairwise import TOKENS
from gtreview.core.rubric import Question
from gtreview.inference.backend import Sampling
from gtreview.inference.factory import open_backend
from gtreview.results.loader import SampleStatus, load_run_results
from gtreview.runs.execute import PassEvent, run_pass
from gtreview.runs.plan import ModelEntry, PassConfig
from gtreview.store import db, runs_repo
from gtreview.store.project import create_project
from tests.rubric_factory import question

pytestmark = pytest.mark.real_model


def test_a_pass_on_smollm2_generates_cleans_judges_and_compares(
    tmp_path: Path, smollm2_gguf: Path, smollm2_lora: Path
) -> None:
    q = Question.model_validate(question("A1"))
    options = "ctx=4096&seq=4&threads=2"
    config = PassConfig(
        name="real",
        models=[
            ModelEntry(label="base", spec=f"llama:{smollm2_gguf}?{options}"),
            ModelEntry(label="tuned", spec=f"llama:{smollm2_gguf}?lora={smollm2_lora}&scale=1.0&{options}"),
        ],
        judge=f"llama:{smollm2_gguf}?{options}",
        repeats=1,
        sampling=Sampling(temperature=0.7, top_p=0.95, seed=7, max_tokens=24),
        judge_sampling=Sampling(temperature=0.0, seed=0, max_tokens=512),
        drift_every=0,  # a 135M judge does not reproduce the fixtures (the check is tested with scripted judges)
    )
    project = create_project(tmp_path / "project")
    events: list[PassEvent] = []
    try:
        result = run_pass(
            project.engine, config, [q], rubric_hash="r", open_backend=open_backend, progress=events.append
        )
        with db.reading(project.engine) as session:
            generations = {g.model_label: g for g in runs_repo.run_generations(session, result.run_id)}
        with db.reading(project.engine) as session:
            judgements = runs_repo.run_judgements(session, result.run_id)
        with db.reading(project.engine) as session:
            (pair,) = runs_repo.run_pairs(session, result.run_id)
        loaded = load_run_results(project.engine, result.run_id)
    finally:
        project.close()

    assert (result.generated, result.generation_errors, result.pairs) == (2, 0, 1)
    base, tuned = generations["base"], generations["tuned"]
    assert base.clean_text and tuned.clean_text and base.clean_text != tuned.clean_text  # the LoRA is another model
    assert all("<|im_" not in g.clean_text for g in (base, tuned))
    # The grammar makes every verdict strict JSON the contract accepts, first time or after a re-ask.
    assert result.judged == 2 and result.unscored == 0
    for judgement in judgements:
        replies = json.loads(judgement.record_json)["replies"]
        reply = json.loads(replies[-1])
        assert list(reply)[:3] == ["gate_reason", "gate_passed", "components"]  # the reason comes first
        assert judgement.total is not None and 0 <= judgement.total <= 10
    outcome = json.loads(pair.outcome_json)["outcome"]
    assert outcome["verdict_normal"] in TOKENS and outcome["verdict_swapped"] in TOKENS
    assert {s.model for s in loaded.samples} == {"base", "tuned"}
    assert all(s.status is SampleStatus.SCORED for s in loaded.samples)
    assert [p.label for p in loaded.pairs] == [pair.label]
    judged = [e for e in events if e.phase == "judge"]
    assert [e.done for e in judged] == [0, 1, 2] and judged[-1].tokens > 0  # 0 of 2, then one per verdict
    assert [e.done for e in events if e.phase == "pairwise"] == [0, 1]
