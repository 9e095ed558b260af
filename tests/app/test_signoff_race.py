"""A sign-off freezes exactly what was approved, even while another process edits the set.

Two real processes (``tests/signoff_race.py``): one approves and signs off in a loop, the
other edits question titles in a loop. Every sign-off is then checked against the review
log (each question it froze has an approval of that very content standing when it was
signed: no edit between them) and released: ``release verify`` must find every bundle
valid. An attacker's 60 s run of the same loops had found 18 of 201 sign-offs freezing
versions that were never approved, signed by ``release create`` and INVALID at verify.
"""

from __future__ import annotations

import json
from pathlib import Path

from gtreview.app.releases import create_release_bundle, create_reviewer_key, verify_release_bundle
from gtreview.core.jsonmodel import canonical_hash
from gtreview.store import sets
from gtreview.store.db import reading
from gtreview.store.project import open_project
from tests.signoff_race import make_project, race


def standing_approvals_at_each_signoff(folder: Path, set_id: int) -> list[set[str]]:
    """For each sign-off in order, the content hashes approved and not since edited,
    reopened or otherwise decided, when its audit entry was written."""
    project = open_project(folder)
    try:
        standing: dict[int, str] = {}
        at_signoffs: list[set[str]] = []
        with reading(project.engine) as session:
            for entry in sets.review_log(session, set_id):
                if entry.action == "sign_off":
                    at_signoffs.append(set(standing.values()))
                elif entry.question_id is not None:
                    standing.pop(entry.question_id, None)
                    if entry.action == "approved":
                        standing[entry.question_id] = entry.content_hash
        return at_signoffs
    finally:
        project.close()


def frozen_question_hashes(folder: Path, set_id: int) -> list[set[str]]:
    project = open_project(folder)
    try:
        with reading(project.engine) as session:
            return [
                {canonical_hash(q) for q in json.loads(s.rubric_json)["questions"]}
                for s in sets.list_signoffs(session, set_id)
            ]
    finally:
        project.close()


def test_signoffs_beside_an_editor_freeze_only_approved_versions_and_every_release_verifies(tmp_path: Path) -> None:
    folder = tmp_path / "p"
    set_id = make_project(folder)
    result = race(folder, set_id, sign_rounds=40, edit_rounds=120)
    assert result.editor.get("edited", 0) > 0
    assert result.signer.get("signed", 0) > 0

    frozen, approved = frozen_question_hashes(folder, set_id), standing_approvals_at_each_signoff(folder, set_id)
    assert len(frozen) == len(approved) == result.signer["signed"]
    unapproved = [n + 1 for n, (f, a) in enumerate(zip(frozen, approved, strict=True)) if f != a]
    assert unapproved == [], f"sign-offs {unapproved} froze versions not approved when signed"

    keys = tmp_path / "keys"
    create_reviewer_key("signer", keys)
    project = open_project(folder)
    try:
        bundles = [
            create_release_bundle(
                project.engine, set_id, key="signer", key_dir=keys, out_dir=tmp_path / f"r{n}", signoff=n
            ).folder
            for n in range(1, len(frozen) + 1)
        ]
    finally:
        project.close()
    invalid = {
        bundle.name: [p.detail for p in report.problems]
        for bundle in bundles
        if not (report := verify_release_bundle(bundle, key_dir=keys)).ok
    }
    assert invalid == {}
