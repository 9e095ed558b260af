"""`gtreview draft` end to end against a loopback OpenAI-compatible server that drafts per stage."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

import pytest

from gtreview.app.corpus_import import import_documents
from gtreview.cli import draft as commands_authoring
from gtreview.cli.common import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE
from gtreview.cli.main import build_parser
from gtreview.core.errors import UserError
from gtreview.inference.backend import ChatMessage, CompletionRequest
from gtreview.judging.prompts import load_template
from gtreview.store import sets
from gtreview.store.db import reading
from gtreview.store.project import create_project, open_project
from tests.authoring.fakes import DraftScript, corpus, critique_reply
from tests.judging.loopback import judge_server
from tests.projects import new_project

SCHEMA_OF_TEMPLATE = {
    "author_cards_v1": "evidence_card",
    "author_questions_v1": "question",
    "author_rubric_v1": "marking_block",
    "author_verify_v1": "critique",
}


def respond(messages: list[dict[str, Any]]) -> str:
    """Drafts like a model would: the stage is known from the system prompt it was sent."""
    [name] = [n for n, schema in SCHEMA_OF_TEMPLATE.items() if load_template(n).text == messages[0]["content"]]
    request = CompletionRequest(messages=[ChatMessage(**m) for m in messages], schema_name=SCHEMA_OF_TEMPLATE[name])
    if name == "author_verify_v1":
        return json.dumps(critique_reply(len(re.findall(r"^\[\d+\] claim:", messages[3]["content"], re.M))))
    return json.dumps(DraftScript.valid(request))


def parse(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(["draft", *argv])


@pytest.fixture()
def project_dir(tmp_path: Path) -> Path:
    project = create_project(tmp_path / "proj")
    import_documents(project.engine, corpus())
    project.close()
    return tmp_path / "proj"


def test_draft_saves_a_set_of_drafts(project_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with judge_server(respond) as url:
        args = parse("--model", f"openai:{url}/v1#drafter", "--questions", "2", "--project", str(project_dir), "--json")
        assert commands_authoring.draft(args) == EXIT_OK
    out = json.loads(capsys.readouterr().out)
    assert out["ok"] is True and out["drafted"] == ["D1", "D2"] and out["failures"] == [] and out["flagged"] == []
    assert [u["requests"] for u in out["usage"]] == [2, 2, 2, 2]
    assert out["usage"][0]["prompt_tokens"] == 20 and out["total_cost_usd"] == "unknown"  # nobody priced "drafter"
    project = open_project(project_dir)
    try:
        with reading(project.engine) as session:
            [summary] = sets.list_sets(session)
        assert summary.id == out["set_id"] and summary.name.startswith("Draft set ")
        with reading(project.engine) as session:
            statuses = {q.review_status for q in sets.list_questions(session, summary.id)}
        assert statuses == {sets.ReviewStatus.DRAFT}
        with reading(project.engine) as session:
            header = sets.set_header(session, summary.id)
        assert header["candidate_access_mode"] == "OPEN_CORPUS"
        assert header["x_provenance"]["model"] == f"openai:{url}/v1#drafter"
    finally:
        project.close()


def test_draft_reports_failures_and_prints_a_summary(project_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def never_a_card(messages: list[dict[str, Any]]) -> str:
        return "I would rather not." if "evidence card 2 of" in messages[3]["content"] else respond(messages)

    with judge_server(never_a_card) as url:
        args = parse(
            "--model", f"openai:{url}/v1#drafter", "--questions", "2", "--project", str(project_dir),
            "--name", "Wirrim", "--access-mode", "CLOSED_CORPUS",
        )  # fmt: skip
        assert commands_authoring.draft(args) == EXIT_FINDINGS
    out = capsys.readouterr().out
    assert "drafted 1 of 2 questions" in out and "saved as set" in out
    assert "failed cards K2 after 4 attempts: the reply is not valid JSON" in out
    assert "total cost unknown" in out


def test_bad_input_is_a_one_line_error(project_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:  # the parser's type checks the count
        parse("--model", "anthropic:claude-sonnet-4-6", "--questions", "0")
    assert caught.value.code == EXIT_USAGE and "--questions: must be at least 1" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        parse("--model", "x", "--questions", "1", "--context-chars", "199")
    assert "--context-chars: must be at least 200" in capsys.readouterr().err
    with pytest.raises(UserError, match="no corpus documents") as empty:  # a DraftSetupError of gtreview.app
        commands_authoring.draft(
            parse("--model", "x", "--questions", "1", "--project", str(new_project(tmp_path / "empty")))
        )
    assert empty.value.exit_status == EXIT_USAGE
    with pytest.raises(UserError, match="model nonsense: unknown model spec"):
        commands_authoring.draft(parse("--model", "nonsense", "--questions", "1", "--project", str(project_dir)))
    prices = tmp_path / "prices.json"
    prices.write_text('{"claude-*": {"input_per_mtok": -1, "output_per_mtok": 1}}')
    with pytest.raises(UserError, match=r"prices\.json: bad price entry"):  # a PriceTableError
        commands_authoring.draft(parse("--model", "x", "--questions", "1", "--prices", str(prices)))
    assert parse("--model", "x", "--questions", "1").handler is commands_authoring.draft
