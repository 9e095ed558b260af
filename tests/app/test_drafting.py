"""Drafting a set through gtreview.app.drafting.draft_new_set: what the outcome says when
the drafts are saved, when drafting is cancelled, and what is refused before a model loads."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from gtreview.app.corpus_import import import_documents
from gtreview.app.drafting import DraftSetupError, draft_new_set, read_prices
from gtreview.authoring.pricing import PriceTable
from gtreview.core.errors import UserError
from gtreview.inference.backend import CompletionBackend
from gtreview.store import sets
from gtreview.store.db import reading
from gtreview.store.project import Project, create_project
from tests.authoring.fakes import DraftScript, corpus
from tests.judging.scripted import ScriptedBackend


@pytest.fixture()
def project(tmp_path: Path):  # type: ignore[no-untyped-def]
    opened = create_project(tmp_path / "proj")
    yield opened
    opened.close()


def scripted(spec: str) -> CompletionBackend:
    return ScriptedBackend(DraftScript(), spec=spec)


def test_drafts_are_saved_as_a_new_set(project: Project) -> None:
    import_documents(project.engine, corpus())
    outcome = draft_new_set(project.engine, "drafter", n_questions=2, actor="geo", name="Wirrim", open_backend=scripted)
    assert outcome.complete and outcome.requested == 2 and outcome.set_id is not None
    assert [d.question.id for d in outcome.result.drafts] == ["D1", "D2"] and not outcome.result.cancelled
    with reading(project.engine) as session:
        [summary] = sets.list_sets(session)
    assert (summary.id, summary.name) == (outcome.set_id, "Wirrim")
    with reading(project.engine) as session:
        assert {q.review_status for q in sets.list_questions(session, summary.id)} == {sets.ReviewStatus.DRAFT}


def test_a_cancelled_draft_saves_nothing_and_says_so(project: Project) -> None:
    import_documents(project.engine, corpus())
    cancel = threading.Event()
    cancel.set()
    outcome = draft_new_set(project.engine, "drafter", n_questions=2, actor="geo", cancel=cancel, open_backend=scripted)
    assert outcome.result.cancelled and outcome.set_id is None and not outcome.complete
    with reading(project.engine) as session:
        assert sets.list_sets(session) == []


def test_refusals_come_before_the_model_loads(project: Project, tmp_path: Path) -> None:
    opened: list[str] = []

    def never(spec: str) -> CompletionBackend:
        opened.append(spec)
        raise AssertionError("no model may load")

    with pytest.raises(DraftSetupError, match="no corpus documents") as info:
        draft_new_set(project.engine, "drafter", n_questions=1, actor="geo", open_backend=never)
    assert opened == [] and info.value.exit_status == 2
    import_documents(project.engine, corpus())
    with pytest.raises(DraftSetupError, match=r"^model nonsense: unknown model spec"):
        draft_new_set(project.engine, "nonsense", n_questions=1, actor="geo")  # the real factory refuses it
    assert read_prices(None) == PriceTable()
    prices = tmp_path / "prices.json"
    prices.write_text('{"claude-*": {"input_per_mtok": -1, "output_per_mtok": 1}}')
    with pytest.raises(UserError, match="bad price entry"):
        read_prices(prices)
