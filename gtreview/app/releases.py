"""Signed releases: reviewer keys, a bundle of a signed-off set, and its verification.

A release is a folder anyone can check without gtreview's project: the signed-off
rubric, its grading guide, the questions without their answers, and the sign-offs,
hashed in a manifest signed with the reviewer's Ed25519 key. Keys live per user, the
private half never leaves the key folder. The preferences dialog and ``gtreview keys``
manage the same keys through these functions.

Each bundle written from a project is recorded in it (where it went, from which
sign-off, who signed it and when), so the window lists a sign-off's bundles, opens their
folders and verifies them with the function ``gtreview release verify`` calls.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ValidationError
from sqlalchemy import Engine

from gtreview.app.review import set_name
from gtreview.core.errors import UserError
from gtreview.report.release import MANIFEST, Manifest, ReleaseInfo, VerifyReport, create_release, verify_release
from gtreview.report.signing import (
    ReviewerKey,
    add_trusted_key,
    ensure_reviewer_key,
    fingerprint,
    list_reviewer_keys,
    own_public_keys,
    read_public_key_file,
    read_trusted_keys,
    resolve_signing_key,
)
from gtreview.store.db import reading, unit_of_work
from gtreview.store.sets import SignoffInfo, signoff_by_id
from gtreview.store.settings_repo import PUBLISHED_RELEASES, append_to_setting, get_setting


class TrustedKey(BaseModel):
    """A key now trusted, and the file that says so."""

    name: str
    fingerprint: str
    file: Path


def create_reviewer_key(name: str, key_dir: Path | None = None) -> ReviewerKey:
    """The reviewer's key, created on first use (asking again shows the same key)."""
    return ensure_reviewer_key(name, key_dir)


def reviewer_keys(key_dir: Path | None = None) -> list[ReviewerKey]:
    return list_reviewer_keys(key_dir)


def create_release_bundle(
    engine: Engine,
    set_id: int,
    *,
    key: str,
    out_dir: Path,
    signoff: int | None = None,
    key_dir: Path | None = None,
    project_folder: Path | None = None,
) -> ReleaseInfo:
    """Write a signed bundle of the set's sign-off ``signoff`` (default: the latest).

    ``key`` is a reviewer key's name or the path of a private key file; the folder
    must be new or empty, so an earlier release is never overwritten. The signer's
    public key joins the project's trusted keys (``project_folder``), so anyone who has
    the project verifies the team's releases without trusting each key by hand.
    """
    signing_key = resolve_signing_key(key, key_dir)
    if project_folder is not None:
        _refuse_a_namesake(signing_key.public_key, signing_key.name, project_trusted_keys_file(project_folder))
    info = create_release(engine, set_id, signoff_number=signoff, reviewer_key=signing_key, out_dir=out_dir)
    if project_folder is not None:
        add_trusted_key(signing_key.public_key, signing_key.name, project_trusted_keys_file(project_folder))
    manifest = Manifest.model_validate_json((info.folder / MANIFEST).read_bytes())
    published = PublishedRelease(set_id=set_id, created_at=manifest.created_at, **info.model_dump())
    with unit_of_work(engine) as tx:
        append_to_setting(tx, PUBLISHED_RELEASES, published.model_dump(mode="json"))
    return info


class NamesakeKeyError(UserError):
    """A release signed by a key that is not the one the project trusts under that name."""


def _refuse_a_namesake(public_key: bytes, name: str, trust_file: Path) -> None:
    """A release adds its key to the project's trust silently; a second key under a name
    already trusted would make a forger's bundles pass as that reviewer's."""
    label = " ".join(name.split())
    for trusted, who in read_trusted_keys(trust_file).items():
        if who == label and trusted != public_key:
            raise NamesakeKeyError(
                f"the project trusts another key as {who} ({fingerprint(trusted)}), not this one "
                f"({fingerprint(public_key)}); sign with that key, or trust this one first with "
                "'gtreview keys trust --project' under another name"
            )


