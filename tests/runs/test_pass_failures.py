"""Passes whose models fail in ways that are not the model's fault: an unreachable
server, a run that cannot start, a second process on the same pass."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from gtreview.inference.backend import CompletionBackend, CompletionRequest
from gtreview.inference.openai_client import OpenAICompatibleBackend
from gtreview.runs.execute import ModelUnreachable, run_pass
from gtreview.runs.identity import SameModelError
from gtreview.runs.plan import ModelEntry, PassConfig
from gtreview.store import db, runs_repo
from gtreview.store.project import open_project
from tests.judging.scripted import ScriptedBackend
from tests.projects import new_project
from tests.runs.test_pass import QUESTIONS, Models, judge_reply


class Server:
    """A loopback chat server that answers 503 while ``down`` (for the requests ``down_for``
    picks) and counts every request; ``respond`` writes the replies."""

    def __init__(self) -> None:
        self.down = True
        self.down_for: Callable[[CompletionRequest], bool] = lambda request: True
        self.respond: Callable[[CompletionRequest], str] = lambda request: "An answer from the server."
        self.requests = 0
        self.url = ""


@contextmanager
def chat_server() -> Iterator[Server]:
    state = Server()
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            request = CompletionRequest(messages=body["messages"])
            with lock:
                state.requests += 1
            if state.down and state.down_for(request):
                status, payload = 503, {"error": {"message": "loading model"}}
            else:
                message = {"role": "assistant", "content": state.respond(request)}
                status, payload = 200, {"choices": [{"message": message, "finish_reason": "stop"}]}
            body = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


def closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"  # nothing listens there now: connection refused


@pytest.fixture()
def engine(tmp_path: Path):  # type: ignore[no-untyped-def]
    project = open_project(new_project(tmp_path / "p"))
    yield project.engine
    project.close()


def server_config(url: str) -> PassConfig:
    return PassConfig(
        name="t",
        models=[ModelEntry(label="base", spec=f"openai:{url}#m")],
        judge="anthropic:judge",
        repeats=2,
        drift_every=0,
        generation_retries=1,
    )


def opener(url: str) -> Any:
    def open_backend(spec: str) -> CompletionBackend:
        if spec.startswith("anthropic"):
            return ScriptedBackend(judge_reply, spec=spec)
        return OpenAICompatibleBackend(url, "m", spec=spec, max_retries=1, backoff=lambda _: 0.0)

    return open_backend


def test_an_outage_stops_the_pass_unfinished_and_the_rerun_asks_again(engine) -> None:  # type: ignore[no-untyped-def]
    with chat_server() as server:
        config = server_config(server.url)
        with pytest.raises(ModelUnreachable, match=r"could not be reached.*HTTP 503: loading model"):
            run_pass(engine, config, QUESTIONS, rubric_hash="r", open_backend=opener(server.url))
        with db.reading(engine) as session:
            (run,) = runs_repo.list_runs(session)
        assert (run.status, run.generations) == ("stopped", 0)  # no error counted against the model
        assert server.requests == 4 * 2 * 2  # 4 answers, each asked twice by the pass, each retried once

        server.down, server.requests = False, 0
        result = run_pass(engine, config, QUESTIONS, rubric_hash="r", open_backend=opener(server.url))
    assert result.run_id == run.id and server.requests == 4  # the calls are made again, not "reused"
    assert (result.generated, result.generation_errors, result.judged) == (4, 0, 4)
    with db.reading(engine) as session:
        (run,) = runs_repo.list_runs(session)
    assert (run.status, run.generations) == ("finished", 4)


class OldVersionClient(OpenAICompatibleBackend):
    """The client as gtreview was before outages were told apart: a server it could not
    reach was a final error of the model's, stored and scored 0."""

    def _complete(self, request: CompletionRequest) -> Any:
        return super()._complete(request).model_copy(update={"unreachable": False})


def test_outage_errors_an_earlier_version_stored_are_asked_for_again(engine) -> None:  # type: ignore[no-untyped-def]
    with chat_server() as server:
        config = server_config(server.url)

        def old_opener(spec: str) -> CompletionBackend:
            if spec.startswith("anthropic"):
                return ScriptedBackend(judge_reply, spec=spec)
            return OldVersionClient(server.url, "m", spec=spec, max_retries=0, backoff=lambda _: 0.0)

        stored = run_pass(engine, config, QUESTIONS, rubric_hash="r", open_backend=old_opener)
        assert stored.generation_errors == 4  # what the old version recorded: four final errors
        server.down, server.requests = False, 0
        again = run_pass(engine, config, QUESTIONS, rubric_hash="r", open_backend=opener(server.url))
    assert server.requests == 4 and (again.generated, again.generation_errors) == (4, 0)  # not "reused"
    with db.reading(engine) as session:
        (run,) = runs_repo.list_runs(session)
    assert (run.status, run.generations) == ("finished", 4)


