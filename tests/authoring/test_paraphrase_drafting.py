"""Drafting paraphrases with a scripted drafting model: schema-checked replies, re-asks,
draft paraphrases with provenance, what is refused before the model loads, and the CLI."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gtreview.app.paraphrase_drafting import ParaphraseDraftError, draft_set_paraphrases
from gtreview.authoring.paraphrasing import SCHEMA_NAME, TEMPLATE
from gtreview.authoring.pricing import ModelPrice, PriceTable
from gtreview.authoring.runner import json_object
from gtreview.cli.common import EXIT_OK, EXIT_USAGE
from gtreview.cli.main import main
from gtreview.core.rubric import Rubric
from gtreview.inference.backend import ChatMessage, CompletionBackend, CompletionRequest, CompletionResult
from gtreview.inference.context_fit import PromptCounts, PromptsDoNotFit
from gtreview.judging.prompts import load_template
from gtreview.store import sets
from gtreview.store.db import reading, unit_of_work
from gtreview.store.project import Project, create_project
from gtreview.store.sets import ReviewStatus, history
from tests.authoring.fakes import REASK, REWORDINGS, paraphrase_reply
from tests.judging.loopback import judge_server
from tests.judging.scripted import ScriptedBackend
from tests.rubric_factory import question, rubric


@pytest.fixture()
def project(tmp_path: Path) -> Iterator[Project]:
    opened = create_project(tmp_path / "proj")
    data = rubric(2)
    data["questions"][1]["question"] = "How was the reef of the Garibaldi claim folded, and where is its crown?"
    with unit_of_work(opened.engine) as tx:
        sets.import_rubric(tx, Rubric.model_validate(data), source_name="r.json", source_sha256="s", actor="importer")
    yield opened
    opened.close()


def test_each_accepted_rewording_becomes_a_draft_paraphrase_with_provenance(project: Project) -> None:
    def counted(request: CompletionRequest) -> CompletionResult:
        return CompletionResult(text=paraphrase_reply(request), prompt_tokens=1000, completion_tokens=100)

    backend = ScriptedBackend(counted, spec="anthropic:claude-sonnet-4-5")
    prices = PriceTable(prices={"anthropic:claude-sonnet-4*": ModelPrice(input_per_mtok=3.0, output_per_mtok=15.0)})
    outcome = draft_set_paraphrases(
        project.engine,
        1,
        "anthropic:claude-sonnet-4-5",
        per_question=2,
        actor="geo",
        prices=prices,
        open_backend=lambda _s: backend,
    )
    assert outcome.complete
    assert [(a.qid, a.original) for a in outcome.added] == [
        ("A1-P1", "A1"),
        ("A1-P2", "A1"),
        ("A2-P1", "A2"),
        ("A2-P2", "A2"),
    ]
    [request] = [r for r in backend.requests if "QUESTION A1" in r.messages[-1].content]
    assert request.schema_name == SCHEMA_NAME and request.messages[0].content == load_template(TEMPLATE).text
    assert request.json_schema is not None and request.json_schema["properties"]["paraphrases"]["maxItems"] == 2
    assert "Yield fell from 1 oz to 6 dwt" in request.messages[-1].content  # the evidence wording to move away from
    with reading(project.engine) as session:
        made = sets.load_question(session, 1, "A1-P1").to_json_dict()
    assert made["question"] == REWORDINGS[0] and made["paraphrase_of"] == "A1"
    assert made["x_provenance"]["drafted_by"] == "anthropic:claude-sonnet-4-5"
    assert made["x_provenance"]["template"] == TEMPLATE and made["x_provenance"]["changes"]
    with reading(project.engine) as session:
        assert history(session, 1, "A1-P1")[0].comment == "paraphrase of A1, drafted by anthropic:claude-sonnet-4-5"
    with reading(project.engine) as session:
        statuses = {s.qid: s.review_status for s in sets.list_questions(session, 1)}
    assert statuses["A1-P1"] is ReviewStatus.DRAFT
    assert outcome.draft.usage.requests == 2 and outcome.draft.usage.prompt_tokens == 2000
    assert outcome.draft.total_cost_usd == pytest.approx(2 * (1000 * 3.0 + 100 * 15.0) / 1e6)


def test_a_reply_that_keeps_the_wording_is_asked_again_with_the_reason(project: Project) -> None:
    asked: list[str] = []

    def respond(request: CompletionRequest) -> str:
        asked.append(request.messages[-1].content)
        if REASK in request.messages[-1].content:
            return paraphrase_reply(request)
        original = question("A1")["question"]
        return json.dumps({"paraphrases": [{"question": original + " Explain.", "changes": "none"}]})

    outcome = draft_set_paraphrases(
        project.engine,
        1,
        "scripted",
        per_question=1,
        qids=["A1"],
        actor="geo",
        open_backend=lambda _s: ScriptedBackend(respond),
    )
    assert [a.qid for a in outcome.added] == ["A1-P1"] and outcome.complete
    assert len(asked) == 2 and "keeps the source's wording" in asked[1]


def test_a_question_never_reworded_is_a_failure_and_nothing_is_added_for_it(project: Project) -> None:
    outcome = draft_set_paraphrases(
        project.engine,
        1,
        "scripted",
        per_question=1,
        qids=["A2"],
        actor="geo",
        open_backend=lambda _s: ScriptedBackend(lambda _r: "not JSON"),
    )
    assert outcome.added == [] and not outcome.complete
    [failure] = outcome.draft.failures
    assert failure.qid == "A2" and failure.attempts == 4 and "not valid JSON" in failure.reason
    with reading(project.engine) as session:
        assert len(sets.list_questions(session, 1)) == 2


@pytest.mark.parametrize(
    ("qids", "message"),
    [(["Z9"], "the set has no question Z9"), (["A1-P1"], "A1-P1 is itself a paraphrase of A1")],
)
def test_refusals_come_before_the_model_loads(project: Project, qids: list[str], message: str) -> None:
    draft_set_paraphrases(
        project.engine,
        1,
        "s",
        per_question=1,
        qids=["A1"],
        actor="geo",
        open_backend=lambda _s: ScriptedBackend(paraphrase_reply),
    )

    def never(_spec: str) -> CompletionBackend:
        raise AssertionError("no model may load")

    with pytest.raises(ParaphraseDraftError, match=message):
        draft_set_paraphrases(project.engine, 1, "s", per_question=1, qids=qids, actor="geo", open_backend=never)


def test_the_paraphrase_schema_bounds_the_count() -> None:
    reply = json_object(paraphrase_reply(CompletionRequest(messages=[], json_schema=_schema(3))))
    assert len(reply["paraphrases"]) == 3


def _schema(count: int) -> dict[str, Any]:
    from gtreview.authoring.paraphrasing import paraphrase_schema
    from gtreview.authoring.schemas import SchemaLimits

    return paraphrase_schema(count, SchemaLimits())


def respond_http(messages: list[dict[str, Any]]) -> str:
    count = int(messages[-1]["content"].rsplit("write ", 1)[1].split()[0])
    return paraphrase_reply(
        CompletionRequest(messages=[ChatMessage(**m) for m in messages], json_schema=_schema(count))
    )


def test_cli_draft_paraphrases_against_a_loopback_server(project: Project, capsys: pytest.CaptureFixture[str]) -> None:
    folder = str(project.folder)
    project.close()
    with judge_server(respond_http) as url:
        argv = ["question", "draft-paraphrases", "A2", "--model", f"openai:{url}/v1#drafter", "--per-question", "3"]
        status = main([*argv, "--project", folder, "--json"])
    out = json.loads(capsys.readouterr().out)
    assert status == EXIT_OK and out["ok"] is True
    assert [a["qid"] for a in out["added"]] == ["A2-P1", "A2-P2", "A2-P3"]
    assert out["usage"]["requests"] == 1 and out["total_cost_usd"] == "unknown"  # nobody priced "drafter"


def test_cli_draft_still_needs_its_own_options(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as refused:  # argparse's own refusal, in one line
        main(["draft", "--model", "x", "--project", str(tmp_path)])
    assert refused.value.code == EXIT_USAGE
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--questions" in err


class SmallContext(ScriptedBackend):
    """A model whose context holds no paraphrase prompt: the check refuses before any call."""

    def count_prompt_tokens(self, requests: list[CompletionRequest]) -> PromptCounts:
        return PromptCounts(tokens=tuple(500 for _ in requests), context=1024)


def test_prompts_that_do_not_fit_are_refused_before_any_call(project: Project) -> None:
    backend = SmallContext(paraphrase_reply)
    with pytest.raises(PromptsDoNotFit, match="paraphrase drafting"):
        draft_set_paraphrases(project.engine, 1, "s", per_question=1, actor="geo", open_backend=lambda _s: backend)
    with reading(project.engine) as session:
        assert backend.requests == [] and len(sets.list_questions(session, 1)) == 2
