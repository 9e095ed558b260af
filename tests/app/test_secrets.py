"""Nothing leaked: credentials that servers echo back reach no file the program writes.

A pass against a loopback server that quotes the Authorization header it was sent (in a
401 from ``/v1/models`` and from chat requests, and in a non-JSON 200 body), with the API
key from the environment and a user:password in one model's URL. Then the project
database's bytes, the PDF report, the leaderboard ``scores.json`` and the log are
searched for the key, the password and the base64 of ``user:password``.
"""

from __future__ import annotations

import base64
import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pypdf import PdfReader

from gtreview import logging_setup
from gtreview.app.exports import export_leaderboard
from gtreview.app.passes import GenerationsFailed, PassSetupError, resumable_pass, run_benchmark_pass
from gtreview.app.reports import write_report
from gtreview.app.sample_project import ensure_sample_project
from gtreview.core.rubric import Rubric
from gtreview.inference.backend import ChatMessage, CompletionRequest, Sampling
from gtreview.inference.openai_client import OpenAICompatibleBackend
from gtreview.runs.plan import ModelEntry, PassConfig
from gtreview.runs.record import read_run_config
from gtreview.store import sets
from gtreview.store.db import reading
from gtreview.store.project import Project
from tests.inference.leaky_loopback import leaky_server
from tests.judging.scripted import fixture_reply, verdict_json

KEY = "sk-test-LEAKMARKERkey0123456789"
USER, PASSWORD = "alice", "PWleakmarker9876"
BASIC = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
# Short pieces of each secret, so that a secret cut off or wrapped in a PDF cell is still found.
PROBES = ("LEAKMARKER", "PWleakmarker", BASIC[:16])


def assert_clean(where: str, text: str) -> None:
    found = [probe for probe in PROBES if probe in text]
    assert found == [], f"{where} holds {found}"


def judge_for(rubric: Rubric):  # type: ignore[no-untyped-def]
    def reply(messages: list[dict[str, Any]]) -> str:
        content = messages[1]["content"]
        question = next(q for q in rubric.questions if f"QUESTION {q.id}:" in content)
        fixture = next((f for f in question.calibration if f"<<<\n{f.response_text}\n>>>" in content), None)
        return fixture_reply(question, fixture) if fixture is not None else verdict_json(question, True, {})

    return reply


@pytest.fixture(scope="module")
def leaky_pass(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Project, int, str]]:
    """A finished-but-failed pass: every generation of every model hit a leaky server."""
    folder = tmp_path_factory.mktemp("secrets") / "project"
    project = ensure_sample_project(folder)
    with reading(project.engine) as session:
        rubric = sets.export_rubric(session, 1)
    with pytest.MonkeyPatch.context() as patch, leaky_server(judge_for(rubric)) as url:
        patch.setenv("GTREVIEW_OPENAI_API_KEY", KEY)
        host = url.removeprefix("http://")
        config = PassConfig(
            name="leaks",
            models=[
                ModelEntry(label="keyed", spec=f"openai:{url}/v1#echo"),
                ModelEntry(label="basic", spec=f"openai:http://{USER}:{PASSWORD}@{host}/v1#echo-basic"),
                ModelEntry(label="proxy", spec=f"openai:{url}/v1#nonjson"),
            ],
            judge=f"openai:{url}/v1#judge",
            repeats=1,
            sampling=Sampling(max_tokens=16),
            pairwise=False,
            drift_every=0,
        )
        with pytest.raises(GenerationsFailed) as failed:
            run_benchmark_pass(project.engine, config, set_id=1)
    yield project, failed.value.result.run_id, str(failed.value)
    project.close()


def test_the_database_holds_no_credential(leaky_pass: tuple[Project, int, str]) -> None:
    project, _, message = leaky_pass
    stored = b"".join(path.read_bytes() for path in sorted(project.folder.glob("project.sqlite*")))
    assert b"Incorrect API key provided" in stored and b"malformed chat completion" in stored
    assert_clean("the project database", stored.decode("latin-1"))
    assert_clean("the one-line failure", message)


