"""Saving drafts as a new benchmark set: all drafts, provenance kept, flags visible."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from gtreview.app.corpus_import import import_documents
from gtreview.authoring.authority import default_contract, from_source_authority
from gtreview.authoring.pipeline import DraftResult, NothingToSaveError, draft_set, save_drafts
from gtreview.core.rubric import Rubric, rubric_to_json_text
from gtreview.core.validation import validate_rubric
from gtreview.store import sets
from gtreview.store.db import reading
from gtreview.store.project import Project, create_project
from tests.authoring.fakes import DraftScript, corpus, passages, rubric_reply
from tests.judging.scripted import ScriptedBackend


@pytest.fixture()
def project(tmp_path: Path) -> Iterator[Project]:
    opened = create_project(tmp_path / "proj")
    import_documents(opened.engine, corpus())
    yield opened
    opened.close()


def drafted(script: DraftScript, n: int = 2) -> DraftResult:
    documents = corpus()
    return draft_set(
        ScriptedBackend(script, spec="scripted:author"),
        documents,
        passages(documents),
        n_questions=n,
        access_mode="RETRIEVAL_ASSISTED",
        authority=default_contract(),
    )


def test_drafts_become_a_new_set_of_drafts_with_provenance(project: Project) -> None:
    script = DraftScript()
    script.overrides[("marking_block", "D2")] = lambda request: json.dumps(rubric_reply(locator="page=9, lines=1"))
    result = drafted(script)
    set_id = save_drafts(project.engine, result, set_name="Wirrim drafts", actor="ann")
    assert save_drafts(project.engine, result, set_name="Wirrim drafts", actor="ann") != set_id  # always a new set

    with reading(project.engine) as session:
        summaries = sets.list_questions(session, set_id)
    assert [(s.qid, s.review_status, s.current_version) for s in summaries] == [
        ("D1", sets.ReviewStatus.DRAFT, 1),
        ("D2", sets.ReviewStatus.DRAFT, 1),
    ]
    with reading(project.engine) as session:
        [entry] = sets.review_log(session, set_id)
    assert (entry.actor, entry.action) == ("ann", "import")

    with reading(project.engine) as session:
        exported = sets.export_rubric(session, set_id)
    data = json.loads(rubric_to_json_text(exported))
    assert not [f.one_line() for f in validate_rubric(data) if f.is_error]
    assert data["benchmark"]["name"] == "Wirrim drafts" and data["benchmark"]["question_count"] == 2
    assert data["candidate_access_mode"] == "RETRIEVAL_ASSISTED"
    assert data["source_authority"][0] == {
        "rank": 1,
        "source_class": "Primary report text",
        "detail": default_contract().classes[0].detail,
        "note": default_contract().classes[0].note,
    }
    assert from_source_authority(exported.source_authority) == default_contract()

    header = data["x_provenance"]
    assert header["model"] == "scripted:author" and header["backend"]["kind"] == "scripted"
    assert set(header["templates"]) == {
        "author_cards_v1",
        "author_questions_v1",
        "author_rubric_v1",
        "author_verify_v1",
    }
    assert [u["stage"] for u in header["usage"]] == ["cards", "questions", "rubric", "verify"]
    assert header["failures"] == [] and header["authority"]["classes"][0]["key"] == "primary_text"

    first, second = data["questions"]
    provenance = first["x_provenance"]
    assert provenance["drafted_by"] == "scripted:author" and provenance["card"]["card_id"] == "K1"
    assert provenance["backend"] == {"spec": "scripted:author", "kind": "scripted"}
    assert [s["stage"] for s in provenance["stages"]] == ["cards", "questions", "rubric", "verify"]
    assert all(len(s["template_sha256"]) == 64 and s["attempts"] == 1 for s in provenance["stages"])
    assert provenance["stages"][0]["template"] == "author_cards_v1" and provenance["stages"][0]["status"] == "ok"
    assert set(provenance["self_check"]) >= {"one_construct", "no_give_away_context"}
    assert "x_flags" not in first
    [flag] = second["x_flags"]
    assert flag["code"] == "evidence-unresolved" and flag["origin"] == "locator" and flag["severity"] == "error"
    assert flag["path"] == "$.evidence[0].locator"
    # The stored file round-trips exactly (unknown keys included).
    assert rubric_to_json_text(Rubric.model_validate(data)) == rubric_to_json_text(exported)


def test_nothing_to_save_is_an_error_not_an_empty_set(project: Project) -> None:
    script = DraftScript()
    script.overrides[("evidence_card", "K1")] = lambda request: "no"
    result = drafted(script, n=1)
    with pytest.raises(NothingToSaveError, match="cards K1"):
        save_drafts(project.engine, result, set_name="empty", actor="ann")
    with reading(project.engine) as session:
        assert sets.list_sets(session) == []
