"""gtreview against a real OpenAI-compatible server: llama-cpp-python's own ``llama_cpp.server``
serving SmolLM2-135M-Instruct on 127.0.0.1 (tests/inference/real_server.py), one server for the
module. The fakes in tests/inference/*_loopback.py stay for what a real server cannot be made to
do (hostile or leaking replies, scripted status codes, timeouts).

* a CLI pass whose model and judge are the server (``openai:URL#MODEL``), the judge's verdicts
  constrained by the schema the server turns into a grammar;
* ``--models-json`` discovery: the server is asked what it serves, and the pass that the
  models.json names is the one just run, so it is reused without a chat request;
* an outage: the server is killed once the first answer is stored, the pass stops with nothing
  stored against the model, and after a restart on the same port the rerun completes it.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from gtreview.cli.main import main
from gtreview.inference.backend import CompletionBackend, Sampling
from gtreview.inference.openai_client import OpenAICompatibleBackend, served_models
from gtreview.runs.execute import ModelUnreachable, PassEvent, run_pass
from gtreview.runs.plan import ModelEntry, PassConfig
from gtreview.store import db, runs_repo
from gtreview.store.project import open_project
from tests.inference.real_server import LlamaCppServer, ServerFailed
from tests.judging.scripted import ScriptedBackend
from tests.projects import new_project
from tests.rubric_factory import rubric
from tests.runs.test_pass import QUESTIONS, judge_reply

pytestmark = [
    pytest.mark.real_model,
    pytest.mark.skipif(sys.platform == "win32", reason="the server is stopped through its POSIX process group"),
]

ALIAS = "SmolLM2-135M-Instruct"  # the name the server serves the model under (--model_alias)
SERVER_EXTRA = ("fastapi", "uvicorn", "sse_starlette", "starlette_context", "pydantic_settings")


@pytest.fixture(scope="module")
def server(smollm2_gguf: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaCppServer]:
    missing = [name for name in SERVER_EXTRA if importlib.util.find_spec(name) is None]
    if missing:
        pytest.skip(f"llama-cpp-python[server] is not installed (missing {', '.join(missing)}): pip install -e .[test]")
    server = LlamaCppServer(smollm2_gguf, tmp_path_factory.mktemp("llama-server") / "server.log", alias=ALIAS)
    try:
        server.start()
    except ServerFailed as exc:
        pytest.fail(str(exc))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture()
def up(server: LlamaCppServer) -> LlamaCppServer:
    """The module's server, running (a test before may have stopped it)."""
    server.start()
    return server


