"""A pass checks every prompt it will send against its model's context before the
judge's fixture check and the first answer: answer prompts with their max_tokens, judge
prompts with the longest possible answer. A misfit stops the pass in one line, having
generated nothing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

from gtreview.inference.backend import CompletionBackend, CompletionRequest, CompletionResult, Sampling
from gtreview.inference.context_fit import PromptsDoNotFit
from gtreview.inference.factory import open_backend
from gtreview.runs.execute import run_pass
from gtreview.runs.plan import ModelEntry, PassConfig
from gtreview.store import db, runs_repo
from gtreview.store.project import open_project
from tests.judging.scripted import ScriptedBackend
from tests.projects import new_project
from tests.runs.test_pass import QUESTIONS, judge_reply


@pytest.fixture()
def engine(tmp_path: Path) -> Iterator[Engine]:
    project = open_project(new_project(tmp_path / "p"))
    yield project.engine
    project.close()


@pytest.fixture(autouse=True)
def identities(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("gtreview.runs.execute.spec_identity", lambda spec: {"spec": spec})


class Opener:
    """Local specs through the real factory (a worker process), the rest scripted."""

    def __init__(self) -> None:
        self.opened: list[str] = []
        self.calls = 0

    def __call__(self, spec: str) -> CompletionBackend:
        self.opened.append(spec)
        if spec.startswith("llama:"):
            return open_backend(spec)

        def respond(request: CompletionRequest) -> CompletionResult:
            self.calls += 1
            if spec.startswith("judge"):
                return CompletionResult(text=judge_reply(request))
            return CompletionResult(text="An answer.", completion_tokens=3)

        return ScriptedBackend(respond, spec=spec)


def config(model: str, judge: str, max_tokens: int) -> PassConfig:
    return PassConfig(
        name="fit",
        models=[ModelEntry(label="base", spec=model)],
        judge=judge,
        sampling=Sampling(temperature=0.7, seed=1, max_tokens=max_tokens),
        judge_sampling=Sampling(max_tokens=400),
        drift_every=1,
    )


def test_answer_prompts_too_long_for_the_model_stop_the_pass_before_any_call(engine: Engine, tiny_gguf: Path) -> None:
    opener = Opener()
    cfg = config(f"llama:{tiny_gguf}?ctx=512&seq=2&threads=1", "judge:x", max_tokens=1024)
    with pytest.raises(PromptsDoNotFit) as caught:
        run_pass(engine, cfg, QUESTIONS, rubric_hash="r", open_backend=opener)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith("2 of 2 base answer prompts do not fit the 512-token context of llama:")
    assert "question A1 needs " in message and " prompt + 1,024 reply = " in message
    assert opener.calls == 0 and opener.opened == [cfg.models[0].spec]  # the judge was never asked
    with db.reading(engine) as session:
        (run,) = runs_repo.list_runs(session)
    with db.reading(engine) as session:
        assert runs_repo.run_generations(session, run.id) == []


def test_judge_prompts_without_room_for_the_longest_answer_stop_the_pass(engine: Engine, tiny_judge_gguf: Path) -> None:
    opener = Opener()
    judge = f"llama:{tiny_judge_gguf}?ctx=2048&seq=2&threads=1"
    cfg = config("openai:base", judge, max_tokens=600)
    with pytest.raises(PromptsDoNotFit) as caught:
        run_pass(engine, cfg, QUESTIONS, rubric_hash="r", open_backend=opener)
    message = str(caught.value)
    assert message.startswith("2 of 8 judge prompts do not fit the 2,048-token context of llama:")
    assert "question A1 with a 600-token answer needs " in message and "+ 400 reply + 600 answer = " in message
    assert "fixture" not in message  # the fixtures are exact and fit; the answers may not
    assert opener.calls == 0 and opener.opened == [judge]