def test_the_run_configuration_keeps_the_url_without_its_password(leaky_pass: tuple[Project, int, str]) -> None:
    project, run_id, _ = leaky_pass
    with reading(project.engine) as session:
        config = read_run_config(session, run_id)
    assert config.pass_config is not None
    spec = config.pass_config.models[1].spec
    assert spec.startswith(f"openai:http://{USER}:***@127.0.0.1:") and spec.endswith("/v1#echo-basic")
    assert_clean("the run configuration", json.dumps(config.to_json()))


def test_a_run_whose_url_had_a_password_is_not_resumed_without_it(leaky_pass: tuple[Project, int, str]) -> None:
    """Resuming with the masked password would store every remaining answer as a 401."""
    project, run_id, _ = leaky_pass
    with pytest.raises(PassSetupError, match="password"):
        resumable_pass(project.engine, run_id)


def test_the_pdf_report_prints_no_credential(leaky_pass: tuple[Project, int, str], tmp_path: Path) -> None:
    project, run_id, _ = leaky_pass
    pdf = write_report(project.engine, run_id, tmp_path / "report.pdf").path
    text = "\n".join(page.extract_text() for page in PdfReader(pdf).pages)
    assert "Incorrect API key" in text
    assert_clean("the PDF report", text)
    assert_clean("the PDF report (without line breaks)", text.replace("\n", ""))


def test_scores_json_holds_no_credential(leaky_pass: tuple[Project, int, str], tmp_path: Path) -> None:
    project, run_id, _ = leaky_pass
    for model in ("keyed", "basic", "proxy"):
        files = export_leaderboard(project.engine, run_id, model, tmp_path / model, rubric_key="sample").files
        scores = (tmp_path / model / "scores.json").read_text(encoding="utf-8")
        assert "generation failed" in scores
        for path in files:
            assert_clean(f"{model}'s {path.name}", path.read_text(encoding="utf-8"))


@pytest.fixture
def log_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The program's rotating log, configured as the CLI does, written under tmp_path."""
    path = tmp_path / "gtreview.log"
    root = logging.getLogger("gtreview")
    level, before = root.level, list(root.handlers)
    monkeypatch.setattr(logging_setup, "log_path", lambda: path)
    monkeypatch.setattr(logging_setup, "_configured", None)
    logging_setup.configure_logging()
    try:
        yield path
    finally:
        for handler in [h for h in root.handlers if h not in before]:
            root.removeHandler(handler)
            handler.close()
        root.setLevel(level)


def test_the_log_keeps_no_credential(log_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A retried 503 that quotes the basic-auth header, a line that names the key, a traceback."""
    monkeypatch.setenv("GTREVIEW_OPENAI_API_KEY", KEY)
    with leaky_server(lambda messages: "") as url:
        host = url.removeprefix("http://")
        backend = OpenAICompatibleBackend(
            f"http://{USER}:{PASSWORD}@{host}/v1", "busy", backoff=lambda attempt: 0.0, max_retries=1
        )
        with backend:
            (result,) = backend.complete_batch([CompletionRequest(messages=[ChatMessage(role="user", content="q")])])
    logger = logging.getLogger("gtreview.test")
    logger.warning("a proxy said: Authorization: Bearer %s", KEY)
    try:
        raise ConnectionError(f"cannot reach http://{USER}:{PASSWORD}@10.0.0.1/v1")
    except ConnectionError:
        logger.exception("a traceback follows")
    assert result.error is not None and result.error.startswith("HTTP 503")
    assert_clean("the error result", result.error)
    text = log_file.read_text(encoding="utf-8")
    assert "retrying" in text and "a proxy said" in text and f"http://{USER}:***@10.0.0.1/v1" in text
    assert_clean("the log", text)