def cli(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    status = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def db_rows(project: Path, sql: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(project / "project.sqlite") as db:
        return db.execute(sql).fetchall()


def test_a_cli_pass_and_its_judge_on_the_server_then_models_json_finds_it_again(
    up: LlamaCppServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rubric_file = tmp_path / "rubric.json"
    rubric_file.write_text(json.dumps(rubric(1)), encoding="utf-8")
    project = new_project(tmp_path / "p")
    spec = f"openai:{up.url}#{ALIAS}"
    before = up.chat_requests()
    status, out, err = cli(
        capsys, "run", "--rubric", rubric_file, "--model", f"base={spec}", "--judge", spec,
        "--max-tokens", "16", "--drift-every", "0", "--project", project, "--json",
    )  # fmt: skip
    assert status == 0, err
    summary = json.loads(out)
    assert (summary["generated"], summary["generation_errors"], summary["reused"]) == (1, 0, 0)
    # The judge's reply follows the verdict schema (the server made a grammar of it) and is scored.
    assert summary["judged"] == 1 and summary["unscored"] == 0, summary
    ((answer, tokens, tries),) = db_rows(
        project, "SELECT clean_text, completion_tokens, attempts FROM generation WHERE status = 'ok'"
    )
    assert isinstance(answer, str) and answer.strip() and isinstance(tokens, int) and 0 < tokens <= 16
    ((total, record),) = db_rows(project, "SELECT total, record_json FROM judgement")
    assert isinstance(total, int) and 0 <= total <= 10
    verdict = json.loads(str(record))
    # strict=False as the contract reads it: the server's grammar (llama-cpp-python's own
    # converter, without gtreview's repair in inference/json_grammar.py) lets raw newlines into strings
    reply = json.loads(verdict["replies"][-1], strict=False)
    assert list(reply)[:3] == ["gate_reason", "gate_passed", "components"]  # the schema's order
    assert set(reply["components"]) == {"C1", "C2", "C3"}
    ((config,),) = db_rows(project, "SELECT config_json FROM run")
    described = json.loads(str(config))["models"][spec]
    assert described["server"]["models"] == [ALIAS]  # what GET /v1/models said, kept with the run
    # every try at the answer and the verdict, and the verdict's first request, refused for its json_schema
    assert up.chat_requests() - before == tries + verdict["attempts"] + 1

    # --models-json: the entry's model name is not what the server calls it; the server is asked
    config_file = tmp_path / "models.json"
    entry = {"label": "base", "model": "HuggingFaceTB/SmolLM2-135M-Instruct", "lora": "", "provider": "vllm"}
    config_file.write_text(json.dumps([entry]), encoding="utf-8")
    assert served_models(up.url) == [ALIAS] == served_models(up.root)
    before = up.chat_requests()
    status, out, err = cli(
        capsys, "run", "--rubric", rubric_file, "--models-json", config_file, "--base-url", up.url, "--judge", spec,
        "--max-tokens", "16", "--drift-every", "0", "--project", project, "--json",
    )  # fmt: skip
    assert status == 0, err
    again = json.loads(out)
    assert again["notes"] == [
        f"base: {up.url} does not serve '{entry['model']}'; it serves only '{ALIAS}', used instead"
    ]
    # the same model under the same spec: the pass just run, every answer and verdict reused
    assert again["run_id"] == summary["run_id"] and (again["generated"], again["reused"]) == (0, 1)
    assert up.chat_requests() == before


def test_an_outage_mid_pass_stores_nothing_against_the_model_and_the_rerun_completes(
    up: LlamaCppServer, tmp_path: Path
) -> None:
    spec = f"openai:{up.url}#{ALIAS}"
    config = PassConfig(
        name="outage",
        models=[ModelEntry(label="base", spec=spec)],
        judge="anthropic:judge",  # scripted below: the judge is not what this test is about
        repeats=3,  # of one question: the server keeps the prompt they share cached
        sampling=Sampling(temperature=0.7, top_p=0.95, seed=3, max_tokens=12),
        drift_every=0,
        generation_retries=1,
    )
    questions = QUESTIONS[:1]
    total = len(questions) * config.repeats

    def open_backend(name: str) -> CompletionBackend:
        if name == config.judge:
            return ScriptedBackend(judge_reply, spec=name)
        # the factory's client, without its waits between retries: a dead server refuses at once
        return OpenAICompatibleBackend(up.url, ALIAS, spec=name, backoff=lambda attempt: 0.0)

    def kill_after_the_first_answer(event: PassEvent) -> None:
        if event.phase == "generate" and event.done >= 1 and up.running:
            up.kill()  # SIGKILL while the rest are queued or in flight

    project = open_project(new_project(tmp_path / "p"))
    try:
        with pytest.raises(
            ModelUnreachable,
            match=rf"{re.escape(ALIAS)} could not be reached: \d of {total} answers are missing \(ConnectError: ",
        ):
            run_pass(
                project.engine, config, questions, rubric_hash="r", open_backend=open_backend,
                progress=kill_after_the_first_answer,
            )  # fmt: skip
        assert not up.running
        with db.reading(project.engine) as session:
            (run,) = runs_repo.list_runs(session)
        with db.reading(project.engine) as session:
            stored = runs_repo.run_generations(session, run.id)
        assert run.status == "stopped" and 1 <= len(stored) < total
        assert all(g.status == "ok" and g.error == "" for g in stored)  # the outage is no answer of the model's
        with db.reading(project.engine) as session:
            assert runs_repo.run_judgements(session, run.id) == []  # the judge never ran

        up.start()  # the same port: the spec still names it
        before = up.chat_requests()
        result = run_pass(project.engine, config, questions, rubric_hash="r", open_backend=open_backend)
        asked = up.chat_requests() - before
        with db.reading(project.engine) as session:
            (finished,) = runs_repo.list_runs(session)
        kept = {g.key for g in stored}
        with db.reading(project.engine) as session:
            new = [g for g in runs_repo.run_generations(session, run.id) if g.key not in kept]
    finally:
        project.close()
    assert result.run_id == run.id and result.reused == len(stored)
    assert (result.generated, result.generation_errors, result.judged) == (total - len(stored), 0, total)
    assert len(new) == total - len(stored) and asked == sum(g.attempts for g in new)  # only what was missing
    assert (finished.status, finished.generations, finished.judgements) == ("finished", total, total)
