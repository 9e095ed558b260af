"""The report's Configuration section lists every model of the pass with its file identity,
also when the pass reused every stored answer and so opened no model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gtreview.app.sample_project import ensure_sample_project
from gtreview.inference.backend import Sampling
from gtreview.report.document import Heading, Paragraph, Table
from gtreview.report.run_report import build_report
from gtreview.results.analysis import analyse
from gtreview.results.loader import load_run_results
from gtreview.runs.execute import PassCancelled, run_pass
from gtreview.runs.plan import ModelEntry, PassConfig
from gtreview.store import sets
from gtreview.store.db import reading
from tests.report.test_run_report import scripted


def _identity(spec: str) -> dict[str, Any]:
    return {"kind": "gguf", "model_sha256": f"sha-of-{spec}"}


def _config(name: str) -> PassConfig:
    return PassConfig(
        name=name,
        models=[ModelEntry(label="base", spec="base"), ModelEntry(label="tuned", spec="tuned")],
        judge="judge",
        repeats=1,
        sampling=Sampling(seed=5, temperature=0.7, max_tokens=64),
        pairwise=False,
        drift_every=0,
    )


def _sections(blocks: list[Any]) -> dict[str, list[Any]]:
    """The Configuration section's level-2 headings, each with the blocks under it."""
    start = next(i for i, b in enumerate(blocks) if isinstance(b, Heading) and b.text == "Configuration")
    sections: dict[str, list[Any]] = {}
    current: list[Any] = []
    for block in blocks[start + 1 :]:
        if isinstance(block, Heading) and block.level == 1:
            break
        if isinstance(block, Heading):
            current = sections.setdefault(block.text, [])
        else:
            current.append(block)
    return sections


def test_a_pass_that_opened_no_model_still_lists_every_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = ensure_sample_project(tmp_path / "sample")
    try:
        with reading(project.engine) as session:
            rubric = sets.export_rubric(session, 1)
        questions = rubric.questions[:2]
        monkeypatch.setattr("gtreview.runs.execute.spec_identity", _identity)
        by_id = {q.id: q for q in rubric.questions}

        def run(name: str, open_backend: Any) -> int:
            return run_pass(
                project.engine,
                _config(name),
                questions,
                rubric_hash="h",
                open_backend=open_backend,
                set_id=1,
                global_variants=rubric.global_variants,
            ).run_id

        run("first", scripted(by_id))
        opened: list[str] = []

        def open_recorded(spec: str) -> Any:
            opened.append(spec)
            return scripted(by_id)(spec)

        second = run("again", open_recorded)
        assert "base" not in opened and "tuned" not in opened  # every answer was reused
        results = load_run_results(project.engine, second)
        document = build_report(results, analyse(results, n_boot=50, n_perm=50))
    finally:
        project.close()
    sections = _sections(document.blocks)
    assert {"base (base): base", "tuned (fine-tune): tuned", "judge: judge"} <= set(sections)
    for label in ("base (base): base", "tuned (fine-tune): tuned"):
        (table,) = [b for b in sections[label] if isinstance(b, Table)]
        assert ["model_sha256", f"sha-of-{label.rsplit(' ', 1)[1]}"] in table.rows
        assert any(isinstance(b, Paragraph) and "Not opened by this pass" in b.text for b in sections[label])
    (judge_table,) = [b for b in sections["judge: judge"] if isinstance(b, Table)]
    assert ["model_sha256", "sha-of-judge"] in judge_table.rows
    settings = next(b for b in document.blocks if isinstance(b, Table) and b.header == ["Setting", "Value"])
    assert ["Drift check every", "off (no drift check ran)"] in settings.rows


def test_a_model_the_pass_stopped_before_is_not_opened_yet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A stopped pass never opened the fine-tune because it stopped first, not because its
    results were stored; a long spec is a heading by its file name and a row in full."""
    project = ensure_sample_project(tmp_path / "sample")
    long_spec = "llama:/root/.cache/gtreview/models/SmolLM2-135M-Instruct.Q4_1.gguf?n_gpu_layers=-1"
    config = _config("stopped").model_copy(
        update={"models": [ModelEntry(label="base", spec=long_spec), ModelEntry(label="tuned", spec="tuned")]}
    )

    try:
        with reading(project.engine) as session:
            rubric = sets.export_rubric(session, 1)
        questions = rubric.questions[:2]
        monkeypatch.setattr("gtreview.runs.execute.spec_identity", _identity)
        by_id = {q.id: q for q in rubric.questions}

        def stopped_at_the_fine_tune(spec: str) -> Any:
            if spec == "tuned":
                raise PassCancelled("cancelled as the fine-tune was about to load")
            return scripted(by_id)(spec)

        with pytest.raises(PassCancelled):
            run_pass(
                project.engine, config, questions, rubric_hash="h", open_backend=stopped_at_the_fine_tune, set_id=1
            )
        results = load_run_results(project.engine, 1)
        document = build_report(results, analyse(results, n_boot=50, n_perm=50))
    finally:
        project.close()
    sections = _sections(document.blocks)
    tuned = sections["tuned (fine-tune): tuned"]
    (said,) = [b.text for b in tuned if isinstance(b, Paragraph)]
    assert said.startswith("Not opened yet: the pass stopped before it generated its answers (2 missing)")
    (table,) = [b for b in sections["base (base): SmolLM2-135M-Instruct.Q4_1.gguf"] if isinstance(b, Table)]
    assert ["spec", long_spec] in table.rows
