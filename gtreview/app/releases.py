"""Signed releases: reviewer keys, a bundle of a signed-off set, and its verification.

A release is a folder anyone can check without gtreview's project: the signed-off
rubric, its grading guide, the questions without their answers, and the sign-offs,
hashed in a manifest signed with the reviewer's Ed25519 key. Keys live per user, the
private half never leaves the key folder. The preferences dialog and ``gtreview keys``
manage the same keys through these functions.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel
from sqlalchemy import Engine

from gtreview.report.release import ReleaseInfo, VerifyReport, create_release, verify_release
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
) -> ReleaseInfo:
    """Write a signed bundle of the set's sign-off ``signoff`` (default: the latest).

    ``key`` is a reviewer key's name or the path of a private key file; the folder
    must be new or empty, so an earlier release is never overwritten.
    """
    signing_key = resolve_signing_key(key, key_dir)
    return create_release(engine, set_id, signoff_number=signoff, reviewer_key=signing_key, out_dir=out_dir)


def verify_release_bundle(
    bundle: Path,
    *,
    public_key_file: Path | None = None,
    key_dir: Path | None = None,
    trusted_keys_file: Path | None = None,
) -> VerifyReport:
    """Check a bundle's signature, hashes and contents, and who signed it.

    With ``public_key_file`` the signer must be that key's owner. Without it the
    signer must be trusted: one of the user's own reviewer keys (``key_dir``) or a key
    in the trusted-keys file; a bundle re-signed by anyone else fails as untrusted.
    """
    if public_key_file is not None:
        return verify_release(bundle, public_key=read_public_key_file(public_key_file))
    return verify_release(bundle, trusted=trusted_keys(key_dir, trusted_keys_file))


def trusted_keys(key_dir: Path | None = None, trusted_keys_file: Path | None = None) -> dict[bytes, str]:
    """Every key a bundle may be signed by: the trusted-keys file's, then the user's own."""
    return {**read_trusted_keys(trusted_keys_file), **own_public_keys(key_dir)}


def trust_public_key(public_key_file: Path, name: str, trusted_keys_file: Path | None = None) -> TrustedKey:
    """Trust the key in ``public_key_file`` (a reviewer's ``.pub``) as ``name``'s from now on."""
    raw = read_public_key_file(public_key_file)
    path = add_trusted_key(raw, name, trusted_keys_file)
    return TrustedKey(name=" ".join(name.split()), fingerprint=fingerprint(raw), file=path)


__all__ = [
    "ReleaseInfo",
    "ReviewerKey",
    "TrustedKey",
    "VerifyReport",
    "create_release_bundle",
    "create_reviewer_key",
    "reviewer_keys",
    "trust_public_key",
    "trusted_keys",
    "verify_release_bundle",
]