def test_only_failures_to_reach_the_model_read_as_outages() -> None:
    from gtreview.inference.backend import looks_unreachable

    for outage in (
        "HTTP 503: loading model (after 3 attempts)",
        "HTTP 429: rate limited",
        "ConnectError: [Errno 111] Connection refused",
        "ReadTimeout: timed out",
        "APIConnectionError: Connection error.",
    ):
        assert looks_unreachable(outage), outage
    for own in ("empty answer", "HTTP 400: context length exceeded", "reasoning only", "truncated at 64 tokens"):
        assert not looks_unreachable(own), own


@pytest.mark.parametrize(
    ("phase", "drift_every", "down_for", "stored"),
    [
        ("fixture verdicts", 6, lambda r: True, (0, 0, 0)),  # the judge check before generation
        ("verdicts", 0, lambda r: True, (4, 0, 0)),
        ("pairs", 0, lambda r: "ANSWER A:" in r.messages[1].content, (4, 4, 0)),
    ],
)
def test_a_judge_outage_stores_no_verdict_and_the_rerun_judges(engine, phase, drift_every, down_for, stored) -> None:  # type: ignore[no-untyped-def]
    with chat_server() as server:
        server.down_for, server.respond = down_for, judge_reply
        models = Models()
        judge = f"openai:{server.url}#judge"

        def open_backend(spec: str) -> CompletionBackend:
            if spec == judge:
                return OpenAICompatibleBackend(server.url, "judge", spec=spec, max_retries=1, backoff=lambda _: 0.0)
            label = spec.rpartition("#")[2]
            return ScriptedBackend(lambda r: models.generate(label, r), spec=spec)

        config = PassConfig(
            name="t",
            models=[ModelEntry(label=m, spec=f"openai:http://127.0.0.1:9#{m}") for m in ("base", "tuned")],
            judge=judge,
            drift_every=drift_every,
        )
        with pytest.raises(ModelUnreachable, match=rf"could not be reached: \d+ of \d+ {phase} are missing"):
            run_pass(engine, config, QUESTIONS, rubric_hash="r", open_backend=open_backend)
        with db.reading(engine) as session:
            (run,) = runs_repo.list_runs(session)
        assert (run.status, (run.generations, run.judgements, run.pairs)) == ("stopped", stored)

        server.down = False
        result = run_pass(engine, config, QUESTIONS, rubric_hash="r", open_backend=open_backend)
    assert (result.judged, result.unscored, result.pairs) == (4 - stored[1], 0, 2)
    with db.reading(engine) as session:
        (run,) = runs_repo.list_runs(session)
    assert (run.status, run.generations, run.judgements, run.pairs) == ("finished", 4, 4, 2)


def test_a_refused_connection_is_not_a_generation_error(engine) -> None:  # type: ignore[no-untyped-def]
    url = closed_port_url()
    with pytest.raises(ModelUnreachable, match=r"could not be reached.*ConnectError"):
        run_pass(engine, server_config(url), QUESTIONS, rubric_hash="r", open_backend=opener(url))
    with db.reading(engine) as session:
        (run,) = runs_repo.list_runs(session)
    assert (run.status, run.generations) == ("stopped", 0)


@pytest.mark.parametrize(
    ("models", "judge", "message"),
    [
        ([ModelEntry(label="base", spec="llama:/nowhere/missing.gguf")], "anthropic:judge", "not found"),
        ([ModelEntry(label="base", spec="openai:http://127.0.0.1:9#m")], "judge-without-a-kind", "unknown model spec"),
    ],
)
def test_a_pass_that_cannot_start_leaves_no_running_run(engine, models, judge, message) -> None:  # type: ignore[no-untyped-def]
    config = PassConfig(name="t", models=models, judge=judge, drift_every=0)
    with pytest.raises(ValueError, match=message):
        run_pass(engine, config, QUESTIONS, rubric_hash="r", open_backend=opener("http://127.0.0.1:9"))
    with db.reading(engine) as session:
        assert [r for r in runs_repo.list_runs(session) if r.status == "running"] == []