class PublishedRelease(ReleaseInfo):
    """A bundle written from this project, as it was written (the folder may have moved since)."""

    set_id: int
    created_at: str  # the manifest's, ISO 8601 in UTC


class SignoffRelease(BaseModel):
    """A sign-off and the bundles published from it, newest first."""

    set_id: int
    set_name: str
    signoff: SignoffInfo
    bundles: list[PublishedRelease]


def published_releases(engine: Engine) -> list[PublishedRelease]:
    """Every bundle written from the project, oldest first (an entry that cannot be read is left out)."""
    found = []
    with reading(engine) as session:
        entries = get_setting(session, PUBLISHED_RELEASES, []) or []
    for entry in entries:
        try:
            found.append(PublishedRelease.model_validate(entry))
        except ValidationError:
            continue  # written by another version
    return found


def signoff_release(engine: Engine, signoff_id: int) -> SignoffRelease:
    """What the window shows of a release: the sign-off, its set and its bundles."""
    with reading(engine) as session:
        set_id, signoff = signoff_by_id(session, signoff_id)
    bundles = [
        bundle
        for bundle in published_releases(engine)
        if (bundle.set_id, bundle.signoff_number) == (set_id, signoff.number)
    ]
    return SignoffRelease(set_id=set_id, set_name=set_name(engine, set_id), signoff=signoff, bundles=bundles[::-1])


PROJECT_TRUSTED_KEYS = "trusted_keys.txt"


def project_trusted_keys_file(project_folder: Path) -> Path:
    """The keys a project trusts: every key that signed one of its releases, and any added."""
    return project_folder / PROJECT_TRUSTED_KEYS


def verify_release_bundle(
    bundle: Path,
    *,
    public_key_file: Path | None = None,
    key_dir: Path | None = None,
    trusted_keys_file: Path | None = None,
    project_folder: Path | None = None,
) -> VerifyReport:
    """Check a bundle's signature, hashes and contents, and who signed it.

    With ``public_key_file`` the signer must be that key's owner. Without it the
    signer must be trusted: one of the user's own reviewer keys (``key_dir``), a key in
    the user's trusted-keys file, or one the project trusts (``project_folder``); a
    bundle re-signed by anyone else fails as untrusted.
    """
    if public_key_file is not None:
        return verify_release(bundle, public_key=read_public_key_file(public_key_file))
    return verify_release(bundle, trusted=trusted_keys(key_dir, trusted_keys_file, project_folder))


def trusted_keys(
    key_dir: Path | None = None, trusted_keys_file: Path | None = None, project_folder: Path | None = None
) -> dict[bytes, str]:
    """Every key a bundle may be signed by: the project's, the trusted-keys file's, then
    the user's own (a later source names a key it shares with an earlier one)."""
    project = read_trusted_keys(project_trusted_keys_file(project_folder)) if project_folder is not None else {}
    return {**project, **read_trusted_keys(trusted_keys_file), **own_public_keys(key_dir)}


def trust_public_key(
    public_key_file: Path, name: str, trusted_keys_file: Path | None = None, project_folder: Path | None = None
) -> TrustedKey:
    """Trust the key in ``public_key_file`` (a reviewer's ``.pub``) as ``name``'s from now
    on: the user's (``trusted_keys_file``, default in the config folder) or, with
    ``project_folder``, the project's, for everyone who opens it."""
    raw = read_public_key_file(public_key_file)
    path = add_trusted_key(
        raw, name, project_trusted_keys_file(project_folder) if project_folder is not None else trusted_keys_file
    )
    return TrustedKey(name=" ".join(name.split()), fingerprint=fingerprint(raw), file=path)


__all__ = [
    "PROJECT_TRUSTED_KEYS",
    "PublishedRelease",
    "ReleaseInfo",
    "ReviewerKey",
    "SignoffRelease",
    "TrustedKey",
    "VerifyReport",
    "create_release_bundle",
    "create_reviewer_key",
    "project_trusted_keys_file",
    "published_releases",
    "reviewer_keys",
    "signoff_release",
    "trust_public_key",
    "trusted_keys",
    "verify_release_bundle",
]
