"""Reviewer keys and signed releases through gtreview.app.releases (the preferences
dialog and ``gtreview keys|release`` share these)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gtreview.app import workflow
from gtreview.app.releases import create_release_bundle, create_reviewer_key, reviewer_keys, verify_release_bundle
from gtreview.app.sample_project import ensure_sample_project
from gtreview.core.errors import UserError
from gtreview.store import sets
from gtreview.store.db import reading


def test_keys_are_created_once_and_listed(tmp_path: Path) -> None:
    keys = tmp_path / "keys"
    assert reviewer_keys(keys) == []
    ann = create_reviewer_key("ann", keys)
    assert ann.private_path == keys / "ann.key" and ann.public_path == keys / "ann.pub"
    assert create_reviewer_key("ann", keys).fingerprint == ann.fingerprint  # asking again shows the same key
    assert [k.name for k in reviewer_keys(keys)] == ["ann"]
    with pytest.raises(UserError):
        create_reviewer_key("../escape", keys)


def test_a_release_is_written_signed_and_verified_against_a_pinned_key(tmp_path: Path) -> None:
    project = ensure_sample_project(tmp_path / "project")
    try:
        with reading(project.engine) as session:
            set_id = sets.list_sets(session)[0].id
        with reading(project.engine) as session:
            for summary in sets.list_questions(session, set_id):
                workflow.approve(project.engine, set_id, summary.qid, reviewer="geo")
        workflow.sign_off(project.engine, set_id, reviewer="geo")
        keys = tmp_path / "keys"
        geo, other = create_reviewer_key("geo", keys), create_reviewer_key("other", keys)
        with pytest.raises(UserError, match="no reviewer key named 'nobody'"):
            create_release_bundle(project.engine, set_id, key="nobody", key_dir=keys, out_dir=tmp_path / "x")
        info = create_release_bundle(project.engine, set_id, key="geo", key_dir=keys, out_dir=tmp_path / "bundle")
        with pytest.raises(UserError, match="not an empty folder"):
            create_release_bundle(project.engine, set_id, key="geo", key_dir=keys, out_dir=tmp_path / "bundle")
    finally:
        project.close()
    assert (info.signer, info.fingerprint, info.signoff_number) == ("geo", geo.fingerprint, 1)
    assert verify_release_bundle(info.folder, public_key_file=geo.public_path).ok
    pinned_to_other = verify_release_bundle(info.folder, public_key_file=other.public_path)
    assert not pinned_to_other.ok and pinned_to_other.readable
    nowhere = verify_release_bundle(tmp_path / "nowhere")
    assert not nowhere.readable and "no such folder" in nowhere.problems[0].detail
