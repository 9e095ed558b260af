"""Reviewer keys and signed releases through gtreview.app.releases (the preferences
dialog and ``gtreview keys|release`` share these)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gtreview.app import workflow
from gtreview.app.releases import (
    create_release_bundle,
    create_reviewer_key,
    published_releases,
    reviewer_keys,
    signoff_release,
    verify_release_bundle,
)
from gtreview.app.sample_project import ensure_sample_project
from gtreview.core.errors import UserError
from gtreview.store import sets
from gtreview.store.db import reading
from gtreview.store.project import open_project


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


def test_each_bundle_is_recorded_with_its_signoff_and_listed_newest_first(tmp_path: Path) -> None:
    project = ensure_sample_project(tmp_path / "project")
    try:
        engine = project.engine
        with reading(engine) as session:
            set_id = sets.list_sets(session)[0].id
        with reading(engine) as session:
            for summary in sets.list_questions(session, set_id):
                workflow.approve(engine, set_id, summary.qid, reviewer="geo")
        first = workflow.sign_off(engine, set_id, reviewer="geo", comment="first")
        keys = tmp_path / "keys"
        geo = create_reviewer_key("geo", keys)
        assert signoff_release(engine, first.id).bundles == []
        create_release_bundle(engine, set_id, key="geo", key_dir=keys, out_dir=tmp_path / "one")
        create_release_bundle(engine, set_id, key="geo", key_dir=keys, out_dir=tmp_path / "two")
        release = signoff_release(engine, first.id)
        with pytest.raises(UserError, match="no sign-off with id 99"):
            signoff_release(engine, 99)
    finally:
        project.close()
    assert (release.set_id, release.set_name, release.signoff.number) == (set_id, "Mount Wirrim Goldfield (sample)", 1)
    assert [b.folder for b in release.bundles] == [tmp_path / "two", tmp_path / "one"]
    newest = release.bundles[0]
    assert (newest.signer, newest.fingerprint, newest.question_count) == ("geo", geo.fingerprint, first.question_count)
    manifest = json.loads((tmp_path / "two" / "manifest.json").read_text(encoding="utf-8"))
    assert newest.created_at == manifest["created_at"] and newest.content_hash == first.content_hash


def test_a_bundle_written_by_the_cli_is_recorded_in_the_project(tmp_path: Path) -> None:
    from gtreview.cli.main import main

    project = ensure_sample_project(tmp_path / "project")
    try:
        with reading(project.engine) as session:
            set_id = sets.list_sets(session)[0].id
        with reading(project.engine) as session:
            for summary in sets.list_questions(session, set_id):
                workflow.approve(project.engine, set_id, summary.qid, reviewer="geo")
        signoff = workflow.sign_off(project.engine, set_id, reviewer="geo")
    finally:
        project.close()
    keys = str(tmp_path / "keys")
    assert main(["keys", "create", "geo", "--key-dir", keys]) == 0
    argv = ["release", "create", "--project", str(tmp_path / "project"), "--set", str(set_id), "--key", "geo"]
    assert main([*argv, "--key-dir", keys, "-o", str(tmp_path / "b")]) == 0
    project = open_project(tmp_path / "project")
    try:
        (bundle,) = published_releases(project.engine)
        assert signoff_release(project.engine, signoff.id).bundles == [bundle]
    finally:
        project.close()
    assert bundle.folder == tmp_path / "b" and bundle.signer == "geo"