def test_a_model_file_with_a_bad_magic_is_refused_before_any_run_exists(engine, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from gtreview.inference.gguf_check import ModelFileError

    html = tmp_path / "model.gguf"
    html.write_text("<html>404 Not Found</html>" * 10)  # a download that went wrong
    config = PassConfig(name="t", models=[ModelEntry(label="base", spec=f"llama:{html}")], judge="anthropic:judge")

    def never_opened(spec: str) -> CompletionBackend:
        raise AssertionError(f"{spec} was opened")

    with pytest.raises(ModelFileError, match=r"model\.gguf"):
        run_pass(engine, config, QUESTIONS, rubric_hash="r", open_backend=never_opened)
    with db.reading(engine) as session:
        assert runs_repo.list_runs(session) == []


def test_two_passes_of_one_plan_started_together_make_one_run_and_one_set_of_calls(tmp_path: Path) -> None:
    projects = [
        open_project(new_project(tmp_path / "p")),
        open_project(new_project(tmp_path / "p")),
    ]  # two connections, as two windows
    calls: list[str] = []
    lock = threading.Lock()
    start = threading.Barrier(2)
    outcomes: list[BaseException | None] = [None, None]

    def open_backend(spec: str) -> CompletionBackend:
        def respond(request: Any) -> str:
            with lock:
                calls.append(spec)
            threading.Event().wait(0.05)  # long enough for the other pass to start meanwhile
            return judge_reply(request) if spec.startswith("anthropic") else "An answer."

        return ScriptedBackend(respond, spec=spec)

    config = server_config("http://127.0.0.1:9")

    def run(index: int) -> None:
        start.wait()
        try:
            run_pass(projects[index].engine, config, QUESTIONS, rubric_hash="r", open_backend=open_backend)
        except BaseException as exc:  # noqa: BLE001 - the test reports what each pass ended with
            outcomes[index] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    try:
        with db.reading(projects[0].engine) as session:
            runs = runs_repo.list_runs(session)
    finally:
        for project in projects:
            project.close()
    refused = [o for o in outcomes if o is not None]
    assert all(isinstance(o, runs_repo.RunBusyError) for o in refused), refused
    assert [str(o) for o in refused] in ([], ["run 1 is being run by another pass in this process; wait for it"])
    assert [(r.id, r.status) for r in runs] == [(1, "finished")]
    assert len(calls) == 4 + 4  # one pass's answers and verdicts: nobody pays twice


def test_a_runaway_generation_is_an_error_and_the_pass_moves_on(engine) -> None:  # type: ignore[no-untyped-def]
    from gtreview.inference.worker import WorkerBackend
    from tests.inference.crashing_backend import RUNAWAY_MARKER, open_runaway

    looping = QUESTIONS[1].model_copy(update={"question": f"{QUESTIONS[1].question} {RUNAWAY_MARKER}"})
    questions = [QUESTIONS[0], looping]
    workers: list[WorkerBackend] = []

    def open_backend(spec: str) -> CompletionBackend:
        if spec.startswith("anthropic"):
            return ScriptedBackend(judge_reply, spec=spec)
        # the load gets its own bound: a busy machine may take seconds to spawn the worker
        workers.append(WorkerBackend(spec, opener=open_runaway, answer_timeout_s=1.0, load_timeout_s=60.0))
        return workers[-1]

    config = server_config("http://127.0.0.1:9").model_copy(update={"repeats": 1})
    outcome: list[Any] = []
    thread = threading.Thread(
        target=lambda: outcome.append(run_pass(engine, config, questions, rubric_hash="r", open_backend=open_backend)),
        daemon=True,
    )
    thread.start()
    thread.join(timeout=60)  # bounded: a runaway must not hang the pass
    assert not thread.is_alive() and outcome, "the pass hung on a runaway generation"
    result = outcome[0]
    assert (result.generated, result.generation_errors, result.judged) == (1, 1, 1)
    with db.reading(engine) as session:
        errors = [g for g in runs_repo.run_generations(session, result.run_id) if g.status == "error"]
    assert [(g.qid, g.attempts) for g in errors] == [(looping.id, 2)]
    assert "no answer within 1 s" in errors[0].error
    with db.reading(engine) as session:
        assert [r.status for r in runs_repo.list_runs(session)] == ["finished"]
    assert all(w.pid is None for w in workers)  # no runaway child left behind


def test_a_copy_of_the_base_is_refused_before_any_run_exists(engine, tiny_gguf: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A byte-identical copy has the base's identity, so its planned answers are the base's:
    it would be "not opened" and read as 0 samples, never as the fine-tune it was meant to be."""
    copy = tmp_path / "geo-ft.gguf"
    copy.write_bytes(tiny_gguf.read_bytes())
    config = PassConfig(
        name="t",
        models=[ModelEntry(label="base", spec=f"llama:{tiny_gguf}"), ModelEntry(label="geo", spec=f"llama:{copy}")],
        judge="anthropic:judge",
    )

    def never_opened(spec: str) -> CompletionBackend:
        raise AssertionError(f"{spec} was opened")

    with pytest.raises(SameModelError, match=r"^base and geo are the same model \(sha256 [0-9a-f]{8}…\): "):
        run_pass(engine, config, QUESTIONS, rubric_hash="r", open_backend=never_opened)
    with db.reading(engine) as session:
        assert runs_repo.list_runs(session) == []


def test_one_server_model_under_two_labels_is_refused(engine) -> None:  # type: ignore[no-untyped-def]
    url = "http://127.0.0.1:9"
    config = PassConfig(
        name="t",
        models=[ModelEntry(label="a", spec=f"openai:{url}#m"), ModelEntry(label="b", spec=f"openai:{url}#m")],
        judge="anthropic:judge",
    )
    with pytest.raises(SameModelError, match=r"a and b are the same model \(m at http://127\.0\.0\.1:9"):
        run_pass(engine, config, QUESTIONS, rubric_hash="r", open_backend=opener(url))
    with db.reading(engine) as session:
        assert runs_repo.list_runs(session) == []
